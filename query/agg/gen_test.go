package agg

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

var (
	dec12 = &arrow.Decimal128Type{Precision: 12, Scale: 2}
	dec38 = &arrow.Decimal128Type{Precision: 38, Scale: 6}

	engineTypes = []arrow.DataType{
		arrow.FixedWidthTypes.Boolean, arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Float64,
		dec12, dec38, arrow.BinaryTypes.String, arrow.FixedWidthTypes.Date32, tsType,
	}
	tsType   = &arrow.TimestampType{Unit: arrow.Microsecond}
	allFuncs = []Func{CountStar, Count, CountDistinct, Sum, Min, Max, Avg, VarSamp, VarPop, StddevSamp, StddevPop, ArgMin, ArgMax}
)

func checked(t testing.TB) *memory.CheckedAllocator {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	return mem
}

// gen makes random columns: values from a domain of about card distinct
// values (so keys repeat), NULLs with probability nullP, the awkward values
// of each type (NaN, ±0, ±Inf, extremes, empty and multibyte strings), and
// a random slice of a longer array so offsets are exercised.
type gen struct {
	rng   *rand.Rand
	mem   memory.Allocator
	card  int
	nullP float64
}

var floatSpecials = []float64{math.NaN(), math.Copysign(0, -1), 0, math.Inf(1), math.Inf(-1), -1.5, 2.25}
var stringPool = []string{"", "a", "A", "ab", "b", "héllo", "R", "N", "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz", "\x00", "\xff"}

func (g *gen) array(dt arrow.DataType, n int) arrow.Array {
	pad, tail := g.rng.IntN(3), g.rng.IntN(3)
	b := array.NewBuilder(g.mem, dt)
	defer b.Release()
	nullP := g.nullP
	switch g.rng.IntN(6) {
	case 0:
		nullP = 0
	case 1:
		nullP = 1
	}
	extremes := g.rng.IntN(4) == 0 // extreme ints and big decimals in a quarter of the columns
	for range pad + n + tail {
		if g.rng.Float64() < nullP {
			b.AppendNull()
			continue
		}
		k := g.rng.IntN(g.card)
		switch b := b.(type) {
		case *array.BooleanBuilder:
			b.Append(k%2 == 0)
		case *array.Int64Builder:
			v := int64(k - g.card/2)
			if extremes && g.rng.IntN(50) == 0 {
				v = []int64{math.MaxInt64, math.MinInt64, 1 << 40}[g.rng.IntN(3)] - int64(g.rng.IntN(2))
			}
			b.Append(v)
		case *array.Float64Builder:
			v := float64(k-g.card/2) / 4
			if g.rng.IntN(10) == 0 {
				v = floatSpecials[g.rng.IntN(len(floatSpecials))]
			}
			b.Append(v)
		case *array.Decimal128Builder:
			v := decimal128.FromI64(int64(k-g.card/2) * 1001)
			if extremes && dt.(*arrow.Decimal128Type).Precision == 38 && g.rng.IntN(4) == 0 {
				e := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(20+g.rng.IntN(14))), nil)
				v = decimal128.FromBigInt(e.Mul(e, big.NewInt(int64(k-g.card/2))))
			}
			b.Append(v)
		case *array.StringBuilder:
			b.Append(fmt.Sprintf("%s%d", stringPool[k%len(stringPool)], k/len(stringPool)))
		case *array.Date32Builder:
			b.Append(arrow.Date32(k*7 - 3000))
		case *array.TimestampBuilder:
			v := int64(k)*3_600_000_001 - 1_000_000_000_000
			if extremes && g.rng.IntN(50) == 0 {
				v = []int64{math.MaxInt64, math.MinInt64}[g.rng.IntN(2)]
			}
			b.Append(arrow.Timestamp(v))
		}
	}
	full := b.NewArray()
	defer full.Release()
	return array.NewSlice(full, int64(pad), int64(pad+n))
}

func releaseArrays(as []arrow.Array) {
	for _, a := range as {
		a.Release()
	}
}

func releaseBatches(bs []arrow.RecordBatch) {
	for _, b := range bs {
		b.Release()
	}
}
