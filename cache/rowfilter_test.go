package cache

import (
	"context"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// rowColTypes are colTypes plus columns the cache narrows (decimal128
// values that fit in 64 bits) and ranges around the limits of int64.
var rowColTypes = append(slices.Clone(colTypes),
	colType{"decimal128 narrow", &arrow.Decimal128Type{Precision: 38, Scale: 2}, KindDecimal,
		genDecimal(big.NewInt(-1_000_000), big.NewInt(1_000_000))},
	colType{"decimal128 edge", &arrow.Decimal128Type{Precision: 38, Scale: 2}, KindDecimal,
		genDecimal(new(big.Int).Sub(big.NewInt(math.MinInt64), big.NewInt(5)), new(big.Int).Add(big.NewInt(math.MaxInt64), big.NewInt(5)))},
	colType{"int64 edge", arrow.PrimitiveTypes.Int64, KindInt, func(r *rand.Rand) Value {
		return Int(pick(r, int64(math.MinInt64), math.MinInt64+1, -1, 0, 1, math.MaxInt64-1, math.MaxInt64))
	}},
)

// TestScanRowFilter stores random tables and scans them under random row
// filters: the scan returns exactly the rows the reference evaluator
// keeps, in order, with every selected column intact, on every codec,
// serial and parallel; and its metrics add up.
func TestScanRowFilter(t *testing.T) {
	mem := newAlloc(t)
	r := rand.New(rand.NewPCG(17, 4))
	var filters, kept, dropped int
	for round := range 60 {
		schema, batches, recs := genTable(mem, r, rowColTypes, 4, 5, func() int { return pick(r, 0, 1, 7, 100, 700) })
		fields := schema.Fields()
		c := newCache(t, mem, 0)
		setting := settings[r.IntN(len(settings))]
		put(t, c, "t", schema, recs, setting.opts)
		release(recs)
		for range 20 {
			rows := genRowFilter(r, schema, batches[0])
			if rows == nil {
				continue
			}
			filters++
			cols := r.Perm(len(fields))[:r.IntN(len(fields)+1)]
			s, err := c.Scan(context.Background(), "t", ScanOptions{Columns: cols, Rows: rows, Concurrency: 1 + r.IntN(3)})
			if err != nil {
				t.Fatalf("round %d (%s): %v: %v", round, setting.name, rows, err)
			}
			var want [][2]int // (batch, row) pairs the reference keeps
			for b, bc := range batches {
				for row := range bc[0].rows {
					if evalRow(And(rows), bc, row) == tTrue {
						want = append(want, [2]int{b, row})
					}
				}
			}
			got := 0
			for s.Next() {
				rec := s.RecordBatch()
				if rec.NumRows() == 0 {
					t.Errorf("round %d: an empty batch", round)
				}
				for i := range int(rec.NumRows()) {
					if got >= len(want) {
						t.Fatalf("round %d (%s): %v: more rows than the %d expected", round, setting.name, rows, len(want))
					}
					w := want[got]
					for j, col := range cols {
						src := batches[w[0]][col].arr
						if !sameRow(rec.Column(j), i, src, w[1]) {
							t.Fatalf("round %d (%s): %v: row %d column %s is not batch %d row %d", round, setting.name, rows, got, fields[col].Name, w[0], w[1])
						}
					}
					got++
				}
			}
			if err := s.Err(); err != nil {
				t.Fatal(err)
			}
			if got != len(want) {
				t.Fatalf("round %d (%s): %v: %d rows, want %d", round, setting.name, rows, got, len(want))
			}
			m := s.Metrics()
			if m.Rows != int64(got) {
				t.Errorf("round %d: metrics say %d rows, %d returned", round, m.Rows, got)
			}
			if m.Rows+m.FilteredRows+m.SkippedRows != totalRows(batches) {
				t.Errorf("round %d: %d returned + %d filtered + %d skipped rows, the table has %d", round, m.Rows, m.FilteredRows, m.SkippedRows, totalRows(batches))
			}
			kept += got
			dropped += int(m.FilteredRows)
			s.Release()
		}
		for _, b := range batches {
			for _, col := range b {
				col.arr.Release()
			}
		}
	}
	if filters < 300 || kept == 0 || dropped == 0 {
		t.Fatalf("%d filters kept %d rows and dropped %d: the generator exercises too little", filters, kept, dropped)
	}
}

// sameRow compares row i of a with row j of b; NaNs (which Equal finds
// unequal) are compared as the statistics order them, where every NaN is
// one value and -0.0 is below +0.0.
func sameRow(a arrow.Array, i int, b arrow.Array, j int) bool {
	// The cache may store a dictionary column decoded; a row is NULL
	// when its index is or when its index names a NULL entry.
	if d, ok := a.(*array.Dictionary); ok && d.IsValid(i) {
		a, i = d.Dictionary(), d.GetValueIndex(i)
	}
	if d, ok := b.(*array.Dictionary); ok && d.IsValid(j) {
		b, j = d.Dictionary(), d.GetValueIndex(j)
	}
	if a.IsNull(i) || b.IsNull(j) {
		return a.IsNull(i) && b.IsNull(j)
	}
	x, y := array.NewSlice(a, int64(i), int64(i+1)), array.NewSlice(b, int64(j), int64(j+1))
	defer x.Release()
	defer y.Release()
	if array.Equal(x, y) {
		return true
	}
	sx, sy := ComputeStats(x), ComputeStats(y)
	return sx.HasBounds && sy.HasBounds && sx.Nulls == sy.Nulls && Compare(sx.Min, sy.Min) == 0
}

func totalRows(batches [][]testCol) int64 {
	var n int64
	for _, b := range batches {
		n += int64(len(b[0].rows))
	}
	return n
}

// genRowFilter draws one to three conjuncts a scan can evaluate on rows,
// or nil when the table has no such column. It also checks RowFilterable
// against what it should say.
func genRowFilter(r *rand.Rand, schema *arrow.Schema, cols []testCol) []Predicate {
	var ok []int
	for i, c := range cols {
		if rowColumnRef(c.ct.dt) {
			ok = append(ok, i)
		}
	}
	if len(ok) == 0 {
		return nil
	}
	var out []Predicate
	for range 1 + r.IntN(3) {
		c := ok[r.IntN(len(ok))]
		ct := cols[c].ct
		var p Predicate
		switch r.IntN(6) {
		case 0:
			p = Between{Col: c, Lo: genLiteral(r, ct), Hi: genLiteral(r, ct)}
		case 1:
			vals := make([]Value, pick(r, 0, 1, 2, 3, 12))
			for i := range vals {
				vals[i] = genLiteral(r, ct)
			}
			p = In{Col: c, Vals: vals}
		case 2:
			if ct.kind == KindBytes {
				s := genString(r).S
				p = Prefix{Col: c, P: []byte(s[:r.IntN(len(s)+1)])}
				break
			}
			fallthrough
		default:
			p = Cmp{Col: c, Op: Op(r.IntN(6)), Val: genLiteral(r, ct)}
		}
		if RowFilterable(schema, p) != rowFilterableRef(p) {
			panic("RowFilterable(" + p.String() + ") is wrong")
		}
		if RowFilterable(schema, p) {
			out = append(out, p)
		}
	}
	return out
}

// rowColumnRef: the types the row filter takes.
func rowColumnRef(dt arrow.DataType) bool {
	switch dt.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.DATE32, arrow.DATE64, arrow.TIME32, arrow.TIME64,
		arrow.TIMESTAMP, arrow.DURATION, arrow.DECIMAL32, arrow.DECIMAL64, arrow.DECIMAL128,
		arrow.STRING, arrow.BINARY, arrow.LARGE_STRING, arrow.LARGE_BINARY:
		return true
	}
	return false
}

// rowFilterableRef: anything but <> whose literals are NULL or fit in 64
// bits (generated literals are of the column's kind).
func rowFilterableRef(p Predicate) bool {
	fits := func(v Value) bool {
		if v.Kind != KindDecimal {
			return true
		}
		return decimalBig(v.S).IsInt64()
	}
	switch p := p.(type) {
	case Cmp:
		return p.Op != Ne && fits(p.Val)
	case Between:
		return fits(p.Lo) && fits(p.Hi)
	case In:
		for _, v := range p.Vals {
			if !fits(v) {
				return false
			}
		}
		return true
	case Prefix:
		return true
	}
	return false
}

// TestScanRowFilterRefusals: predicates the row filter cannot evaluate,
// and columns it cannot gather, are refused before anything is decoded.
func TestScanRowFilterRefusals(t *testing.T) {
	mem := newAlloc(t)
	c := newCache(t, mem, 0)
	fields := []arrow.Field{
		{Name: "i", Type: arrow.PrimitiveTypes.Int32},
		{Name: "s", Type: arrow.BinaryTypes.String},
		{Name: "f", Type: arrow.PrimitiveTypes.Float64},
		// a union inside a struct: take.Supported refuses it (a union at
		// the top is taken member by member)
		{Name: "u", Type: arrow.StructOf(arrow.Field{Name: "v", Type: arrow.SparseUnionOf([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int8}}, []arrow.UnionTypeCode{0})})},
	}
	schema := arrow.NewSchema(fields, nil)
	b := array.NewRecordBuilder(mem, schema)
	b.Field(0).(*array.Int32Builder).Append(1)
	b.Field(1).(*array.StringBuilder).Append("a")
	b.Field(2).(*array.Float64Builder).Append(1)
	sb := b.Field(3).(*array.StructBuilder)
	sb.Append(true)
	ub := sb.FieldBuilder(0).(*array.SparseUnionBuilder)
	ub.Append(0)
	ub.Child(0).(*array.Int8Builder).Append(3)
	rec := b.NewRecordBatch()
	b.Release()
	put(t, c, "t", schema, []arrow.RecordBatch{rec}, TableOptions{})
	rec.Release()
	for _, tc := range []struct {
		cols []int
		rows []Predicate
		want string
	}{
		{[]int{0}, []Predicate{Cmp{Col: 0, Op: Ne, Val: Int(1)}}, "not a comparison"},
		{[]int{0}, []Predicate{Cmp{Col: 1, Op: Ne, Val: String("a")}}, "not a comparison"},
		{[]int{0}, []Predicate{Cmp{Col: 1, Op: Eq, Val: Int(1)}}, "not a comparison"},
		{[]int{0}, []Predicate{Prefix{Col: 0, P: []byte("1")}}, "not a comparison"},
		{[]int{0}, []Predicate{IsNull{Col: 0}}, "not a comparison"},
		{[]int{0}, []Predicate{Cmp{Col: 2, Op: Lt, Val: Float(1)}}, "not a comparison"},
		{[]int{0}, []Predicate{Cmp{Col: 0, Op: Lt, Val: Float(1)}}, "not a comparison"},
		{[]int{0}, []Predicate{Cmp{Col: 9, Op: Lt, Val: Int(1)}}, "not a comparison"},
		{[]int{0}, []Predicate{In{Col: 0, Vals: []Value{Int(1), String("1")}}}, "not a comparison"},
		{[]int{3}, []Predicate{Cmp{Col: 0, Op: Lt, Val: Int(1)}}, "cannot be row-filtered"},
	} {
		s, err := c.Scan(context.Background(), "t", ScanOptions{Columns: tc.cols, Rows: tc.rows})
		if err == nil {
			s.Release()
			t.Errorf("%v: no error", tc.rows)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q", tc.rows, err, tc.want)
		}
	}
	// A row filter with no column selected counts the rows that pass.
	for _, tc := range []struct {
		p    Predicate
		want int64
	}{{Cmp{Col: 0, Op: Eq, Val: Int(1)}, 1}, {Cmp{Col: 0, Op: Gt, Val: Int(1)}, 0}, {Cmp{Col: 0, Op: Eq, Val: Null}, 0}} {
		recs, m := scanAll(t, c, "t", ScanOptions{Columns: []int{}, Rows: []Predicate{tc.p}})
		var n int64
		for _, r := range recs {
			n += r.NumRows()
		}
		release(recs)
		if n != tc.want || m.Rows != tc.want {
			t.Errorf("count where %v: %d rows (metrics %d), want %d", tc.p, n, m.Rows, tc.want)
		}
	}
}
