package expr

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// The test schema: every engine type, some twice, with value ranges that
// make overflow, division by zero and bad casts happen now and then.
type testCol struct {
	name string
	typ  arrow.DataType
	gen  func(r *rand.Rand) any // a non-NULL Go value (see goValue)
}

var testCols = []testCol{
	{"i1", typInt64, genInt(1000)},
	{"i2", typInt64, genInt(100)},
	{"i3", typInt64, func(r *rand.Rand) any { return int64(r.IntN(7) - 3) }},
	{"f1", typFloat64, genFloat},
	{"f2", typFloat64, func(r *rand.Rand) any { return float64(r.IntN(9)-4) / 2 }},
	{"d1", decimalType(15, 2), genDec(15, 2)},
	{"d2", decimalType(12, 4), genDec(12, 4)},
	{"d3", decimalType(38, 10), genDec(28, 10)},
	{"s1", typString, genString},
	{"s2", typString, genString},
	{"dt1", typDate32, genDate},
	{"dt2", typDate32, genDate},
	{"b1", typBool, func(r *rand.Rand) any { return r.IntN(2) == 0 }},
	{"b2", typBool, func(r *rand.Rand) any { return r.IntN(2) == 0 }},
}

func colIndex(name string) int {
	for i, c := range testCols {
		if c.name == name {
			return i
		}
	}
	panic("no column " + name)
}

// col is the test column called name.
func col(name string) Expr {
	i := colIndex(name)
	return Column(i, name, testCols[i].typ)
}

var testSchema = func() *arrow.Schema {
	fs := make([]arrow.Field, len(testCols))
	for i, c := range testCols {
		fs[i] = arrow.Field{Name: c.name, Type: c.typ, Nullable: true}
	}
	return arrow.NewSchema(fs, nil)
}()

func genInt(span int64) func(r *rand.Rand) any {
	return func(r *rand.Rand) any {
		switch r.IntN(40) {
		case 0:
			return int64(math.MaxInt64)
		case 1:
			return int64(math.MinInt64)
		case 2:
			return int64(0)
		case 3:
			return int64(-1)
		case 4:
			return int64(math.MaxInt32) * int64(r.IntN(5)+1)
		}
		return r.Int64N(2*span+1) - span
	}
}

func genFloat(r *rand.Rand) any {
	switch r.IntN(40) {
	case 0:
		return math.NaN()
	case 1:
		return math.Inf(1)
	case 2:
		return 0.0
	case 3:
		return math.Copysign(0, -1)
	case 4:
		return 1e300
	case 5:
		return 2.5
	case 6:
		return -0.5
	}
	return math.Round((r.Float64()*2000-1000)*1000) / 1000
}

// genDec returns unscaled values of up to digits digits as *big.Rat.
func genDec(digits, scale int32) func(r *rand.Rand) any {
	return func(r *rand.Rand) any {
		var d int32
		switch r.IntN(10) {
		case 0:
			d = digits
		case 1:
			d = 0
		default:
			d = min(digits, int32(r.IntN(8)+1))
		}
		u := big.NewInt(0)
		for range d {
			u.Mul(u, big.NewInt(10))
			u.Add(u, big.NewInt(int64(r.IntN(10))))
		}
		if r.IntN(2) == 0 {
			u.Neg(u)
		}
		return new(big.Rat).SetFrac(u, pow10[scale].BigInt())
	}
}

var interestingStrings = []string{
	"", "a", "abc", "abd", "ab", "%", "_", "a%c", "a_c", `a\c`, "é", "éa", "aé",
	"12", " 42 ", "-7", "+3", "1.5", "-0.05", "1e3", "9223372036854775808", "1e400",
	"abc12", "2024-02-29", "2023-02-29", "1998-1-5", " 2000-12-31", "true", "T", "no", "maybe",
	"NaN", "inf", "0x10", "1_000", "99999999999999.99", "123456789012345678901234567890",
	"\xff", "a\xffc",
}

func genString(r *rand.Rand) any {
	if r.IntN(2) == 0 {
		return interestingStrings[r.IntN(len(interestingStrings))]
	}
	const alpha = "abcé%_\\"
	runes := []rune(alpha)
	var b strings.Builder
	for range r.IntN(6) {
		b.WriteRune(runes[r.IntN(len(runes))])
	}
	return b.String()
}

func genDate(r *rand.Rand) any {
	switch r.IntN(30) {
	case 0:
		return int32(math.MaxInt32 - r.IntN(40))
	case 1:
		return int32(math.MinInt32 + r.IntN(40))
	case 2:
		return mustDate("2024-01-31")
	case 3:
		return mustDate("2023-12-31")
	case 4:
		return mustDate("2024-02-29")
	}
	return int32(r.IntN(80000) - 20000)
}

func mustDate(s string) int32 {
	d, err := ParseDate(s)
	if err != nil {
		panic(err)
	}
	return d
}

// nullMode chooses how many NULLs a generated column has.
type nullMode int

const (
	someNulls nullMode = iota
	noNulls
	allNulls
)

// testBatch is a generated batch and its rows as Go values.
type testBatch struct {
	rec  arrow.RecordBatch
	rows [][]any
	desc string
}

// genBatch makes n rows (sliced out of a bigger batch when offset > 0),
// with values under NULL slots left as random garbage.
func genBatch(t testing.TB, mem memory.Allocator, r *rand.Rand, n, offset int) testBatch {
	total := n + offset + r.IntN(3)
	cols := make([]arrow.Array, len(testCols))
	vals := make([][]any, len(testCols))
	modes := make([]string, len(testCols))
	for c, tc := range testCols {
		mode := nullMode(r.IntN(6))
		if mode > allNulls {
			mode = someNulls
		}
		modes[c] = fmt.Sprint(mode)
		vals[c] = make([]any, total)
		valid := make([]bool, total)
		for i := range vals[c] {
			vals[c][i] = tc.gen(r)
			switch mode {
			case someNulls:
				valid[i] = r.IntN(4) != 0
			case noNulls:
				valid[i] = true
			}
		}
		cols[c] = buildArray(t, mem, tc.typ, vals[c], valid)
		for i := range vals[c] {
			if !valid[i] {
				vals[c][i] = nil
			}
		}
	}
	full := array.NewRecordBatch(testSchema, cols, int64(total))
	for _, a := range cols {
		a.Release()
	}
	rec := full.NewSlice(int64(offset), int64(offset+n))
	full.Release()
	rows := make([][]any, n)
	for i := range rows {
		rows[i] = make([]any, len(testCols))
		for c := range testCols {
			rows[i][c] = vals[c][offset+i]
		}
	}
	return testBatch{rec: rec, rows: rows, desc: fmt.Sprintf("n=%d offset=%d nulls=%v", n, offset, modes)}
}

// buildArray builds every value as valid, then installs a validity bitmap,
// so NULL slots keep their (garbage) values.
func buildArray(t testing.TB, mem memory.Allocator, typ arrow.DataType, vals []any, valid []bool) arrow.Array {
	b := array.NewBuilder(mem, typ)
	defer b.Release()
	for _, v := range vals {
		switch bb := b.(type) {
		case *array.Int64Builder:
			bb.Append(v.(int64))
		case *array.Float64Builder:
			bb.Append(v.(float64))
		case *array.Decimal128Builder:
			bb.Append(ratToNum(t, v.(*big.Rat), typ.(*arrow.Decimal128Type).Scale))
		case *array.StringBuilder:
			bb.Append(v.(string))
		case *array.Date32Builder:
			bb.Append(arrow.Date32(v.(int32)))
		case *array.BooleanBuilder:
			bb.Append(v.(bool))
		}
	}
	a := b.NewArray()
	defer a.Release()
	bits := memory.NewResizableBuffer(mem)
	bits.Resize(int(bitutil.BytesForBits(int64(len(vals)))))
	nulls := 0
	for i, ok := range valid {
		bitutil.SetBitTo(bits.Bytes(), i, ok)
		if !ok {
			nulls++
		}
	}
	d := a.Data()
	bufs := append([]*memory.Buffer{bits}, d.Buffers()[1:]...)
	nd := array.NewData(typ, d.Len(), bufs, nil, nulls, 0)
	bits.Release()
	defer nd.Release()
	return array.MakeFromData(nd)
}

func ratToNum(t testing.TB, r *big.Rat, scale int32) decimal128.Num {
	x := new(big.Rat).Mul(r, new(big.Rat).SetInt(pow10[scale].BigInt()))
	if !x.IsInt() {
		t.Fatalf("%s is not a decimal of scale %d", r.RatString(), scale)
	}
	return decimal128.FromBigInt(x.Num())
}

// goValue is row i of a as a Go value: nil, int64, float64, *big.Rat,
// string, int32 (days) or bool.
func goValue(a arrow.Array, i int) any {
	if a.DataType().ID() == arrow.NULL || a.IsNull(i) {
		return nil
	}
	switch x := a.(type) {
	case *array.Int64:
		return x.Value(i)
	case *array.Float64:
		return x.Value(i)
	case *array.Decimal128:
		s := x.DataType().(*arrow.Decimal128Type).Scale
		return new(big.Rat).SetFrac(x.Value(i).BigInt(), pow10[s].BigInt())
	case *array.String:
		return x.Value(i)
	case *array.Date32:
		return int32(x.Value(i))
	case *array.Boolean:
		return x.Value(i)
	}
	return fmt.Sprintf("unexpected %s", a.DataType())
}

// sameValue compares two Go values; floats match bit for bit or as NaNs.
func sameValue(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case float64:
		y, ok := b.(float64)
		return ok && (x == y && math.Signbit(x) == math.Signbit(y) || x != x && y != y)
	case *big.Rat:
		y, ok := b.(*big.Rat)
		return ok && x.Cmp(y) == 0
	}
	return a == b
}

func show(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case *big.Rat:
		return x.FloatString(12)
	case string:
		return fmt.Sprintf("%q", x)
	}
	return fmt.Sprint(v)
}
