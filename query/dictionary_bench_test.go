package query

import (
	"context"
	"testing"
)

// BenchmarkDictionaryWhere answers: what does testing a kept dictionary
// column's WHERE on its codes (the scan's row filter, once per dictionary
// entry) save over decoding the column and filtering its values
// (NoPruning: ToEngine then Filter, the only way before)? And how does
// it compare with the same rows stored decoded (a string row filter)?
// 1M rows, 60 distinct 22-byte strings, batches of 8,192 rows.
func BenchmarkDictionaryWhere(b *testing.B) {
	const rows = 1 << 20
	e := dictEngine(b, rows, 8192, 60)
	noPrune := New(e.c, Options{Alloc: e.opts.Alloc, NoPruning: true})
	w := dictWords(60)
	for _, q := range []struct{ name, where string }{
		{"eq", "d = '" + w[7] + "'"},
		{"in3", "d IN ('" + w[1] + "', '" + w[2] + "', '" + w[3] + "')"},
		{"ne", "d <> '" + w[7] + "'"},
	} {
		for _, p := range []struct {
			name, table string
			e           *Engine
		}{
			{"codes", "kept", e}, {"decode", "kept", noPrune}, {"stored_decoded", "plain", e},
		} {
			b.Run("where="+q.name+"/path="+p.name, func(b *testing.B) {
				sql := "SELECT count(*), sum(x) FROM " + p.table + " WHERE " + q.where
				b.ReportAllocs()
				for b.Loop() {
					r, err := p.e.Query(context.Background(), sql)
					if err != nil {
						b.Fatal(err)
					}
					for r.Next() {
					}
					if err := r.Err(); err != nil {
						b.Fatal(err)
					}
					r.Release()
				}
				b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
			})
		}
	}
}

// BenchmarkDictionaryGroupBy measures GROUP BY on a kept dictionary
// column, grouped by its codes (build_dictkey.go), against the same rows
// stored decoded, whose every value is hashed.
func BenchmarkDictionaryGroupBy(b *testing.B) {
	const rows = 1 << 20
	e := dictEngine(b, rows, 8192, 60)
	for _, table := range []string{"kept", "plain"} {
		b.Run("table="+table, func(b *testing.B) {
			sql := "SELECT d, count(*), sum(x) FROM " + table + " GROUP BY d"
			b.ReportAllocs()
			for b.Loop() {
				r, err := e.Query(context.Background(), sql)
				if err != nil {
					b.Fatal(err)
				}
				for r.Next() {
				}
				if err := r.Err(); err != nil {
					b.Fatal(err)
				}
				r.Release()
			}
			b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
