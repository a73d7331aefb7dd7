package cache

import (
	"context"
	"math/rand/v2"
	"testing"
)

// TestScanPruningEndToEnd stores random tables of every orderable type
// (NaN, -0.0, all-null batches, strings, sliced input) and checks, for
// random predicates, that a scan returns every batch holding a selected
// row, with its values intact, and skips exactly what CanSkip proves.
func TestScanPruningEndToEnd(t *testing.T) {
	mem := newAlloc(t)
	r := rand.New(rand.NewPCG(7, 42))
	var preds, skipped int
	for round := range 40 {
		schema, batches, recs := genTable(mem, r, colTypes, 3, 8, func() int { return r.IntN(12) })
		c := newCache(t, mem, 0)
		setting := settings[r.IntN(len(settings))]
		info := put(t, c, "t", schema, recs, setting.opts)
		for range 25 {
			p := genPred(r, batches[0], 3)
			preds++
			s, err := c.Scan(context.Background(), "t", ScanOptions{Filter: p, Concurrency: 1 + r.IntN(3)})
			if err != nil {
				t.Fatal(err)
			}
			next := 0 // batches are returned in order; match them up
			for s.Next() {
				rec := s.RecordBatch()
				for next < len(batches) && CanSkip(p, statsOf(batches[next])) {
					next++
				}
				if next == len(batches) {
					t.Fatalf("round %d: %v: more batches than expected", round, p)
				}
				for i, col := range batches[next] {
					want := col.arr
					if info.Columns[i].Dictionary == "decoded" {
						dense, err := decodeDictionary(context.Background(), mem, want)
						if err != nil {
							t.Fatal(err)
						}
						defer dense.Release()
						want = dense
					}
					if !sameArray(want, rec.Column(i)) {
						t.Fatalf("round %d (%s) batch %d column %s: got %v want %v", round, setting.name, next, col.ct.name, rec.Column(i), want)
					}
				}
				next++
			}
			if err := s.Err(); err != nil {
				t.Fatal(err)
			}
			m := s.Metrics()
			s.Release()
			for b, cols := range batches {
				rows := int64(cols[0].arr.Len())
				if !CanSkip(p, statsOf(cols)) {
					continue
				}
				for row := range int(rows) {
					if evalRow(p, cols, row) == tTrue {
						t.Fatalf("round %d: %v skips batch %d whose row %d is selected", round, p, b, row)
					}
				}
			}
			skipped += m.Skipped
			if m.Skipped+m.Decoded != m.Batches || m.Batches != len(batches) {
				t.Fatalf("metrics %+v for %d batches", m, len(batches))
			}
		}
		release(recs)
		for _, cols := range batches {
			for _, c := range cols {
				c.arr.Release()
			}
		}
	}
	t.Logf("%d predicates, %d batches skipped", preds, skipped)
	if skipped == 0 {
		t.Error("no batch was ever skipped")
	}
}

func statsOf(cols []testCol) []ColumnStats {
	stats := make([]ColumnStats, len(cols))
	for i, c := range cols {
		stats[i] = ComputeStats(c.arr)
	}
	return stats
}
