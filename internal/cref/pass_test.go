//go:build cref

package cref

import (
	"bytes"
	"testing"

	"github.com/quiverdb/quiver/codec"
)

// TestDecodePass runs every format over quiver-written frames and checks
// that a pass refuses frames that do not decode to what is expected.
func TestDecodePass(t *testing.T) {
	var want [][]byte
	for _, in := range inputs() {
		want = append(want, in.data)
	}
	for _, tc := range []struct {
		s       codec.Setting
		formats []Format
	}{
		{codec.SettingLZ4, []Format{LZ4Frame, LZ4Block}},
		{codec.Setting{Kind: codec.Zstd, Level: 1}, []Format{Zstd}},
	} {
		q := codec.MustNew(tc.s)
		var frames [][]byte
		for _, w := range want {
			frames = append(frames, q.Compress(nil, w))
		}
		speeds, err := DecodeSpeeds(frames, want, tc.formats, 2)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range speeds {
			if s.MBps <= 0 {
				t.Errorf("%s: %v MB/s", s.Name, s.MBps)
			}
			t.Logf("%s %s: %.0f MB/s", tc.s, s.Name, s.MBps)
		}
		for _, f := range tc.formats {
			bad := bytes.Clone(want[3])
			bad[100] ^= 1
			wrong := append(append([][]byte{}, want[:3]...), bad)
			wrong = append(wrong, want[4:]...)
			if p, err := NewDecodePass(f, frames, wrong); err == nil {
				p.Close()
				t.Errorf("%s: accepted frames that decode to other bytes", f)
			}
		}
	}
}
