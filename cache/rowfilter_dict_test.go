package cache

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// dictTable builds batches of d dictionary<int16, utf8> (each batch its
// own dictionary: a random subset of words in random order, with a NULL
// entry; some indices NULL, some selecting the NULL entry) and x, the
// row number; with each row's d as a Value for the reference evaluator.
func dictTable(mem memory.Allocator, r *rand.Rand, words []string, batches, rows int) (*arrow.Schema, []arrow.RecordBatch, []Value) {
	dt := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int16, ValueType: arrow.BinaryTypes.String}
	schema := arrow.NewSchema([]arrow.Field{{Name: "d", Type: dt, Nullable: true}, {Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil)
	var recs []arrow.RecordBatch
	var ref []Value
	for range batches {
		var entries []Value
		for _, w := range r.Perm(len(words))[:len(words)*2/3] {
			entries = append(entries, String(words[w]))
		}
		at := r.IntN(len(entries) + 1)
		entries = slices.Insert(entries, at, Null)
		vb := array.NewStringBuilder(mem)
		for _, v := range entries {
			if v.IsNull() {
				vb.AppendNull()
			} else {
				vb.Append(v.S)
			}
		}
		ib, xb := array.NewInt16Builder(mem), array.NewInt64Builder(mem)
		for range rows {
			xb.Append(int64(len(ref)))
			if r.IntN(25) == 0 {
				ib.AppendNull()
				ref = append(ref, Null)
				continue
			}
			k := r.IntN(len(entries))
			ib.Append(int16(k))
			ref = append(ref, entries[k])
		}
		dict, idx, x := vb.NewArray(), ib.NewArray(), xb.NewArray()
		d := array.NewDictionaryArray(dt, idx, dict)
		recs = append(recs, array.NewRecordBatch(schema, []arrow.Array{d, x}, int64(rows)))
		for _, a := range []arrow.Array{dict, idx, x, d} {
			a.Release()
		}
		vb.Release()
		ib.Release()
		xb.Release()
	}
	return schema, recs, ref
}

// genDictPred draws a predicate on column 0 from words (and absent values
// and NULLs), of every kind a dictionary column's row filter takes, and
// NOTs of them.
func genDictPred(r *rand.Rand, words []string) Predicate {
	lit := func() Value {
		switch r.IntN(12) {
		case 0:
			return Null
		case 1:
			return String("absent")
		}
		return String(words[r.IntN(len(words))])
	}
	var p Predicate
	switch r.IntN(6) {
	case 0:
		p = Between{Col: 0, Lo: lit(), Hi: lit()}
	case 1:
		vals := make([]Value, 1+r.IntN(4))
		for i := range vals {
			vals[i] = lit()
		}
		p = In{Col: 0, Vals: vals}
	case 2:
		w := words[r.IntN(len(words))]
		p = Prefix{Col: 0, P: []byte(w[:r.IntN(4)])}
	case 3:
		p = pick[Predicate](r, IsNull{Col: 0}, IsNotNull{Col: 0})
	default:
		p = Cmp{Col: 0, Op: Op(r.IntN(6)), Val: lit()}
	}
	if r.IntN(3) == 0 {
		p = Not{X: p}
	}
	return p
}

// TestScanRowFilterDictionary scans a table whose column d is kept as
// dictionaries under random row filters on d: the rows are exactly those
// the reference evaluator (three-valued, on the decoded values) keeps,
// and d comes back as those rows' values.
func TestScanRowFilterDictionary(t *testing.T) {
	mem := newAlloc(t)
	r := rand.New(rand.NewPCG(15, 9))
	words := make([]string, 24)
	for i := range words {
		words[i] = fmt.Sprintf("%c%02d-%016x", 'a'+i%5, i, r.Uint64())
	}
	schema, recs, ref := dictTable(mem, r, words, 6, 1500)
	c := newCache(t, mem, 0)
	info := put(t, c, "t", schema, recs, TableOptions{})
	release(recs)
	if got := info.Columns[0].Dictionary; got != "kept" {
		t.Fatalf("d is %q: the test needs it kept as dictionaries", got)
	}
	cols := []testCol{{ct: colType{"d", schema.Field(0).Type, KindBytes, nil}, rows: ref}}
	var filtered, negated int
	for range 300 {
		rows := []Predicate{genDictPred(r, words)}
		if r.IntN(3) == 0 {
			rows = append(rows, genDictPred(r, words))
		}
		ok := true
		for _, p := range rows {
			if n, isNot := p.(Not); isNot && hasNullLiteral(n.X) && !isNullCmpNe(n.X) {
				ok = false // NOT of a comparison with NULL: refused
			}
		}
		if got := RowFilterable(schema, And(rows)[0]) && (len(rows) == 1 || RowFilterable(schema, rows[1])); got != ok {
			t.Fatalf("%v: RowFilterable %v, want %v", rows, got, ok)
		}
		if !ok {
			continue
		}
		filtered++
		if _, isNot := rows[0].(Not); isNot {
			negated++
		}
		s, err := c.Scan(context.Background(), "t", ScanOptions{Columns: []int{1, 0}, Rows: rows, Concurrency: 1 + r.IntN(2)})
		if err != nil {
			t.Fatalf("%v: %v", rows, err)
		}
		var want []int
		for i := range ref {
			if evalRow(And(rows), cols, i) == tTrue {
				want = append(want, i)
			}
		}
		got := 0
		for s.Next() {
			rec := s.RecordBatch()
			x, d := rec.Column(0).(*array.Int64), rec.Column(1).(*array.Dictionary)
			for i := range int(rec.NumRows()) {
				if got >= len(want) || int(x.Value(i)) != want[got] {
					t.Fatalf("%v: row %d is x=%d, want the rows %v…", rows, got, x.Value(i), want[got:min(got+3, len(want))])
				}
				v, null := ref[want[got]], d.IsNull(i) || d.Dictionary().IsNull(d.GetValueIndex(i))
				if null != v.IsNull() || !null && d.Dictionary().(*array.String).Value(d.GetValueIndex(i)) != v.S {
					t.Fatalf("%v: row x=%d: d is not %v", rows, want[got], v)
				}
				got++
			}
		}
		if err := s.Err(); err != nil {
			t.Fatal(err)
		}
		s.Release()
		if got != len(want) {
			t.Fatalf("%v: %d rows, want %d", rows, got, len(want))
		}
	}
	if filtered < 200 || negated < 30 {
		t.Fatalf("%d filters, %d negated: the generator exercises too little", filtered, negated)
	}
}

// isNullCmpNe: NOT (d <> NULL) is d = NULL, which the filter takes.
func isNullCmpNe(p Predicate) bool {
	c, ok := p.(Cmp)
	return ok && c.Op == Ne
}

// TestRowDictKeepSlicedAndOutOfRange: keep reads a sliced dictionary
// array at its offset, and an index outside the dictionary (bytes the
// put did not check) passes nothing instead of panicking.
func TestRowDictKeepSlicedAndOutOfRange(t *testing.T) {
	mem := newAlloc(t)
	dt := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.String}
	schema := arrow.NewSchema([]arrow.Field{{Name: "d", Type: dt, Nullable: true}}, nil)
	vb := array.NewStringBuilder(mem)
	vb.AppendValues([]string{"a", "b", ""}, []bool{true, true, false})
	dict := vb.NewArray()
	vb.Release()
	ib := array.NewInt8Builder(mem)
	//                  0  1  2  3  4   5  6  7
	ib.AppendValues([]int8{1, 0, 1, 2, 9, -1, 0, 1}, []bool{true, true, true, true, true, true, false, true})
	idx := ib.NewArray()
	ib.Release()
	whole := array.NewDictionaryArray(dt, idx, dict)
	idx.Release()
	dict.Release()
	defer whole.Release()
	col := array.NewSlice(whole, 1, 8) // rows 1…7: a, b, NULL entry, 9, -1, NULL index, b
	defer col.Release()
	for _, tc := range []struct {
		p    Predicate
		want []int32
	}{
		{Cmp{Col: 0, Op: Eq, Val: String("b")}, []int32{1, 6}},
		{Cmp{Col: 0, Op: Ne, Val: String("b")}, []int32{0}},
		{IsNull{Col: 0}, []int32{2, 5}},
		{IsNotNull{Col: 0}, []int32{0, 1, 6}},
		{Not{X: Prefix{Col: 0, P: []byte("a")}}, []int32{1, 6}},
	} {
		test, ok := dictTestOf(schema, tc.p)
		if !ok {
			t.Fatalf("%v: not compiled", tc.p)
		}
		got := test.keep(&filterCol{arr: col}, make([]int32, col.Len()), true, col.Len())
		if !slices.Equal(got, tc.want) {
			t.Errorf("%v: rows %v, want %v", tc.p, got, tc.want)
		}
		sel := test.keep(&filterCol{arr: col}, []int32{1, 3, 5, 6}, false, col.Len())
		want := slices.DeleteFunc(slices.Clone(tc.want), func(i int32) bool { return !slices.Contains([]int32{1, 3, 5, 6}, i) })
		if !slices.Equal(sel, want) {
			t.Errorf("%v on rows 1, 3, 5, 6: %v, want %v", tc.p, sel, want)
		}
	}
}
