package colenc_test

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/quiverdb/quiver/colenc"
)

// TestDecodeRows: decoding chosen rows gives what decoding everything and
// gathering gives, for every shape, width, length around the packing's
// 8-value groups and 8-byte tail, with Plain, FOR and Delta, for rows in
// order, repeated and out of order; a row past the values is refused.
func TestDecodeRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, sh := range shapes {
		for _, width := range []int{4, 8} {
			for _, n := range []int{1, 2, 7, 8, 9, 63, 64, 65, 1000} {
				src := column(width, n, sh.v)
				for _, enc := range []colenc.Encoding{colenc.Plain, colenc.FOR, colenc.Delta} {
					buf := colenc.Encode(nil, src, width, enc)
					all, err := colenc.Decode(nil, buf, len(src))
					if err != nil {
						t.Fatal(err)
					}
					rows := []int32{int32(n - 1), 0}
					for range 20 {
						rows = append(rows, int32(rng.IntN(n)))
					}
					for i := range n { // every row, in order: the tail values too
						rows = append(rows, int32(i))
					}
					// and ascending with repeats (Delta's one-pass path)
					for _, rows := range [][]int32{rows, slices.Sorted(slices.Values(rows))} {
						var want []byte
						for _, r := range rows {
							want = append(want, all[int(r)*width:int(r+1)*width]...)
						}
						got, err := colenc.DecodeRows([]byte("pre"), buf, len(src), rows)
						if err != nil || string(got[:3]) != "pre" || !bytes.Equal(got[3:], want) {
							t.Fatalf("%s %d-byte n=%d %s: rows differ (err %v)", sh.name, width, n, enc, err)
						}
					}
					if _, err := colenc.DecodeRows(nil, buf, len(src), []int32{int32(n)}); !errors.Is(err, colenc.ErrCorrupt) {
						t.Fatalf("%s %s: row past the end: %v", sh.name, enc, err)
					}
				}
			}
		}
	}
	offs := colenc.Encode(nil, column(4, 10, func(i int, _ *rand.Rand) int64 { return int64(i) }), 4, colenc.Lengths)
	if _, err := colenc.DecodeRows(nil, offs, 40, []int32{1}); !errors.Is(err, colenc.ErrCorrupt) {
		t.Fatalf("lengths by rows: %v", err)
	}
}

// FuzzDecodeRows decodes garbage by rows: never a panic, errors match
// ErrCorrupt, and what decodes equals Decode's values at those rows.
func FuzzDecodeRows(f *testing.F) {
	f.Add(colenc.Encode(nil, column(8, 100, shapes[3].v), 8, colenc.FOR), 1<<20, uint16(5), uint16(99))
	f.Add(colenc.Encode(nil, column(4, 33, shapes[0].v), 4, colenc.Delta), 1<<20, uint16(32), uint16(0))
	f.Add([]byte{1, 2, 8, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 64, 0xff, 0x7f}, 100, uint16(2), uint16(1))
	f.Fuzz(func(t *testing.T, src []byte, limit int, a, b uint16) {
		limit = fuzzLimit(limit)
		rows := []int32{int32(a), int32(b), int32(a)}
		got, err := colenc.DecodeRows(nil, src, limit, rows)
		if err != nil {
			if !errors.Is(err, colenc.ErrCorrupt) {
				t.Fatalf("error %v does not match ErrCorrupt", err)
			}
			return
		}
		all, err := colenc.Decode(nil, src, limit)
		if err != nil {
			t.Fatalf("rows decode but the whole does not: %v", err)
		}
		w := int(src[2])
		var want []byte
		for _, r := range rows {
			want = append(want, all[int(r)*w:int(r+1)*w]...)
		}
		if !bytes.Equal(got, want) {
			t.Fatal("rows differ from the whole buffer's")
		}
	})
}
