package sortkey_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/sortkey"
	"github.com/quiverdb/quiver/sortkey/sortkeytest"
)

// TestSorter sorts batches of random keys with Sorter and checks the
// order row for row against a stable sort with the oracle comparator:
// the same permutation, so ties keep input order.
func TestSorter(t *testing.T) {
	types := sortkeytest.Types()
	r := rand.New(rand.NewPCG(11, 12))
	for trial := range 80 {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		k := 1 + r.IntN(3)
		var fields []sortkey.SortField
		for range k {
			d := directions[r.IntN(len(directions))]
			fields = append(fields, sortkey.SortField{Type: types[r.IntN(len(types))], Desc: d.desc, NullsFirst: d.nullsFirst})
		}
		// Few distinct values in some trials (long tie groups, deep
		// digits), many in others.
		distinct := []int{1, 3, 30, 1000}[r.IntN(4)]
		nb := 1 + r.IntN(4)
		batches := make([][]arrow.Array, nb)
		for b := range batches {
			n := r.IntN(300)
			for _, f := range fields {
				batches[b] = append(batches[b], sortkeytest.Column(mem, f.Type, n, distinct, 0.1, r))
			}
		}
		t.Run(fmt.Sprintf("%d/%v", trial, fields), func(t *testing.T) { checkSorter(t, mem, batches, fields) })
		for _, cols := range batches {
			for _, c := range cols {
				c.Release()
			}
		}
		mem.AssertSize(t, 0)
	}
}

func checkSorter(t *testing.T, mem memory.Allocator, batches [][]arrow.Array, fields []sortkey.SortField) {
	enc, err := sortkey.NewEncoder(fields)
	if err != nil {
		t.Fatal(err)
	}
	keys := make([]*sortkey.Rows, len(batches))
	var items []sortkey.Item
	for b, cols := range batches {
		keys[b] = new(sortkey.Rows)
		if err := enc.Encode(keys[b], cols); err != nil {
			t.Fatal(err)
		}
		items = sortkey.AppendItems(items, keys[b], uint32(b))
	}
	var s sortkey.Sorter
	s.Sort(items, keys)

	// The oracle: all batches concatenated, sorted stably.
	whole := make([]arrow.Array, len(fields))
	for k := range fields {
		parts := make([]arrow.Array, len(batches))
		for b := range batches {
			parts[b] = batches[b][k]
		}
		whole[k], err = array.Concatenate(parts, mem)
		if err != nil {
			t.Fatal(err)
		}
		defer whole[k].Release()
	}
	c, err := sortkeytest.Comparator(whole, whole, fields)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]int, whole[0].Len())
	for i := range want {
		want[i] = i
	}
	slices.SortStableFunc(want, c)
	start := make([]int, len(batches)+1)
	for b := range batches {
		start[b+1] = start[b] + batches[b][0].Len()
	}
	if len(items) != len(want) {
		t.Fatalf("%d items, want %d", len(items), len(want))
	}
	for i, it := range items {
		if got := start[it.Batch] + int(it.Row); got != want[i] {
			t.Fatalf("position %d: row %d, want row %d", i, got, want[i])
		}
	}
}

// TestSorterRawKeys sorts arbitrary byte strings, not encodings: keys that
// are prefixes of each other, runs of zero bytes, one length for all (the
// fixed-width path) and mixed lengths.
func TestSorterRawKeys(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for trial := range 200 {
		fixed := trial%3 == 0
		width := 1 + r.IntN(20)
		alphabet := []byte{0, 0, 1, 0xFF, 'a'}[:2+r.IntN(4)]
		nb := 1 + r.IntN(3)
		keys := make([]*sortkey.Rows, nb)
		var all [][]byte
		var items []sortkey.Item
		for b := range keys {
			keys[b] = new(sortkey.Rows)
			for range r.IntN(200) {
				n := width
				if !fixed {
					n = r.IntN(30)
				}
				k := make([]byte, n)
				for i := range k {
					k[i] = alphabet[r.IntN(len(alphabet))]
				}
				keys[b].Append(k)
				all = append(all, k)
			}
			items = sortkey.AppendItems(items, keys[b], uint32(b))
		}
		var s sortkey.Sorter
		s.Sort(items, keys)
		want := make([]int, len(all))
		for i := range want {
			want[i] = i
		}
		slices.SortStableFunc(want, func(a, b int) int { return bytes.Compare(all[a], all[b]) })
		start := make([]int, nb+1)
		for b := range keys {
			start[b+1] = start[b] + keys[b].Len()
		}
		for i, it := range items {
			if got := start[it.Batch] + int(it.Row); got != want[i] {
				t.Fatalf("trial %d, position %d: key %d %x, want key %d %x", trial, i, got, all[got], want[i], all[want[i]])
			}
		}
	}
}

// FuzzSorter sorts byte strings cut from the input (each byte below 0x20
// ends a key, so keys share prefixes and zero runs) in up to three
// batches, and checks the order against a stable sort by bytes.Compare.
func FuzzSorter(f *testing.F) {
	f.Add([]byte("b\x01a\x01\x00\x00\x01\x00\x01a\x00b\x01ab\x01a"), uint8(2))
	f.Add([]byte("aaaaaaaaaaaaaaaaaaaaaaaa\x01aaaaaaaaaaaaaaaaaaaaaaab\x01aaaaaaaaaaaaaaaaaaaaaaa"), uint8(1))
	f.Add(bytes.Repeat([]byte("\xff\x00\x01"), 100), uint8(3)) // a few hundred bytes: the fuzzer minimizes what it keeps
	f.Fuzz(func(t *testing.T, data []byte, nb uint8) {
		nb = nb%3 + 1
		keys := make([]*sortkey.Rows, nb)
		for b := range keys {
			keys[b] = new(sortkey.Rows)
		}
		var all [][]byte
		var cur []byte
		flush := func() {
			b := len(all) % int(nb)
			keys[b].Append(cur)
			all = append(all, cur)
			cur = nil
		}
		for _, c := range data {
			if c < 0x20 && c != 0 {
				flush()
				continue
			}
			cur = append(cur, c)
		}
		flush()
		// Keys were dealt round-robin: batch b holds keys b, b+nb, ...
		var items []sortkey.Item
		var pos []int // items' keys in all
		for b := range keys {
			items = sortkey.AppendItems(items, keys[b], uint32(b))
			for r := range keys[b].Len() {
				pos = append(pos, r*int(nb)+b)
			}
		}
		var s sortkey.Sorter
		s.Sort(items, keys)
		want := make([]int, len(pos))
		copy(want, pos) // input order: batch by batch, as the items
		slices.SortStableFunc(want, func(a, b int) int { return bytes.Compare(all[a], all[b]) })
		for i, it := range items {
			got := int(it.Row)*int(nb) + int(it.Batch)
			if got != want[i] {
				t.Fatalf("position %d: key %q, want %q", i, all[got], all[want[i]])
			}
		}
	})
}
