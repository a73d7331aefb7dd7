package cache

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

func TestDecimalKey(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	var ns []*big.Int
	for _, e := range []uint{0, 1, 63, 64, 100, 127, 200, 255} {
		p := pow2(e)
		ns = append(ns, p, neg(p), dec1(p), neg(dec1(p)))
	}
	for range 200 {
		ns = append(ns, new(big.Int).Rsh(new(big.Int).SetUint64(r.Uint64()), r.UintN(64)), big.NewInt(r.Int64()))
	}
	for _, a := range ns {
		if a.BitLen() > 255 { // decimal256.FromBigInt's range
			continue
		}
		va := bigDecimal(a)
		if got := decimalBig(va.S); got.Cmp(a) != 0 {
			t.Fatalf("round trip %v: got %v", a, got)
		}
		if a.IsInt64() && DecimalInt(a.Int64()) != va {
			t.Fatalf("DecimalInt(%v) differs from Decimal256", a)
		}
		for _, b := range ns[:40] {
			if b.BitLen() > 255 {
				continue
			}
			if got, want := Compare(va, bigDecimal(b)), a.Cmp(b); got != want {
				t.Fatalf("Compare(%v, %v) = %d, want %d", a, b, got, want)
			}
		}
	}
}

func TestDecimalKeyExtremes(t *testing.T) {
	lo := decimalValue([4]uint64{0, 0, 0, 1 << 63}) // -2^255
	hi := decimalValue([4]uint64{^uint64(0), ^uint64(0), ^uint64(0), 1<<63 - 1})
	if got := decimalBig(lo.S); got.Cmp(neg(pow2(255))) != 0 {
		t.Errorf("min decodes to %v", got)
	}
	if got := decimalBig(hi.S); got.Cmp(dec1(pow2(255))) != 0 {
		t.Errorf("max decodes to %v", got)
	}
	if Compare(lo, DecimalInt(math.MinInt64)) >= 0 || Compare(hi, DecimalInt(math.MaxInt64)) <= 0 {
		t.Error("extremes out of order")
	}
}

func TestFloatOrder(t *testing.T) {
	ordered := []float64{math.Inf(-1), -math.MaxFloat64, -1, -math.SmallestNonzeroFloat64, negZero, 0,
		math.SmallestNonzeroFloat64, 1, math.MaxFloat64, math.Inf(1), math.NaN()}
	for i, a := range ordered {
		for j, b := range ordered {
			if got, want := Compare(Float(a), Float(b)), cmpInt(i, j); got != want {
				t.Errorf("Compare(%v, %v) = %d, want %d", a, b, got, want)
			}
		}
		if k := keyFloat(floatKey(a)); floatKey(k) != floatKey(a) || math.Signbit(k) != math.Signbit(a) && a == a {
			t.Errorf("keyFloat(floatKey(%v)) = %v", a, k)
		}
	}
	if Compare(Float(negNaN), Float(math.NaN())) != 0 {
		t.Error("-NaN and NaN differ")
	}
	if compareSQL(Float(negZero), Float(0)) != 0 {
		t.Error("compareSQL(-0, +0) != 0")
	}
}

func cmpInt(i, j int) int {
	switch {
	case i < j:
		return -1
	case i > j:
		return 1
	}
	return 0
}

// TestCompareMatchesReference checks Compare against the independent
// reference orders on random values of every kind: Compare is the total order
// (refTotal) and compareSQL the predicate order (refCmp).
func TestCompareMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	for _, ct := range colTypes {
		if ct.kind == KindNull {
			continue
		}
		for range 2000 {
			a, b := ct.gen(r), ct.gen(r)
			if got, want := Compare(a, b), refTotal(a, b); got != want {
				t.Fatalf("%s: Compare(%v, %v) = %d, want %d", ct.name, a, b, got, want)
			}
			if got, want := compareSQL(a, b), refCmp(a, b); got != want {
				t.Fatalf("%s: compareSQL(%v, %v) = %d, want %d", ct.name, a, b, got, want)
			}
		}
	}
}

func TestValueString(t *testing.T) {
	for _, tt := range []struct {
		v    Value
		want string
	}{
		{Null, "NULL"}, {Bool(false), "false"}, {Int(-7), "-7"}, {Uint(math.MaxUint64), "18446744073709551615"},
		{Float(math.Inf(-1)), "-Inf"}, {Float(negZero), "-0"}, {Float(negNaN), "NaN"}, {Float(2.5), "2.5"},
		{String("a\"\xff"), `"a\"\xff"`}, {bigDecimal(neg(pow2(200))), "decimal(-" + pow2(200).String() + ")"},
	} {
		if got := tt.v.String(); got != tt.want {
			t.Errorf("String() = %s, want %s", got, tt.want)
		}
	}
}
