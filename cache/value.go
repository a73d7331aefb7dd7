package cache

import (
	"cmp"
	"fmt"
	"math"
	"math/big"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
)

// Kind tags the physical domain of a [Value]. Values of different kinds are
// never compared by the pruning code: the planner coerces literals to the
// column's kind (and unit, and decimal scale) before building a predicate.
type Kind uint8

const (
	// KindNull is the zero Value: SQL NULL as a literal. Every comparison
	// with it is unknown.
	KindNull Kind = iota
	// KindBool holds false < true in U (0 or 1).
	KindBool
	// KindInt holds signed integers, dates, times, timestamps and durations
	// in I, in the column's own unit.
	KindInt
	// KindUint holds unsigned integers in U.
	KindUint
	// KindFloat holds float16/32/64 in F (widened exactly to float64).
	KindFloat
	// KindBytes holds strings and binary values (variable, large, view and
	// fixed-size) in S, compared in byte order.
	KindBytes
	// KindDecimal holds decimal32/64/128/256 as their unscaled integer in the
	// column's scale, encoded in S as 32 big-endian bytes with the sign bit
	// flipped, so byte order is numeric order for every width.
	KindDecimal
)

var kindNames = [...]string{"null", "bool", "int", "uint", "float", "bytes", "decimal"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Value is a small comparable scalar: a statistic bound or a predicate
// literal. Only the field selected by Kind is meaningful; the constructors
// keep the others zero so that == on two Values of the same kind is equality
// (except for NaN floats, see [Compare]).
type Value struct {
	Kind Kind
	I    int64
	U    uint64
	F    float64
	S    string
}

// Null is the NULL literal.
var Null = Value{}

// Bool, Int, Uint, Float, Bytes and String make Values of their kind.
func Bool(b bool) Value {
	if b {
		return Value{Kind: KindBool, U: 1}
	}
	return Value{Kind: KindBool}
}
func Int(v int64) Value      { return Value{Kind: KindInt, I: v} }
func Uint(v uint64) Value    { return Value{Kind: KindUint, U: v} }
func Float(v float64) Value  { return Value{Kind: KindFloat, F: v} }
func Bytes(b []byte) Value   { return Value{Kind: KindBytes, S: string(b)} }
func String(s string) Value  { return Value{Kind: KindBytes, S: s} }
func (v Value) IsNull() bool { return v.Kind == KindNull }

// decimalWidth is the byte length of a KindDecimal key.
const decimalWidth = 32

// Decimal128 makes a decimal Value from an unscaled 128-bit integer.
func Decimal128(n decimal128.Num) Value {
	hi := uint64(n.HighBits())
	ext := uint64(int64(hi) >> 63) // sign extension to 256 bits
	return decimalValue([4]uint64{n.LowBits(), hi, ext, ext})
}

// Decimal256 makes a decimal Value from an unscaled 256-bit integer.
func Decimal256(n decimal256.Num) Value { return decimalValue(n.Array()) }

// DecimalInt makes a decimal Value from an unscaled integer that fits in 64
// bits (decimal32 and decimal64 columns).
func DecimalInt(v int64) Value {
	ext := uint64(v >> 63)
	return decimalValue([4]uint64{uint64(v), ext, ext, ext})
}

// decimalValue encodes little-endian limbs (limb 3 holds the sign) as a
// byte-order-comparable key.
func decimalValue(limbs [4]uint64) Value {
	var b [decimalWidth]byte
	for i := range 4 {
		l := limbs[3-i]
		for j := range 8 {
			b[i*8+j] = byte(l >> (56 - 8*j))
		}
	}
	b[0] ^= 0x80
	return Value{Kind: KindDecimal, S: string(b[:])}
}

// decimalBig decodes a KindDecimal key.
func decimalBig(s string) *big.Int {
	b := []byte(s)
	b[0] ^= 0x80
	n := new(big.Int).SetBytes(b)
	if b[0]&0x80 != 0 {
		n.Sub(n, new(big.Int).Lsh(big.NewInt(1), 8*decimalWidth))
	}
	return n
}

// floatKey maps a float to a uint64 whose unsigned order is quiver's total
// order: -Inf < … < -0.0 < +0.0 < … < +Inf < NaN, every NaN (any sign or
// payload) being one value.
func floatKey(f float64) uint64 {
	if f != f {
		return math.MaxUint64
	}
	b := math.Float64bits(f)
	if b>>63 != 0 {
		return ^b
	}
	return b | 1<<63
}

// Compare orders two Values: -1, 0 or +1. Within a kind it is that kind's
// total order (floats by [floatKey]: -0.0 < +0.0, NaN last and equal to
// itself; bytes and decimals by byte order). Across kinds it orders by Kind,
// which the pruning code never relies on.
func Compare(a, b Value) int {
	if a.Kind != b.Kind {
		return cmp.Compare(a.Kind, b.Kind)
	}
	switch a.Kind {
	case KindNull:
		return 0
	case KindBool, KindUint:
		return cmp.Compare(a.U, b.U)
	case KindInt:
		return cmp.Compare(a.I, b.I)
	case KindFloat:
		return cmp.Compare(floatKey(a.F), floatKey(b.F))
	case KindBytes, KindDecimal:
		return cmp.Compare(a.S, b.S)
	}
	panic(fmt.Sprintf("cache: Compare of unknown kind %d", a.Kind))
}

// compareSQL is the order predicates are evaluated in: [Compare], except that
// -0.0 and +0.0 are equal (as in IEEE, Postgres and DuckDB). It coarsens
// Compare, so statistics bounds computed in Compare's order stay valid bounds.
func compareSQL(a, b Value) int {
	if a.Kind == KindFloat && b.Kind == KindFloat && a.F == 0 && b.F == 0 {
		return 0
	}
	return Compare(a, b)
}

// String renders v as a SQL-ish literal for EXPLAIN output.
func (v Value) String() string {
	switch v.Kind {
	case KindNull:
		return "NULL"
	case KindBool:
		return strconv.FormatBool(v.U != 0)
	case KindInt:
		return strconv.FormatInt(v.I, 10)
	case KindUint:
		return strconv.FormatUint(v.U, 10)
	case KindFloat:
		if v.F != v.F {
			return "NaN"
		}
		return strconv.FormatFloat(v.F, 'g', -1, 64)
	case KindBytes:
		return strconv.Quote(v.S)
	case KindDecimal:
		if len(v.S) != decimalWidth {
			return "decimal(?)"
		}
		return "decimal(" + decimalBig(v.S).String() + ")"
	}
	return v.Kind.String() + "(?)"
}

// hasPrefixBytes reports whether s starts with p.
func hasPrefixBytes(s string, p []byte) bool {
	return len(s) >= len(p) && s[:len(p)] == string(p)
}
