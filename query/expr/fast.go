package expr

import (
	"math/bits"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Fast paths for the hottest operators (+, -, * on Int64 and decimals):
// branch-free loops over every row that only note whether any row may have
// failed. When one may have (a real overflow, garbage under a NULL, a
// decimal too wide for 64 bits) the careful per-row kernel runs again and
// decides. BenchmarkEval measures the difference.

// int64Pool and numPool recycle the scratch slices a constant operand is
// spread into, so fast loops only ever see two slices.
var int64Pool, numPool sync.Pool

func spread[T arrow.FixedWidthType](s side[T], n int, pool *sync.Pool) ([]T, func()) {
	if !s.konst {
		return s.vals[:n], func() {}
	}
	p, _ := pool.Get().(*[]T)
	if p == nil || cap(*p) < n {
		v := make([]T, n)
		p = &v
	}
	v := (*p)[:n]
	for i := range v {
		v[i] = s.c
	}
	return v, func() { pool.Put(p) }
}

// fastInt64 computes a op b into out and reports whether no row
// overflowed (rows under NULLs included).
func fastInt64(op ArithOp, av, bv, out []int64) bool {
	av, bv = av[:len(out)], bv[:len(out)]
	var bad int64
	switch op {
	case Add:
		for i := range out {
			a, b := av[i], bv[i]
			s := a + b
			out[i] = s
			bad |= (a ^ s) & (b ^ s)
		}
		return bad >= 0
	case Sub:
		for i := range out {
			a, b := av[i], bv[i]
			d := a - b
			out[i] = d
			bad |= (a ^ b) & (a ^ d)
		}
		return bad >= 0
	case Mul:
		var flag uint64
		for i := range out {
			a, b := av[i], bv[i]
			hi, lo := bits.Mul64(uint64(a), uint64(b))
			hi -= uint64(b&(a>>63)) + uint64(a&(b>>63))
			out[i] = int64(lo)
			flag |= hi ^ uint64(int64(lo)>>63)
		}
		return flag == 0
	}
	return false
}

// fastDecimal computes a op b into out for operands of scales s1, s2 and a
// result of precision p, scale s, when every row's operands fit 64 bits;
// it reports false when any row needs the careful kernel.
func fastDecimal(op ArithOp, av, bv, out []num, s1, s2, p, s int32) bool {
	av, bv = av[:len(out)], bv[:len(out)]
	var lim uint64 = 1<<63 - 1 // the largest magnitude that fits p, up to int64's
	if p < 19 {
		lim = pow10u64[p] - 1
	}
	var flag uint64
	if op == Mul {
		for i := range out {
			a, b := av[i], bv[i]
			x, y := int64(a.LowBits()), int64(b.LowBits())
			flag |= uint64(a.HighBits()^(x>>63)) | uint64(b.HighBits()^(y>>63))
			h, l := bits.Mul64(uint64(x), uint64(y))
			h -= uint64(y&(x>>63)) + uint64(x&(y>>63))
			n := decimal128.New(int64(h), l)
			out[i] = n
			if h != uint64(int64(l)>>63) {
				// a 128-bit product: fine when it fits p
				if p < 19 || !fits(n, p) {
					flag |= 1
				}
				continue
			}
			flag |= (lim - abs64(int64(l))) >> 63
		}
		return flag == 0
	}
	if s-s1 > 18 || s-s2 > 18 {
		return false
	}
	ma, mb := int64(pow10u64[s-s1]), int64(pow10u64[s-s2])
	if op == Sub {
		mb = -mb
	}
	for i := range out {
		a, b := av[i], bv[i]
		x, y := int64(a.LowBits()), int64(b.LowBits())
		flag |= uint64(a.HighBits()^(x>>63)) | uint64(b.HighBits()^(y>>63))
		xs, hx := mulSmall(x, ma)
		ys, hy := mulSmall(y, mb)
		r := xs + ys
		flag |= hx | hy | uint64(((xs^r)&(ys^r))>>63)
		flag |= (lim - abs64(r)) >> 63
		out[i] = decimal128.New(r>>63, uint64(r))
	}
	return flag == 0
}

// abs64 is |v| as a uint64 (MinInt64 gives 2^63).
func abs64(v int64) uint64 {
	m := v >> 63
	return uint64((v ^ m) - m)
}

// mulSmall is x*m and a non-zero flag when it overflows int64.
func mulSmall(x, m int64) (int64, uint64) {
	hi, lo := bits.Mul64(uint64(x), uint64(m))
	hi -= uint64(m&(x>>63)) + uint64(x&(m>>63))
	return int64(lo), hi ^ uint64(int64(lo)>>63)
}

// fastArith runs the fast path for x's operator when it has one; ok is
// false when the careful kernel must decide.
func fastArith(x *arithExpr, mem memory.Allocator, n int, l, r operand) (arrow.Array, bool) {
	if x.op == Div || x.op == Mod {
		return nil, false
	}
	validity, nulls := combineValidity(mem, n, l.arr, r.arr)
	var buf *memory.Buffer
	var ok bool
	switch x.typ.ID() {
	case arrow.INT64:
		av, relA := spread(sideOf(l, litInt), n, &int64Pool)
		bv, relB := spread(sideOf(r, litInt), n, &int64Pool)
		var out []int64
		buf, out = newDirtyValues[int64](mem, n) // fastInt64 writes every value
		ok = fastInt64(x.op, av, bv, out)
		relA()
		relB()
	case arrow.DECIMAL128:
		ld := x.l.Type().(*arrow.Decimal128Type)
		rd := x.r.Type().(*arrow.Decimal128Type)
		od := x.typ.(*arrow.Decimal128Type)
		av, relA := spread(sideOf(l, litNum), n, &numPool)
		bv, relB := spread(sideOf(r, litNum), n, &numPool)
		var out []num
		buf, out = newDirtyValues[num](mem, n) // fastDecimal writes every value
		ok = fastDecimal(x.op, av, bv, out, ld.Scale, rd.Scale, od.Precision, od.Scale)
		relA()
		relB()
	default:
		releaseBufs(validity)
		return nil, false
	}
	if !ok {
		releaseBufs(validity, buf)
		return nil, false
	}
	return makeArray(x.typ, n, validity, nulls, buf), true
}
