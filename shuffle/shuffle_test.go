package shuffle

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// A shuffle started with no maps grows one map at a time (AddMap): the
// writers write, hold what Buffered says until a run is written, and the
// registered statuses read as a SizeSource (0 exactly for the empty
// blocks, within 10% above the others) while Output gives each finished
// map's file; reads over the grown maps return every row; Close removes
// them, and AddMap then fails.
func TestShuffleAddMap(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	m := newManager(t, 0)
	const parts = 6
	s, err := New(context.Background(), m, "grow", testSchema, Config{Partitions: parts, Writer: WriterOptions{Alloc: mem, BufferBytes: 1 << 20}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Statuses().Maps() != 0 {
		t.Fatalf("%d maps before any AddMap", s.Statuses().Maps())
	}
	var want int
	for i := range 3 {
		id, err := s.AddMap()
		if err != nil || id != i {
			t.Fatalf("AddMap: %d, %v; want %d", id, err, i)
		}
		w, err := s.NewMapWriter(id)
		if err != nil {
			t.Fatal(err)
		}
		rows := randomRows(rand.New(rand.NewPCG(uint64(i), 1)), 200)
		ids := make([]int32, len(rows))
		for r := range ids {
			ids[r] = int32(r % (parts - 1)) // partition parts-1 stays empty
		}
		rec := makeRecord(mem, rows)
		err = w.WriteRows(context.Background(), rec, ids)
		rec.Release()
		if err != nil {
			t.Fatal(err)
		}
		if w.Buffered() == 0 {
			t.Fatal("Buffered is 0 with a run held in memory")
		}
		if s.Output(id) != nil {
			t.Fatal("an output before FinishMap")
		}
		if _, err := s.FinishMap(id, w); err != nil {
			t.Fatal(err)
		}
		if w.Buffered() != 0 {
			t.Fatalf("Buffered %d after Finish", w.Buffered())
		}
		want += len(rows)
		out := s.Output(id)
		for p := range parts {
			got, exact := s.Statuses().Size(id, p), out.Sizes()[p]
			if (got == 0) != (exact == 0) || got < exact || float64(got) > 1.1*float64(exact) {
				t.Errorf("map %d partition %d: status size %d, block %d bytes", id, p, got, exact)
			}
		}
	}
	if src := SizeSource(s.Statuses()); src.Maps() != 3 || src.Partitions() != parts || Totals(src)[parts-1] != 0 {
		t.Fatalf("statuses: %d maps, %d partitions, totals %v", src.Maps(), src.Partitions(), Totals(src))
	}
	r, err := s.Read(context.Background(), PartitionRange{Start: 0, End: parts}, MapRange{Start: 0, End: 3}, ReadOptions{Alloc: mem})
	if err != nil {
		t.Fatal(err)
	}
	if got := rowsOf(t, r, nil); len(got) != want {
		t.Errorf("read %d rows, want %d", len(got), want)
	}
	r.Release()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if n := filesIn(t, m); n != 0 {
		t.Fatalf("after Close: %d files", n)
	}
	if _, err := s.AddMap(); !errors.Is(err, ErrClosed) {
		t.Fatalf("AddMap after Close: %v", err)
	}
}
