package shuffle

import (
	"math/rand/v2"
	"testing"

	"github.com/quiverdb/quiver/codec"
)

// FuzzDecodeStatuses: no input panics or allocates past the limits, and
// whatever decodes re-encodes to statuses that decode the same.
func FuzzDecodeStatuses(f *testing.F) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, parts := range []int{0, 3, 2001} {
		for _, c := range []codec.Setting{{}, {Kind: codec.Zstd, Level: 1}} {
			b, err := AppendStatuses(nil, randomStatuses(rng, 4, parts, 2), parts, c)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
		}
	}
	f.Add(locationBomb())
	lim := DecodeLimits{MaxMaps: 1 << 12, MaxPartitions: 1 << 14, MaxBytes: 1 << 22, MaxLocationBytes: 1 << 20}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := DecodeStatuses(b, lim)
		if err != nil {
			return
		}
		st := make([]*MapStatus, v.Maps())
		for m := range st {
			st[m] = v.Status(m)
		}
		again, err := AppendStatuses(nil, st, v.Partitions(), codec.Setting{})
		if err != nil {
			t.Fatal(err)
		}
		w, err := DecodeStatuses(again, lim)
		if err != nil {
			t.Fatalf("re-encoded statuses do not decode: %v", err)
		}
		// Every map, up to 64 blocks each (all of them would make one
		// input of 4,096 × 16,384 blocks take minutes).
		for m := range st {
			if w.Kind(m) != v.Kind(m) {
				t.Fatalf("map %d: kind %s, re-encoded %s", m, v.Kind(m), w.Kind(m))
			}
			for p := 0; p < v.Partitions(); p += 1 + v.Partitions()/64 {
				if a, b := v.Size(m, p), w.Size(m, p); a != b {
					t.Fatalf("map %d block %d: %d, re-encoded %d", m, p, a, b)
				}
			}
		}
	})
}
