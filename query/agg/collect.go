package agg

import (
	"fmt"
	"math"
	"math/big"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/sortkey"
)

// string_agg and the exact quantiles keep every value of a group (NULLs
// skipped) and compute the result at the end, DuckDB's semantics:
//
//   - string_agg(x, sep): the values joined by sep, in the order the
//     aggregator sees them, or by Spec.Order (ties in that order); NULL
//     for a group without values;
//   - quantile_disc(x, q): of the n values sorted (NaN above every
//     number), the one at index max(⌈n·q⌉ − 1, 0);
//   - quantile_cont(x, q): at the fractional index (n − 1)·q, lo + (hi −
//     lo)·f between its neighbours; over integers and floats a DOUBLE,
//     over decimals the decimal rounded toward −∞, over dates a TIMESTAMP,
//     over timestamps and times their type (lo·(1 − f) + hi·f in float64
//     microseconds, rounded to the nearest), as DuckDB computes them.
//
// Memory: each group's list's capacity and every string and order key's
// bytes are charged to the account in prepare, before update appends
// (the lists are grown there), so a group past the limit fails the batch
// with ErrMemoryLimit. The lists have no partial state (Serial).
type collectState struct {
	serialState
	acct    *account
	fn      Func
	t       arrow.DataType
	sep     string
	q       float64
	order   []OrderKey
	enc     *sortkey.Encoder // string_agg's ORDER BY, nil without
	keys    sortkey.Rows     // the batch's order keys
	st      [][]collItem
	counts  []uint32 // scratch: a batch's rows per group
	pending int64
}

type collItem struct {
	key string // normalized ORDER BY key; "" without ORDER BY
	v   slotVal
}

func newCollect(a *account, spec Spec, dt arrow.DataType) *collectState {
	return &collectState{acct: a, fn: spec.Func, t: dt, sep: spec.Sep, q: spec.Q, order: spec.Order}
}

// contType is quantile_cont's result type over arg.
func contType(arg arrow.DataType) (arrow.DataType, error) {
	switch arg.ID() {
	case arrow.INT64, arrow.FLOAT64:
		return arrow.PrimitiveTypes.Float64, nil
	case arrow.DECIMAL128, arrow.TIMESTAMP, arrow.TIME64:
		return arg, nil
	case arrow.DATE32:
		return &arrow.TimestampType{Unit: arrow.Microsecond}, nil
	}
	return nil, fmt.Errorf("%w: quantile_cont over %v", ErrUnsupported, arg)
}

func (s *collectState) resize(n int) (err error) {
	s.st, err = resizeStates(s.acct, s.st, n, nil)
	return err
}

var collItemSize = sizeOf[collItem]()

func (s *collectState) prepare(gids []uint32, in *input) error {
	if len(in.order) > 0 {
		if s.enc == nil {
			fields := make([]sortkey.SortField, len(in.order))
			for i, o := range in.order {
				fields[i] = sortkey.SortField{Type: o.DataType(), Desc: s.order[i].Desc, NullsFirst: s.order[i].NullsFirst}
			}
			enc, err := sortkey.NewEncoder(fields)
			if err != nil {
				return fmt.Errorf("%w: string_agg ORDER BY: %v", ErrUnsupported, err)
			}
			s.enc = enc
		}
		s.keys.Reset()
		if err := s.enc.Encode(&s.keys, in.order); err != nil {
			return err
		}
	}
	var err error
	if s.counts, err = scratch(s.acct, s.counts, len(s.st)); err != nil {
		return err
	}
	clear(s.counts)
	bytes := int64(0)
	var str *array.String
	if s.t.ID() == arrow.STRING {
		str = in.arr.(*array.String)
	}
	for _, r := range in.rows {
		s.counts[gids[r]]++
		if str != nil {
			bytes += int64(len(str.Value(int(r))))
		}
		if s.enc != nil {
			bytes += int64(len(s.keys.Row(int(r))))
		}
	}
	if err := s.acct.charge(bytes); err != nil {
		return err
	}
	s.pending = bytes
	for _, r := range in.rows {
		g := gids[r]
		c := int(s.counts[g])
		if c == 0 {
			continue
		}
		s.counts[g] = 0
		l := s.st[g]
		if len(l)+c <= cap(l) {
			continue
		}
		newCap, err := s.acct.chargeGrowth(cap(l), max(len(l)+c, 2*cap(l)), len(l)+c, collItemSize)
		if err != nil {
			return err // the lists grown so far stay grown and charged
		}
		grown := make([]collItem, len(l), newCap) // exactly what was charged
		copy(grown, l)
		s.st[g] = grown
	}
	return nil
}

func (s *collectState) update(gids []uint32, in *input) {
	at := readerOf(in.arr)
	for _, r := range in.rows {
		it := collItem{v: at(int(r))}
		it.v.s = strings.Clone(it.v.s)
		if s.enc != nil {
			it.key = string(s.keys.Row(int(r)))
		}
		s.st[gids[r]] = append(s.st[gids[r]], it)
	}
	s.pending = 0
}

func (s *collectState) truncate(n int) {
	for _, l := range s.st[min(n, len(s.st)):] {
		s.acct.credit(listBytes(l))
	}
	s.st = s.st[:min(n, len(s.st))]
	s.acct.credit(s.pending)
	s.pending = 0
}

// listBytes is what a group's list is charged.
func listBytes(l []collItem) int64 {
	n := int64(cap(l)) * collItemSize
	for _, it := range l {
		n += int64(len(it.key) + len(it.v.s))
	}
	return n
}

func (s *collectState) release() {
	for _, l := range s.st {
		s.acct.credit(listBytes(l))
	}
	s.st = drop(s.acct, s.st)
	s.counts = drop(s.acct, s.counts)
}

func (s *collectState) result(mem memory.Allocator, _ Func, _ string, from, to int) (arrow.Array, error) {
	if s.fn == StringAgg {
		return s.joined(mem, from, to), nil
	}
	cmp := compareSlots(s.t)
	for _, l := range s.st[from:to] {
		slices.SortFunc(l, func(a, b collItem) int { return cmp(a.v, b.v) })
	}
	if s.fn == QuantileDisc {
		slots := make([]argSlot, to-from)
		for i, l := range s.st[from:to] {
			if len(l) > 0 {
				slots[i] = argSlot{seen: true, arg: l[discIndex(len(l), s.q)].v}
			}
		}
		return exportSlots(mem, s.t, slots, func(a argSlot) slotVal { return a.arg }), nil
	}
	return s.interpolated(mem, from, to)
}

// discIndex is quantile_disc's index among n sorted values.
func discIndex(n int, q float64) int {
	return min(max(int(math.Ceil(float64(n)*q))-1, 0), n-1)
}

// joined is string_agg's result.
func (s *collectState) joined(mem memory.Allocator, from, to int) arrow.Array {
	b := array.NewStringBuilder(mem)
	defer b.Release()
	var buf []byte
	for _, l := range s.st[from:to] {
		if len(l) == 0 {
			b.AppendNull()
			continue
		}
		if s.enc != nil {
			slices.SortStableFunc(l, func(a, b collItem) int { return strings.Compare(a.key, b.key) })
		}
		buf = buf[:0]
		for i, it := range l {
			if i > 0 {
				buf = append(buf, s.sep...)
			}
			buf = append(buf, it.v.s...)
		}
		b.BinaryBuilder.Append(buf)
	}
	return b.NewArray()
}

// interpolated is quantile_cont's result over sorted lists.
func (s *collectState) interpolated(mem memory.Allocator, from, to int) (arrow.Array, error) {
	rt, err := contType(s.t)
	if err != nil {
		return nil, err
	}
	slots := make([]argSlot, to-from)
	for i, l := range s.st[from:to] {
		if len(l) == 0 {
			continue
		}
		rn := float64(len(l)-1) * s.q
		lo, hi := l[int(math.Floor(rn))].v, l[int(math.Ceil(rn))].v
		f := rn - math.Floor(rn)
		var v slotVal
		switch s.t.ID() {
		case arrow.FLOAT64:
			a, b := math.Float64frombits(uint64(lo.i)), math.Float64frombits(uint64(hi.i))
			v.i = int64(math.Float64bits(lerp(a, b, f)))
		case arrow.INT64:
			v.i = int64(math.Float64bits(lerp(float64(lo.i), float64(hi.i), f)))
		case arrow.DECIMAL128:
			v.d = floorLerp(lo.d, hi.d, f)
		case arrow.DATE32:
			const day = 86400_000_000
			v.i = roundLerp(lo.i*day, hi.i*day, f)
		default: // timestamps and times: microseconds
			v.i = roundLerp(lo.i, hi.i, f)
		}
		slots[i] = argSlot{seen: true, arg: v}
	}
	return exportSlots(mem, rt, slots, func(a argSlot) slotVal { return a.arg }), nil
}

func lerp(lo, hi, f float64) float64 {
	if f == 0 {
		return lo
	}
	return lo + (hi-lo)*f
}

// roundLerp interpolates microseconds as DuckDB does, in float64 and
// rounded to the nearest (half away from zero).
func roundLerp(lo, hi int64, f float64) int64 {
	if f == 0 {
		return lo
	}
	return int64(math.Round(float64(lo)*(1-f) + float64(hi)*f))
}

// floorLerp is ⌊lo + (hi − lo)·f⌋, exactly (f is a binary fraction).
func floorLerp(lo, hi decimal128.Num, f float64) decimal128.Num {
	if f == 0 {
		return lo
	}
	d := new(big.Rat).SetInt(new(big.Int).Sub(hi.BigInt(), lo.BigInt()))
	d.Mul(d, new(big.Rat).SetFloat64(f))
	d.Add(d, new(big.Rat).SetInt(lo.BigInt()))
	q := new(big.Int).Div(d.Num(), d.Denom()) // Euclidean: rounds toward −∞ for a positive divisor
	return decimal128.FromBigInt(q)
}
