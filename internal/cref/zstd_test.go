//go:build cref

package cref

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"testing"

	"github.com/quiverdb/quiver/codec"
)

var zstdLevels = []int{1, 3, 19}

// TestZstdQuiverToC: libzstd decodes quiver's frames at each level.
func TestZstdQuiverToC(t *testing.T) {
	d := NewZstdDecoder()
	for _, level := range zstdLevels {
		q := codec.MustNew(codec.Setting{Kind: codec.Zstd, Level: level})
		for _, in := range inputs() {
			t.Run(fmt.Sprintf("L%d/%s", level, in.name), func(t *testing.T) {
				if level == 19 && len(in.data) > 2<<20 {
					t.Skip("level 19 on 9 MiB is slow and adds nothing")
				}
				frame := q.Compress(nil, in.data)
				got, err := d.Decompress([]byte("p"), frame, len(in.data))
				if err != nil {
					t.Fatal(err)
				}
				if got[0] != 'p' || !bytes.Equal(got[1:], in.data) {
					t.Fatal("bytes differ")
				}
			})
		}
	}
}

// TestZstdCToQuiver: quiver decodes libzstd's frames, with and without
// the content checksum.
func TestZstdCToQuiver(t *testing.T) {
	q := codec.MustNew(codec.SettingZstd)
	for _, level := range zstdLevels {
		for _, checksum := range []bool{false, true} {
			for _, in := range inputs() {
				t.Run(fmt.Sprintf("L%d/checksum=%v/%s", level, checksum, in.name), func(t *testing.T) {
					if level == 19 && len(in.data) > 2<<20 {
						t.Skip("level 19 on 9 MiB is slow and adds nothing")
					}
					compress := ZstdCompress
					if checksum {
						compress = ZstdCompressChecksum
					}
					frame, err := compress(nil, in.data, level)
					if err != nil {
						t.Fatal(err)
					}
					got, err := q.Decompress(nil, frame, len(in.data))
					if err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(got, in.data) {
						t.Fatal("bytes differ")
					}
				})
			}
		}
	}
}

// TestZstdCChecksumChecked: quiver checks libzstd's content checksum.
func TestZstdCChecksumChecked(t *testing.T) {
	q := codec.MustNew(codec.SettingZstd)
	data := text(100 << 10)
	frame, err := ZstdCompressChecksum(nil, data, 3)
	if err != nil {
		t.Fatal(err)
	}
	frame[len(frame)-1] ^= 1 // the checksum's last byte
	if _, err := q.Decompress(nil, frame, len(data)); !errors.Is(err, codec.ErrChecksum) {
		t.Errorf("flipped checksum: %v, want ErrChecksum", err)
	}
	if _, err := NewZstdDecoder().Decompress(nil, frame, len(data)); !errors.Is(err, ErrC) {
		t.Errorf("libzstd accepted the flipped checksum: %v", err)
	}
}

// TestVersions: Versions has the form bench reports print ("liblz4 1.9.4,
// libzstd 1.5.4") and names the libraries the headers describe.
func TestVersions(t *testing.T) {
	got := Versions()
	if !regexp.MustCompile(`^liblz4 \d+\.\d+\.\d+, libzstd \d+\.\d+\.\d+$`).MatchString(got) {
		t.Errorf("Versions() = %q, want \"liblz4 X.Y.Z, libzstd X.Y.Z\"", got)
	}
	if want := headerVersions(); got != want {
		t.Errorf("linked libraries %q, headers %q", got, want)
	}
}
