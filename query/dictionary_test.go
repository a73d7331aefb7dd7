package query

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/cache"
)

// dictWords are the values of dictRecords' column d: long and random
// enough that the cache keeps d as dictionaries (smaller than its values).
func dictWords(n int) []string {
	words := make([]string, n)
	for k := range words {
		words[k] = fmt.Sprintf("w%04d-%x", k, uint64(k+1)*0x9E3779B97F4A7C15)
	}
	return words
}

// dictRecords builds rows batches of d dictionary<int16, utf8> and x
// int64. Each batch has its own dictionary: a random choice of distinct
// words (so an index means another word in each batch), in random order,
// with a NULL entry; some indices are NULL and some select the NULL
// entry.
func dictRecords(mem memory.Allocator, rows, batch, cardinality int) []arrow.RecordBatch {
	rng := rand.New(rand.NewPCG(15, 1))
	words := dictWords(cardinality)
	dt := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int16, ValueType: arrow.BinaryTypes.String}
	schema := arrow.NewSchema([]arrow.Field{{Name: "d", Type: dt, Nullable: true}, {Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil)
	var recs []arrow.RecordBatch
	for start := 0; start < rows; start += batch {
		n := min(batch, rows-start)
		perm := rng.Perm(len(words))[:len(words)*3/4]
		vb := array.NewStringBuilder(mem)
		nullAt := rng.IntN(len(perm))
		for i, w := range perm {
			if i == nullAt {
				vb.AppendNull()
			}
			vb.Append(words[w])
		}
		dict := vb.NewArray()
		vb.Release()
		ib := array.NewInt16Builder(mem)
		xb := array.NewInt64Builder(mem)
		for i := range n {
			if rng.IntN(20) == 0 {
				ib.AppendNull()
			} else {
				ib.Append(int16(rng.IntN(dict.Len())))
			}
			xb.Append(int64(start + i))
		}
		idx, x := ib.NewArray(), xb.NewArray()
		ib.Release()
		xb.Release()
		d := array.NewDictionaryArray(dt, idx, dict)
		recs = append(recs, array.NewRecordBatch(schema, []arrow.Array{d, x}, int64(n)))
		releaseAll([]arrow.Array{dict, idx, x, d})
	}
	return recs
}

// decodedRecords is recs with d decoded to its values.
func decodedRecords(t testing.TB, mem memory.Allocator, recs []arrow.RecordBatch) []arrow.RecordBatch {
	t.Helper()
	schema := arrow.NewSchema([]arrow.Field{{Name: "d", Type: arrow.BinaryTypes.String, Nullable: true}, {Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil)
	var out []arrow.RecordBatch
	for _, rec := range recs {
		d := rec.Column(0).(*array.Dictionary)
		dense, err := compute.TakeArray(compute.WithAllocator(context.Background(), mem), d.Dictionary(), d.Indices())
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, array.NewRecordBatch(schema, []arrow.Array{dense, rec.Column(1)}, rec.NumRows()))
		dense.Release()
	}
	return out
}

// dictEngine returns an engine over "kept" (dictRecords, d kept as
// dictionaries) and "plain" (the same rows, d decoded), on a checked
// allocator that must end empty.
func dictEngine(t testing.TB, rows, batch, cardinality int) *Engine {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	c, err := cache.New(cache.Options{Alloc: mem})
	if err != nil {
		t.Fatal(err)
	}
	recs := dictRecords(mem, rows, batch, cardinality)
	plain := decodedRecords(t, mem, recs)
	putTable(t, c, "kept", recs)
	putTable(t, c, "plain", plain)
	for _, r := range append(recs, plain...) {
		r.Release()
	}
	info, err := c.Info("kept")
	if err != nil {
		t.Fatal(err)
	}
	if got := info.Columns[0].Dictionary; got != "kept" {
		t.Fatalf("column d is %q, want it kept as dictionaries (the test data must make that smaller)", got)
	}
	return New(c, Options{Alloc: mem})
}

// TestDictionaryColumnAnswersAsDecoded runs each query on the kept table
// and on its decoded twin: the answers must agree, row for row.
func TestDictionaryColumnAnswersAsDecoded(t *testing.T) {
	e := dictEngine(t, 20000, 1500, 60)
	w := dictWords(60)
	queries := []string{
		`SELECT x, d FROM %s WHERE d = '` + w[3] + `'`,
		`SELECT x FROM %s WHERE d <> '` + w[3] + `'`,
		`SELECT x FROM %s WHERE d < '` + w[20] + `'`,
		`SELECT x FROM %s WHERE d >= '` + w[50] + `' AND x > 100`,
		`SELECT x FROM %s WHERE d BETWEEN '` + w[10] + `' AND '` + w[12] + `'`,
		`SELECT x FROM %s WHERE NOT (d BETWEEN '` + w[10] + `' AND '` + w[40] + `')`,
		`SELECT x, d FROM %s WHERE d IN ('` + w[1] + `', '` + w[2] + `', 'absent')`,
		`SELECT x FROM %s WHERE d IN ('` + w[1] + `', NULL)`,
		`SELECT x FROM %s WHERE d NOT IN ('` + w[1] + `', '` + w[2] + `')`,
		`SELECT x FROM %s WHERE d NOT IN ('` + w[1] + `', NULL)`,
		`SELECT x FROM %s WHERE d NOT BETWEEN '` + w[10] + `' AND '` + w[40] + `'`,
		`SELECT x FROM %s WHERE d NOT BETWEEN NULL AND '` + w[40] + `'`,
		`SELECT x FROM %s WHERE d NOT LIKE 'w001%%' AND d NOT LIKE 'w002%%'`,
		`SELECT x FROM %s WHERE NOT (d IN ('` + w[1] + `', NULL))`,
		`SELECT x FROM %s WHERE d LIKE 'w001%%'`,
		`SELECT x FROM %s WHERE d NOT LIKE 'w001%%'`,
		`SELECT x FROM %s WHERE d LIKE '%%e3%%'`,
		`SELECT x FROM %s WHERE d IS NULL`,
		`SELECT x FROM %s WHERE d IS NOT NULL AND x %% 7 = 0`,
		`SELECT x FROM %s WHERE NOT (d IS NULL) AND NOT (d = '` + w[5] + `')`,
		`SELECT x FROM %s WHERE NOT (d <> '` + w[5] + `')`,
		`SELECT x FROM %s WHERE d = NULL OR d <> NULL`,
		`SELECT count(*) FROM %s WHERE d <> NULL`,
		`SELECT count(*) FROM %s WHERE d = '` + w[7] + `'`,
		`SELECT d, count(*), min(x) FROM %s GROUP BY d`,
		`SELECT min(d), max(d), count(d), count(DISTINCT d) FROM %s`,
		`SELECT x, d FROM %s ORDER BY d NULLS FIRST, x LIMIT 50`,
		`SELECT upper(d) FROM %s WHERE length(d) > 0 AND x < 300`,
		`SELECT DISTINCT d FROM %s`,
		`SELECT coalesce(d, 'none'), CASE WHEN d = '` + w[4] + `' THEN 1 ELSE 0 END FROM %s WHERE x < 500`,
		`SELECT a.x, b.x FROM %s a JOIN plain b ON a.d = b.d WHERE a.x < 40 AND b.x < 40`,
		`SELECT d FROM %s WHERE x < 10 UNION ALL SELECT d FROM plain WHERE x < 10`,
		`SELECT d FROM %s WHERE x < 100 UNION SELECT d FROM plain WHERE x < 50`,
		`SELECT x, row_number() OVER (PARTITION BY d ORDER BY x) FROM %s WHERE x < 2000`,
		`SELECT x FROM %s WHERE d IN (SELECT d FROM plain WHERE x < 3)`,
		`SELECT d, count(*) FROM %s GROUP BY d HAVING count(*) > 300`,
		`SELECT x, d FROM %s ORDER BY d DESC NULLS LAST, x`,
	}
	for _, q := range queries {
		kept, err := run(t, e, fmt.Sprintf(q, "kept"))
		if err != nil {
			t.Errorf("%s: %v", fmt.Sprintf(q, "kept"), err)
			continue
		}
		plain, err := run(t, e, fmt.Sprintf(q, "plain"))
		if err != nil {
			t.Fatalf("%s: %v", fmt.Sprintf(q, "plain"), err)
		}
		if !strings.Contains(q, "ORDER BY") {
			slices.Sort(kept)
			slices.Sort(plain)
		}
		if i := firstDiff(kept, plain); i < len(kept) || len(kept) != len(plain) {
			t.Errorf("%s: %d rows, decoded %d; first difference at row %d: %q", fmt.Sprintf(q, "kept"), len(kept), len(plain), i, kept[min(i, len(kept)-1)])
		}
		if len(plain) == 0 && !strings.Contains(q, "NULL OR") && !strings.Contains(q, "<> NULL") && !strings.Contains(q, "NULL))") && !strings.Contains(q, "', NULL)") {
			t.Errorf("%s: no rows: the test proves nothing", q)
		}
	}
}

// TestDictionaryWhereNeverDecodes checks that a WHERE on a dictionary
// column runs in the scan's row filter, with no ToEngine of the column.
func TestDictionaryWhereNeverDecodes(t *testing.T) {
	e := dictEngine(t, 3000, 1000, 60)
	w := dictWords(60)
	for _, where := range []string{
		`d = '` + w[3] + `'`, `d <> '` + w[3] + `'`, `d IN ('` + w[1] + `', '` + w[2] + `')`,
		`d LIKE 'w00%'`, `d IS NULL`, `d IS NOT NULL`, `NOT (d = '` + w[3] + `')`, `d BETWEEN 'a' AND 'x'`,
		`d NOT IN ('` + w[1] + `', '` + w[2] + `')`, `d NOT LIKE 'w00%'`, `d NOT BETWEEN 'a' AND 'w0030'`,
	} {
		plan, err := run(t, e, "EXPLAIN SELECT x FROM kept WHERE "+where)
		if err != nil {
			t.Fatal(err)
		}
		text := strings.Join(plan, "\n")
		if strings.Contains(text, "ToEngine") || !strings.Contains(text, "keeps rows where") {
			t.Errorf("WHERE %s: the plan decodes d or does not filter in the scan:\n%s", where, text)
		}
	}
}

// TestDictionaryIntegerColumn: a kept dictionary of int64 values filters
// on its codes (the row filter's integer tests run on the dictionary)
// and answers as the decoded column.
func TestDictionaryIntegerColumn(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rng := rand.New(rand.NewPCG(15, 2))
	vals := make([]int64, 16)
	for i := range vals {
		vals[i] = rng.Int64() - 1<<62
	}
	slices.Sort(vals)
	dt := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.PrimitiveTypes.Int64}
	schema := arrow.NewSchema([]arrow.Field{{Name: "d", Type: dt, Nullable: true}, {Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil)
	plainSchema := arrow.NewSchema([]arrow.Field{{Name: "d", Type: arrow.PrimitiveTypes.Int64, Nullable: true}, {Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil)
	var kept, plain []arrow.RecordBatch
	for b := range 4 {
		perm := rng.Perm(len(vals)) // each batch its own dictionary order
		vb, ib, xb, pb := array.NewInt64Builder(mem), array.NewInt8Builder(mem), array.NewInt64Builder(mem), array.NewInt64Builder(mem)
		for i, k := range perm {
			if i == 5 {
				vb.AppendNull()
			}
			vb.Append(vals[k])
		}
		dict := vb.NewArray().(*array.Int64)
		for i := range 2000 {
			xb.Append(int64(b*2000 + i))
			if rng.IntN(30) == 0 {
				ib.AppendNull()
				pb.AppendNull()
				continue
			}
			k := rng.IntN(dict.Len())
			ib.Append(int8(k))
			if dict.IsNull(k) {
				pb.AppendNull()
			} else {
				pb.Append(dict.Value(k))
			}
		}
		idx, x, p := ib.NewArray(), xb.NewArray(), pb.NewArray()
		d := array.NewDictionaryArray(dt, idx, dict)
		kept = append(kept, array.NewRecordBatch(schema, []arrow.Array{d, x}, 2000))
		plain = append(plain, array.NewRecordBatch(plainSchema, []arrow.Array{p, x}, 2000))
		releaseAll([]arrow.Array{dict, idx, x, p, d})
		for _, bl := range []interface{ Release() }{vb, ib, xb, pb} {
			bl.Release()
		}
	}
	c, err := cache.New(cache.Options{Alloc: mem})
	if err != nil {
		t.Fatal(err)
	}
	putTable(t, c, "kept", kept)
	putTable(t, c, "plain", plain)
	for _, r := range append(kept, plain...) {
		r.Release()
	}
	if info, _ := c.Info("kept"); info.Columns[0].Dictionary != "kept" {
		t.Fatalf("d is %q: the test needs it kept", info.Columns[0].Dictionary)
	}
	e := New(c, Options{Alloc: mem})
	v := func(i int) string { return fmt.Sprint(vals[i]) }
	for _, where := range []string{
		"d = " + v(3), "d <> " + v(3), "d < " + v(8), "d BETWEEN " + v(1) + " AND " + v(2),
		"d IN (" + v(4) + ", " + v(5) + ", 7)", "d IS NULL", "NOT (d IN (" + v(6) + "))",
	} {
		q := "SELECT x, d FROM %s WHERE " + where
		k, err := run(t, e, fmt.Sprintf(q, "kept"))
		if err != nil {
			t.Fatalf("%s: %v", fmt.Sprintf(q, "kept"), err)
		}
		p, err := run(t, e, fmt.Sprintf(q, "plain"))
		if err != nil {
			t.Fatal(err)
		}
		if len(p) == 0 || !slices.Equal(k, p) {
			t.Errorf("WHERE %s: %d rows, decoded %d", where, len(k), len(p))
		}
		plan, _ := run(t, e, "EXPLAIN "+fmt.Sprintf(q, "kept"))
		if text := strings.Join(plan, "\n"); !strings.Contains(text, "keeps rows where") {
			t.Errorf("WHERE %s: not in the scan's row filter:\n%s", where, text)
		}
	}
}

// TestDictionaryInsert: INSERT into a column kept as dictionaries encodes
// the new values as dictionaries, which then filter and read as values.
func TestDictionaryInsert(t *testing.T) {
	e := dictEngine(t, 3000, 1000, 60)
	for _, q := range []string{
		"INSERT INTO kept VALUES ('hello', 100000), (NULL, 100001), ('hello', 100002)",
		"INSERT INTO kept SELECT d, x + 200000 FROM plain WHERE x < 5",
	} {
		if _, err := run(t, e, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	for q, want := range map[string]string{
		"SELECT count(*) FROM kept WHERE d = 'hello'":                                                                   "2",
		"SELECT count(*) FROM kept WHERE x = 100001 AND d IS NULL":                                                      "1",
		"SELECT count(*) FROM kept a JOIN plain b ON a.x = b.x + 200000 AND (a.d = b.d OR a.d IS NULL AND b.d IS NULL)": "5",
	} {
		got, err := run(t, e, q)
		if err != nil || len(got) != 1 || got[0] != want {
			t.Errorf("%s: %v %v, want %s", q, got, err, want)
		}
	}
}
