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
// with ErrMemoryLimit. A list holds its type's values only: 8 bytes a
// value of an integer, date, time, timestamp or float, 16 of a decimal,
// a string's header and bytes, string_agg's value and key. The lists
// have no partial state (Serial).
type collectState[E any] struct {
	serialState
	acct    *account
	fn      Func
	t       arrow.DataType
	sep     string
	q       float64
	order   []OrderKey
	enc     *sortkey.Encoder // string_agg's ORDER BY, nil without
	keys    sortkey.Rows     // the batch's order keys
	st      [][]E
	counts  []uint32 // scratch: a batch's rows per group
	pending int64
	el      elem[E]
}

// elem is what a collectState needs of its element type.
type elem[E any] struct {
	read  func(a arrow.Array) func(r int) E // row r, strings not copied
	bytes func(e E) int64                   // string bytes e holds
	clone func(e E, key []byte) E           // e holding its own strings (and string_agg's key)
	cmp   func(a, b E) int
	val   func(e E) slotVal
}

// strItem is one value of string_agg and its ORDER BY key.
type strItem struct{ key, s string }

func newCollect(a *account, spec Spec, dt arrow.DataType) state {
	if spec.Func == StringAgg {
		return newCollectOf(a, spec, dt, elem[strItem]{
			read: func(a arrow.Array) func(int) strItem {
				s := a.(*array.String)
				return func(r int) strItem { return strItem{s: s.Value(r)} }
			},
			bytes: func(e strItem) int64 { return int64(len(e.key) + len(e.s)) },
			clone: func(e strItem, key []byte) strItem { return strItem{key: string(key), s: strings.Clone(e.s)} },
		})
	}
	switch dt.ID() {
	case arrow.FLOAT64:
		return newCollectOf(a, spec, dt, elem[float64]{
			read: func(a arrow.Array) func(int) float64 {
				v := a.(*array.Float64).Float64Values()
				return func(r int) float64 { return v[r] }
			},
			cmp: cmpFloatSQL,
			val: func(f float64) slotVal { return slotVal{i: int64(math.Float64bits(f))} },
		})
	case arrow.DECIMAL128:
		return newCollectOf(a, spec, dt, elem[decimal128.Num]{
			read: func(a arrow.Array) func(int) decimal128.Num {
				v := a.(*array.Decimal128).Values()
				return func(r int) decimal128.Num { return v[r] }
			},
			cmp: func(a, b decimal128.Num) int { return a.Cmp(b) },
			val: func(d decimal128.Num) slotVal { return slotVal{d: d} },
		})
	case arrow.STRING:
		return newCollectOf(a, spec, dt, elem[string]{
			read: func(a arrow.Array) func(int) string {
				s := a.(*array.String)
				return s.Value
			},
			bytes: func(e string) int64 { return int64(len(e)) },
			clone: func(e string, _ []byte) string { return strings.Clone(e) },
			cmp:   strings.Compare,
			val:   func(s string) slotVal { return slotVal{s: s} },
		})
	}
	// integers, dates, times, timestamps, booleans (0, 1)
	return newCollectOf(a, spec, dt, elem[int64]{
		read: func(a arrow.Array) func(int) int64 {
			at := readerOf(a)
			return func(r int) int64 { return at(r).i }
		},
		cmp: func(a, b int64) int {
			switch {
			case a < b:
				return -1
			case a > b:
				return 1
			}
			return 0
		},
		val: func(i int64) slotVal { return slotVal{i: i} },
	})
}

func newCollectOf[E any](a *account, spec Spec, dt arrow.DataType, el elem[E]) *collectState[E] {
	return &collectState[E]{acct: a, fn: spec.Func, t: dt, sep: spec.Sep, q: spec.Q, order: spec.Order, el: el}
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

func (s *collectState[E]) resize(n int) (err error) {
	s.st, err = resizeStates(s.acct, s.st, n, nil)
	return err
}

func (s *collectState[E]) prepare(gids []uint32, in *input) error {
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
	at := s.el.read(in.arr)
	for _, r := range in.rows {
		s.counts[gids[r]]++
		if s.el.bytes != nil {
			bytes += s.el.bytes(at(int(r)))
		}
		if s.enc != nil {
			bytes += int64(len(s.keys.Row(int(r))))
		}
	}
	if err := s.acct.charge(bytes); err != nil {
		return err
	}
	s.pending = bytes
	size := sizeOf[E]()
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
		newCap, err := s.acct.chargeGrowth(cap(l), max(len(l)+c, 2*cap(l)), len(l)+c, size)
		if err != nil {
			return err // the lists grown so far stay grown and charged
		}
		grown := make([]E, len(l), newCap) // exactly what was charged
		copy(grown, l)
		s.st[g] = grown
	}
	return nil
}

func (s *collectState[E]) update(gids []uint32, in *input) {
	at := s.el.read(in.arr)
	for _, r := range in.rows {
		e := at(int(r))
		if s.el.clone != nil {
			var key []byte
			if s.enc != nil {
				key = s.keys.Row(int(r))
			}
			e = s.el.clone(e, key)
		}
		s.st[gids[r]] = append(s.st[gids[r]], e)
	}
	s.pending = 0
}

func (s *collectState[E]) truncate(n int) {
	for _, l := range s.st[min(n, len(s.st)):] {
		s.acct.credit(s.listBytes(l))
	}
	s.st = s.st[:min(n, len(s.st))]
	s.acct.credit(s.pending)
	s.pending = 0
}

// listBytes is what a group's list is charged.
func (s *collectState[E]) listBytes(l []E) int64 {
	n := int64(cap(l)) * sizeOf[E]()
	if s.el.bytes != nil {
		for _, e := range l {
			n += s.el.bytes(e)
		}
	}
	return n
}

func (s *collectState[E]) release() {
	for _, l := range s.st {
		s.acct.credit(s.listBytes(l))
	}
	s.st = drop(s.acct, s.st)
	s.counts = drop(s.acct, s.counts)
}

func (s *collectState[E]) result(mem memory.Allocator, _ Func, _ string, from, to int) (arrow.Array, error) {
	if s.fn == StringAgg {
		return joined(mem, any(s.st[from:to]).([][]strItem), s.sep, s.enc != nil), nil
	}
	for _, l := range s.st[from:to] {
		slices.SortFunc(l, s.el.cmp)
	}
	if s.fn == QuantileDisc {
		slots := make([]argSlot, to-from)
		for i, l := range s.st[from:to] {
			if len(l) > 0 {
				slots[i] = argSlot{seen: true, arg: s.el.val(l[discIndex(len(l), s.q)])}
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

// joined is string_agg's result over lists, sorted by their keys when
// ordered (stably: ties keep the order they came in).
func joined(mem memory.Allocator, lists [][]strItem, sep string, ordered bool) arrow.Array {
	b := array.NewStringBuilder(mem)
	defer b.Release()
	var buf []byte
	for _, l := range lists {
		if len(l) == 0 {
			b.AppendNull()
			continue
		}
		if ordered {
			slices.SortStableFunc(l, func(a, b strItem) int { return strings.Compare(a.key, b.key) })
		}
		buf = buf[:0]
		for i, it := range l {
			if i > 0 {
				buf = append(buf, sep...)
			}
			buf = append(buf, it.s...)
		}
		b.BinaryBuilder.Append(buf)
	}
	return b.NewArray()
}

// interpolated is quantile_cont's result over sorted lists.
func (s *collectState[E]) interpolated(mem memory.Allocator, from, to int) (arrow.Array, error) {
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
		lo, hi := s.el.val(l[int(math.Floor(rn))]), s.el.val(l[int(math.Ceil(rn))])
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
