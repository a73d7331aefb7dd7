//go:build cref

package cref

import (
	"bytes"
	"errors"
	"testing"

	"github.com/quiverdb/quiver/codec"
)

// TestLZ4QuiverToC: liblz4 decodes every frame quiver's codec writes,
// through the frame API and block by block.
func TestLZ4QuiverToC(t *testing.T) {
	q := codec.MustNew(codec.SettingLZ4)
	for _, in := range inputs() {
		t.Run(in.name, func(t *testing.T) {
			frame := q.Compress(nil, in.data)
			got, err := LZ4FDecompress(nil, frame, len(in.data))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, in.data) {
				t.Fatal("LZ4F_decompress: bytes differ")
			}
			blocks, err := lz4Blocks(frame, len(in.data))
			if err != nil {
				t.Fatal(err)
			}
			var out []byte
			for i, b := range blocks {
				if b.raw {
					out = append(out, b.data...)
					continue
				}
				if out, err = LZ4DecompressSafe(out, b.data, b.size); err != nil {
					t.Fatalf("block %d: %v", i, err)
				}
			}
			if !bytes.Equal(out, in.data) {
				t.Fatal("LZ4_decompress_safe: bytes differ")
			}
		})
	}
}

// TestLZ4CToQuiver: quiver's codec decodes what liblz4 writes with every
// frame option that changes the bytes.
func TestLZ4CToQuiver(t *testing.T) {
	q := codec.MustNew(codec.SettingLZ4)
	opts := map[string]LZ4FOptions{
		"default":           {},
		"contentChecksum":   {ContentChecksum: true},
		"blockChecksum":     {BlockChecksum: true},
		"contentSize":       {ContentSize: true},
		"64KiB":             {BlockSize: LZ4Block64KiB},
		"256KiB":            {BlockSize: LZ4Block256KiB},
		"4MiB":              {BlockSize: LZ4Block4MiB},
		"linked-64KiB":      {BlockSize: LZ4Block64KiB, Linked: true},
		"linked-4MiB":       {BlockSize: LZ4Block4MiB, Linked: true},
		"hc9":               {Level: 9},
		"all-checks":        {BlockSize: LZ4Block4MiB, ContentChecksum: true, BlockChecksum: true, ContentSize: true},
		"all-checks-linked": {BlockSize: LZ4Block64KiB, Linked: true, ContentChecksum: true, BlockChecksum: true, ContentSize: true},
	}
	for name, o := range opts {
		for _, in := range inputs() {
			t.Run(name+"/"+in.name, func(t *testing.T) {
				frame, err := LZ4FCompressFrame(nil, in.data, o)
				if err != nil {
					t.Fatal(err)
				}
				// liblz4 makes a one-block frame independent; past 4 MiB
				// every block size has several, so the flag must be off.
				if o.Linked && len(in.data) > 4<<20 && frame[4]&0x20 != 0 {
					t.Fatal("liblz4 wrote independent blocks; the linked case is not tested")
				}
				got, err := q.Decompress([]byte("prefix"), frame, len(in.data))
				if err != nil {
					t.Fatal(err)
				}
				if string(got[:6]) != "prefix" || !bytes.Equal(got[6:], in.data) {
					t.Fatal("bytes differ")
				}
			})
		}
	}
}

// TestLZ4CChecksumsChecked: quiver verifies the checksums liblz4 writes,
// so a flipped bit in the data is an error, not wrong bytes.
func TestLZ4CChecksumsChecked(t *testing.T) {
	q := codec.MustNew(codec.SettingLZ4)
	data := random(100 << 10) // stored raw: a flip changes data, not structure
	for name, o := range map[string]LZ4FOptions{
		"content": {ContentChecksum: true},
		"block":   {BlockChecksum: true},
	} {
		frame, err := LZ4FCompressFrame(nil, data, o)
		if err != nil {
			t.Fatal(err)
		}
		frame[len(frame)/2] ^= 1
		if _, err := q.Decompress(nil, frame, len(data)); !errors.Is(err, codec.ErrChecksum) {
			t.Errorf("%s checksum: flipped bit gave %v, want ErrChecksum", name, err)
		}
		if _, err := LZ4FDecompress(nil, frame, len(data)); err == nil {
			t.Errorf("%s checksum: liblz4 accepted the flipped bit too", name)
		}
	}
}

// TestLZ4BlockWrappers checks the block wrappers against each other.
func TestLZ4BlockWrappers(t *testing.T) {
	data := text(200 << 10)
	blk, err := LZ4CompressDefault(nil, data)
	if err != nil {
		t.Fatal(err)
	}
	got, err := LZ4DecompressSafe([]byte{1}, blk, len(data))
	if err != nil || got[0] != 1 || !bytes.Equal(got[1:], data) {
		t.Fatalf("round trip: %v", err)
	}
	if _, err := LZ4DecompressSafe(nil, blk[:len(blk)/2], len(data)); !errors.Is(err, ErrC) {
		t.Errorf("cut block: %v, want ErrC", err)
	}
}
