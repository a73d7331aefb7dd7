package cache

import (
	"bytes"
	"fmt"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/internal/datagen"
	"github.com/quiverdb/quiver/internal/rawmem"
)

// TestRecyclerContract: buffers have exactly the capacity asked for (arrow-go
// writes up to a buffer's capacity; a larger one let a builder's bytes be
// cleared by a later Reallocate and broke strings in query results),
// growing in place keeps the contents, reused memory comes back zeroed,
// and foreign slices are never pooled.
func TestRecyclerContract(t *testing.T) {
	r := &recycler{}
	b := r.Allocate(100)
	if len(b) != 100 || cap(b) != 100 || rawmem.Addr(b)%alignment != 0 {
		t.Fatalf("len %d cap %d aligned %v", len(b), cap(b), rawmem.Addr(b)%alignment == 0)
	}
	copy(b, bytes.Repeat([]byte{7}, 100))
	g := r.Reallocate(120, b)
	if len(g) != 120 || cap(g) != 120 || !bytes.Equal(g[:100], bytes.Repeat([]byte{7}, 100)) || !bytes.Equal(g[100:], make([]byte, 20)) {
		t.Fatalf("grow in class: %v", g)
	}
	big := r.Reallocate(1000, g)
	if !bytes.Equal(big[:100], bytes.Repeat([]byte{7}, 100)) || cap(big) != 1000 {
		t.Fatal("grow past the class lost the contents")
	}
	r.Free(big)
	again := r.Allocate(900) // same class: reused, cleared
	if !bytes.Equal(again, make([]byte, 900)) {
		t.Fatal("reused memory not zeroed")
	}
	foreign := make([]byte, 128)
	r.Free(foreign)
	r.Free(foreign[:64])
	r.Free(again[64:]) // a part of a live buffer
	if _, ok := r.class(foreign); ok {
		t.Fatal("a foreign slice became ours")
	}
	next := r.Allocate(128)
	if rawmem.Addr(next) == rawmem.Addr(foreign) {
		t.Fatal("a foreign slice was pooled")
	}
	if len(r.Allocate(0)) != 0 {
		t.Fatal("empty allocation")
	}
	r.Free(next)
	r.Free(again)
}

// BenchmarkRecycler: the allocator's cost per buffer on a scan's pattern,
// allocate, grow within the size class, free, for the sizes of a batch's
// buffers; the peer is memory.GoAllocator's make.
func BenchmarkRecycler(b *testing.B) {
	for _, size := range []int{1 << 10, 64 << 10} {
		b.Run("alloc=recycler/size="+strconv.Itoa(size), func(b *testing.B) {
			r := &recycler{}
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				buf := r.Reallocate(size, r.Allocate(size/2))
				r.Free(buf)
			}
		})
		b.Run("alloc=go/size="+strconv.Itoa(size), func(b *testing.B) {
			g := memory.NewGoAllocator()
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				buf := g.Reallocate(size, g.Allocate(size/2))
				g.Free(buf)
			}
		})
	}
}

// TestRecycledPartsAreOverwritten scans tables of every type and setting
// with the default recycler, alternating tables so each scan decodes into
// buffers another table's batches just freed (chunkDecoder.part does not
// clear them): every value must still be the table's own.
func TestRecycledPartsAreOverwritten(t *testing.T) {
	mem := checked(t) // the inputs only; the cache scans with its recycler
	c := newCache(t, nil, 0)
	var inputs [][]arrow.RecordBatch
	for i, st := range settings {
		in := []arrow.RecordBatch{datagen.Record(mem, 300+i, uint64(10+i)), datagen.Record(mem, 64, uint64(20+i))}
		defer release(in)
		put(t, c, fmt.Sprint("t", i), in[0].Schema(), in, st.opts)
		inputs = append(inputs, in)
	}
	for round := range 3 {
		for i, in := range inputs {
			name := fmt.Sprint("t", i)
			info, err := c.Info(name)
			if err != nil {
				t.Fatal(err)
			}
			out, _ := scanAll(t, c, name, ScanOptions{})
			for b := range in {
				for j := range int(in[b].NumCols()) {
					want := wantColumn(t, mem, info, in[b], j)
					if !array.Equal(want, out[b].Column(j)) {
						t.Errorf("round %d table %s batch %d column %s: a recycled buffer kept other bytes", round, name, b, info.Columns[j].Name)
					}
					want.Release()
				}
			}
			release(out)
		}
	}
}
