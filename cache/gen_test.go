package cache

import (
	"cmp"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
	"github.com/apache/arrow-go/v18/arrow/float16"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// colType is one column type the tests generate, with a small value domain
// so that random literals collide with random data.
type colType struct {
	name string
	dt   arrow.DataType
	kind Kind // KindNull: no order (only IS [NOT] NULL is generated)
	gen  func(r *rand.Rand) Value
}

func pick[T any](r *rand.Rand, xs ...T) T { return xs[r.IntN(len(xs))] }

func genSigned(lo, hi int64) func(*rand.Rand) Value {
	return func(r *rand.Rand) Value {
		switch r.IntN(10) {
		case 0:
			return Int(lo)
		case 1:
			return Int(hi)
		}
		return Int(r.Int64N(11) - 5)
	}
}

func genSmall(r *rand.Rand) Value { return Int(r.Int64N(11)) }

func genUnsigned(hi uint64) func(*rand.Rand) Value {
	return func(r *rand.Rand) Value {
		if r.IntN(10) == 0 {
			return Uint(hi)
		}
		return Uint(r.Uint64N(11))
	}
}

var negNaN = math.Copysign(math.NaN(), -1)

var floatDomain = []float64{math.Inf(-1), -1.5, math.Copysign(0, -1), 0, 1, 2.5, math.Inf(1), math.NaN(), negNaN}

func genFloat(r *rand.Rand) Value { return Float(pick(r, floatDomain...)) }

func genDecimal(lo, hi *big.Int) func(*rand.Rand) Value {
	return func(r *rand.Rand) Value {
		switch r.IntN(10) {
		case 0:
			return bigDecimal(lo)
		case 1:
			return bigDecimal(hi)
		}
		return DecimalInt(r.Int64N(11) - 5)
	}
}

func bigDecimal(n *big.Int) Value { return Decimal256(decimal256.FromBigInt(n)) }

func pow2(n uint) *big.Int { return new(big.Int).Lsh(big.NewInt(1), n) }

func neg(n *big.Int) *big.Int { return new(big.Int).Neg(n) }

func dec1(n *big.Int) *big.Int { return new(big.Int).Sub(n, big.NewInt(1)) }

var stringDomain = []string{"", "a", "ab", "abc", "b", "ba", "\xff", "\xff\xff", "a\xff", "zz", "a long string past the view inline limit"}

func genString(r *rand.Rand) Value { return String(pick(r, stringDomain...)) }

func genFixed(r *rand.Rand) Value {
	return String(pick(r, "\x00\x00", "\x00\xff", "a\x00", "ab", "\xff\xff", "b\x01"))
}

var colTypes = []colType{
	{"int8", arrow.PrimitiveTypes.Int8, KindInt, genSigned(math.MinInt8, math.MaxInt8)},
	{"int16", arrow.PrimitiveTypes.Int16, KindInt, genSigned(math.MinInt16, math.MaxInt16)},
	{"int32", arrow.PrimitiveTypes.Int32, KindInt, genSigned(math.MinInt32, math.MaxInt32)},
	{"int64", arrow.PrimitiveTypes.Int64, KindInt, genSigned(math.MinInt64, math.MaxInt64)},
	{"uint8", arrow.PrimitiveTypes.Uint8, KindUint, genUnsigned(math.MaxUint8)},
	{"uint16", arrow.PrimitiveTypes.Uint16, KindUint, genUnsigned(math.MaxUint16)},
	{"uint32", arrow.PrimitiveTypes.Uint32, KindUint, genUnsigned(math.MaxUint32)},
	{"uint64", arrow.PrimitiveTypes.Uint64, KindUint, genUnsigned(math.MaxUint64)},
	{"float16", arrow.FixedWidthTypes.Float16, KindFloat, genFloat},
	{"float32", arrow.PrimitiveTypes.Float32, KindFloat, genFloat},
	{"float64", arrow.PrimitiveTypes.Float64, KindFloat, genFloat},
	{"decimal32", &arrow.Decimal32Type{Precision: 9, Scale: 2}, KindDecimal,
		genDecimal(big.NewInt(math.MinInt32), big.NewInt(math.MaxInt32))},
	{"decimal64", &arrow.Decimal64Type{Precision: 18, Scale: 2}, KindDecimal,
		genDecimal(big.NewInt(math.MinInt64), big.NewInt(math.MaxInt64))},
	{"decimal128", &arrow.Decimal128Type{Precision: 38, Scale: 2}, KindDecimal,
		genDecimal(neg(dec1(pow2(127))), dec1(pow2(127)))},
	{"decimal256", &arrow.Decimal256Type{Precision: 76, Scale: 2}, KindDecimal,
		genDecimal(neg(dec1(pow2(255))), dec1(pow2(255)))},
	{"string", arrow.BinaryTypes.String, KindBytes, genString},
	{"large_string", arrow.BinaryTypes.LargeString, KindBytes, genString},
	{"string_view", arrow.BinaryTypes.StringView, KindBytes, genString},
	{"binary", arrow.BinaryTypes.Binary, KindBytes, genString},
	{"large_binary", arrow.BinaryTypes.LargeBinary, KindBytes, genString},
	{"binary_view", arrow.BinaryTypes.BinaryView, KindBytes, genString},
	{"fixed_size_binary", &arrow.FixedSizeBinaryType{ByteWidth: 2}, KindBytes, genFixed},
	{"date32", arrow.FixedWidthTypes.Date32, KindInt, genSmall},
	{"date64", arrow.FixedWidthTypes.Date64, KindInt, genSmall},
	{"time32", arrow.FixedWidthTypes.Time32ms, KindInt, genSmall},
	{"time64", arrow.FixedWidthTypes.Time64ns, KindInt, genSmall},
	{"timestamp", arrow.FixedWidthTypes.Timestamp_us, KindInt, genSigned(math.MinInt64, math.MaxInt64)},
	{"duration", arrow.FixedWidthTypes.Duration_ns, KindInt, genSigned(math.MinInt64, math.MaxInt64)},
	{"bool", arrow.FixedWidthTypes.Boolean, KindBool, func(r *rand.Rand) Value { return Bool(r.IntN(2) == 0) }},
	{"dictionary", &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.String},
		KindBytes, genString},
	{"list", arrow.ListOf(arrow.PrimitiveTypes.Int32), KindNull, func(*rand.Rand) Value { return Int(1) }},
}

// appendValue appends v (Null for a null) to a builder of the type whose
// domain v came from.
func appendValue(b array.Builder, v Value) {
	if v.IsNull() {
		b.AppendNull()
		return
	}
	switch b := b.(type) {
	case *array.Int8Builder:
		b.Append(int8(v.I))
	case *array.Int16Builder:
		b.Append(int16(v.I))
	case *array.Int32Builder:
		b.Append(int32(v.I))
	case *array.Int64Builder:
		b.Append(v.I)
	case *array.Uint8Builder:
		b.Append(uint8(v.U))
	case *array.Uint16Builder:
		b.Append(uint16(v.U))
	case *array.Uint32Builder:
		b.Append(uint32(v.U))
	case *array.Uint64Builder:
		b.Append(v.U)
	case *array.Float16Builder:
		b.Append(float16.New(float32(v.F)))
	case *array.Float32Builder:
		b.Append(float32(v.F))
	case *array.Float64Builder:
		b.Append(v.F)
	case *array.Decimal32Builder:
		b.Append(decimal.Decimal32(decimalBig(v.S).Int64()))
	case *array.Decimal64Builder:
		b.Append(decimal.Decimal64(decimalBig(v.S).Int64()))
	case *array.Decimal128Builder:
		b.Append(decimal128.FromBigInt(decimalBig(v.S)))
	case *array.Decimal256Builder:
		b.Append(decimal256.FromBigInt(decimalBig(v.S)))
	case *array.StringBuilder:
		b.Append(v.S)
	case *array.LargeStringBuilder:
		b.Append(v.S)
	case *array.StringViewBuilder:
		b.Append(v.S)
	case *array.BinaryBuilder:
		b.Append([]byte(v.S))
	case *array.BinaryViewBuilder:
		b.Append([]byte(v.S))
	case *array.FixedSizeBinaryBuilder:
		b.Append([]byte(v.S))
	case *array.Date32Builder:
		b.Append(arrow.Date32(v.I))
	case *array.Date64Builder:
		b.Append(arrow.Date64(v.I))
	case *array.Time32Builder:
		b.Append(arrow.Time32(v.I))
	case *array.Time64Builder:
		b.Append(arrow.Time64(v.I))
	case *array.TimestampBuilder:
		b.Append(arrow.Timestamp(v.I))
	case *array.DurationBuilder:
		b.Append(arrow.Duration(v.I))
	case *array.BooleanBuilder:
		b.Append(v.U != 0)
	case *array.ListBuilder:
		b.Append(true)
		b.ValueBuilder().(*array.Int32Builder).Append(int32(v.I))
	default:
		panic("appendValue: no case for " + b.Type().String())
	}
}

// makeArray builds an array of dt holding vals (Null for nulls).
func makeArray(mem memory.Allocator, dt arrow.DataType, vals ...Value) arrow.Array {
	if dt.ID() == arrow.DICTIONARY {
		return makeDict(mem, dt, vals)
	}
	b := array.NewBuilder(mem, dt)
	defer b.Release()
	for _, v := range vals {
		appendValue(b, v)
	}
	return b.NewArray()
}

// makeDict builds a dictionary array for vals whose dictionary holds the
// distinct values in reverse order, unused "zzz" and a null entry, and whose
// null rows alternate between a null index and an index to the null entry.
func makeDict(mem memory.Allocator, dt arrow.DataType, vals []Value) arrow.Array {
	var dictVals []Value
	for _, v := range vals {
		if !v.IsNull() && !slices.Contains(dictVals, v) {
			dictVals = append(dictVals, v)
		}
	}
	slices.Reverse(dictVals)
	dictVals = append(dictVals, Null, String("zzzz"))
	nullEntry := len(dictVals) - 2
	dict := makeArray(mem, dt.(*arrow.DictionaryType).ValueType, dictVals...)
	defer dict.Release()
	ib := array.NewInt8Builder(mem)
	defer ib.Release()
	for i, v := range vals {
		switch {
		case !v.IsNull():
			ib.Append(int8(slices.Index(dictVals, v)))
		case i%2 == 0:
			ib.AppendNull()
		default:
			ib.Append(int8(nullEntry))
		}
	}
	idx := ib.NewArray()
	defer idx.Release()
	return array.NewDictionaryArray(dt, idx, dict)
}

// testCol is a generated column: the rows as Values and the Arrow array
// (possibly a slice) holding them.
type testCol struct {
	ct   colType
	rows []Value
	arr  arrow.Array
}

// genColumn makes n rows of ct: random nulls at one of a few rates,
// sometimes sorted, built inside a larger array and sliced out.
func genColumn(mem memory.Allocator, r *rand.Rand, ct colType, n int) testCol {
	nullRate := pick(r, 0, 0, 0.2, 0.6, 1)
	head, tail := pick(r, 0, 0, 1, 3, 9), r.IntN(3)
	all := make([]Value, head+n+tail)
	for i := range all {
		if r.Float64() >= nullRate {
			all[i] = ct.gen(r)
		}
	}
	rows := all[head : head+n]
	if ct.kind != KindNull && r.IntN(3) == 0 {
		slices.SortStableFunc(rows, func(a, b Value) int {
			if a.IsNull() || b.IsNull() {
				return cmp.Compare(b2i(!a.IsNull()), b2i(!b.IsNull()))
			}
			return refTotal(a, b)
		})
	}
	full := makeArray(mem, ct.dt, all...)
	defer full.Release()
	return testCol{ct: ct, rows: slices.Clone(rows), arr: array.NewSlice(full, int64(head), int64(head+n))}
}

// refCmp is the predicate order written out independently of Compare: IEEE
// comparison (so -0.0 = +0.0) except that NaN equals NaN and exceeds all.
func refCmp(a, b Value) int {
	if a.Kind != b.Kind {
		panic("refCmp: kinds differ")
	}
	switch a.Kind {
	case KindInt:
		return cmp.Compare(a.I, b.I)
	case KindUint, KindBool:
		return cmp.Compare(a.U, b.U)
	case KindFloat:
		an, bn := math.IsNaN(a.F), math.IsNaN(b.F)
		switch {
		case an && bn:
			return 0
		case an:
			return 1
		case bn:
			return -1
		case a.F < b.F:
			return -1
		case a.F > b.F:
			return 1
		}
		return 0
	case KindBytes:
		return strings.Compare(a.S, b.S)
	case KindDecimal:
		return decimalBig(a.S).Cmp(decimalBig(b.S))
	}
	panic("refCmp: kind " + a.Kind.String())
}

// refTotal is the statistics order: refCmp with -0.0 before +0.0.
func refTotal(a, b Value) int {
	if a.Kind == KindFloat && b.Kind == KindFloat && a.F == 0 && b.F == 0 {
		return cmp.Compare(b2i(!math.Signbit(a.F)), b2i(!math.Signbit(b.F)))
	}
	return refCmp(a, b)
}

// tri is a SQL truth value, ordered FALSE < UNKNOWN < TRUE.
type tri int8

const (
	tFalse tri = iota
	tUnknown
	tTrue
)

func triOf(b bool) tri {
	if b {
		return tTrue
	}
	return tFalse
}

// evalRow is the reference evaluator: predicate p on row r of cols.
func evalRow(p Predicate, cols []testCol, r int) tri {
	switch p := p.(type) {
	case Cmp:
		x := cols[p.Col].rows[r]
		if x.IsNull() || p.Val.IsNull() {
			return tUnknown
		}
		c := refCmp(x, p.Val)
		return triOf([...]bool{Eq: c == 0, Ne: c != 0, Lt: c < 0, Le: c <= 0, Gt: c > 0, Ge: c >= 0}[p.Op])
	case And:
		res := tTrue
		for _, q := range p {
			res = min(res, evalRow(q, cols, r))
		}
		return res
	case Or:
		res := tFalse
		for _, q := range p {
			res = max(res, evalRow(q, cols, r))
		}
		return res
	case Not:
		return 2 - evalRow(p.X, cols, r)
	case In:
		res := tFalse
		for _, v := range p.Vals {
			res = max(res, evalRow(Cmp{p.Col, Eq, v}, cols, r))
		}
		return res
	case Between:
		x := cols[p.Col].rows[r]
		if x.IsNull() {
			return tUnknown
		}
		return min(evalRow(Cmp{p.Col, Ge, p.Lo}, cols, r), evalRow(Cmp{p.Col, Le, p.Hi}, cols, r))
	case IsNull:
		return triOf(cols[p.Col].rows[r].IsNull())
	case IsNotNull:
		return triOf(!cols[p.Col].rows[r].IsNull())
	case Prefix:
		x := cols[p.Col].rows[r]
		if x.IsNull() {
			return tUnknown
		}
		return triOf(strings.HasPrefix(x.S, string(p.P)))
	}
	panic("evalRow: unknown predicate")
}

// genLiteral draws a literal for column c: usually from its domain,
// sometimes NULL.
func genLiteral(r *rand.Rand, ct colType) Value {
	if r.IntN(15) == 0 {
		return Null
	}
	return ct.gen(r)
}

// genPred draws a random predicate over cols.
func genPred(r *rand.Rand, cols []testCol, depth int) Predicate {
	if depth > 0 && r.IntN(3) == 0 {
		kids := func() []Predicate {
			ps := make([]Predicate, r.IntN(4))
			for i := range ps {
				ps[i] = genPred(r, cols, depth-1)
			}
			return ps
		}
		switch r.IntN(3) {
		case 0:
			return And(kids())
		case 1:
			return Or(kids())
		}
		return Not{genPred(r, cols, depth-1)}
	}
	c := r.IntN(len(cols))
	ct := cols[c].ct
	choice := r.IntN(8)
	if ct.kind == KindNull {
		choice = 4 + choice%2
	}
	switch choice {
	case 0, 1:
		return Cmp{Col: c, Op: Op(r.IntN(6)), Val: genLiteral(r, ct)}
	case 2:
		vals := make([]Value, r.IntN(4))
		for i := range vals {
			vals[i] = genLiteral(r, ct)
		}
		return In{Col: c, Vals: vals}
	case 3:
		return Between{Col: c, Lo: genLiteral(r, ct), Hi: genLiteral(r, ct)}
	case 4:
		return IsNull{c}
	case 5:
		return IsNotNull{c}
	}
	if ct.kind == KindBytes {
		s := genString(r).S
		return Prefix{Col: c, P: []byte(s[:r.IntN(len(s)+1)])}
	}
	return Cmp{Col: c, Op: Op(r.IntN(6)), Val: genLiteral(r, ct)}
}

// genTable draws a table of 1 to maxCols columns of types from pool, in
// 1 to maxBatches batches of rows() rows each: the schema, each batch's
// columns (their arrays retained) and the batches as records.
func genTable(mem memory.Allocator, r *rand.Rand, pool []colType, maxCols, maxBatches int, rows func() int) (*arrow.Schema, [][]testCol, []arrow.RecordBatch) {
	types := make([]colType, 1+r.IntN(maxCols))
	fields := make([]arrow.Field, len(types))
	for i := range types {
		types[i] = pool[r.IntN(len(pool))]
		fields[i] = arrow.Field{Name: types[i].name, Type: types[i].dt, Nullable: true}
	}
	schema := arrow.NewSchema(fields, nil)
	var batches [][]testCol
	var recs []arrow.RecordBatch
	for range 1 + r.IntN(maxBatches) {
		n := rows()
		cols := make([]testCol, len(types))
		arrs := make([]arrow.Array, len(types))
		for i, ct := range types {
			cols[i] = genColumn(mem, r, ct, n)
			arrs[i] = cols[i].arr
		}
		batches = append(batches, cols)
		recs = append(recs, array.NewRecordBatch(schema, arrs, int64(n)))
	}
	return schema, batches, recs
}

func newAlloc(t testing.TB) *memory.CheckedAllocator {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	return mem
}
