package store

import (
	"math"
	"testing"

	"github.com/quiverdb/quiver/cache"
)

// TestDistinctSurvivesRestart: the distinct counts of a table put and
// appended to are the same after a restart, read from the manifest
// without reading a chunk, and an Append after the restart merges into
// them.
func TestDistinctSurvivesRestart(t *testing.T) {
	mem := checked(t)
	dir := t.TempDir()
	s, c := open(t, dir, mem, nil)
	r := batches(mem, 1, 3, 2000)
	_, err := s.Put(t.Context(), "t", r, cache.TableOptions{})
	r.Release()
	if err != nil {
		t.Fatal(err)
	}
	r = batches(mem, 2, 2, 2000)
	_, err = s.Append(t.Context(), "t", r, cache.TableOptions{})
	r.Release()
	if err != nil {
		t.Fatal(err)
	}
	want, _ := c.Stats("t")
	if d := want.Columns[0].Distinct; math.Abs(float64(d)-10_000) > 500 {
		t.Fatalf("id: %d distinct before the restart, want about 10000", d)
	}
	s.Close()

	s2, c2 := open(t, dir, mem, nil)
	got, err := c2.Stats("t")
	if err != nil {
		t.Fatal(err)
	}
	for i := range want.Columns {
		if got.Columns[i].Distinct != want.Columns[i].Distinct || got.Columns[i].Nulls != want.Columns[i].Nulls {
			t.Errorf("column %d after the restart: %+v, before %+v", i, got.Columns[i], want.Columns[i])
		}
	}
	if got.Columns[3].Distinct != 3 {
		t.Errorf("kind: %d distinct, want 3", got.Columns[3].Distinct)
	}
	r = batches(mem, 3, 1, 2000)
	_, err = s2.Append(t.Context(), "t", r, cache.TableOptions{})
	r.Release()
	if err != nil {
		t.Fatal(err)
	}
	after, _ := c2.Stats("t")
	if d := after.Columns[0].Distinct; math.Abs(float64(d)-12_000) > 600 {
		t.Fatalf("id: %d distinct after an append past the restart, want about 12000", d)
	}
}
