package agg

import (
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// arg_min(x, by) and arg_max(x, by) return the x of the row whose by is
// smallest (largest) in the group, DuckDB's: rows where x or by is NULL
// are skipped, and NULL is the result of a group without such a row. Of
// rows with equal by, the first the aggregator sees wins (DuckDB leaves
// ties unspecified too). x and by are any engine types; by orders as
// SQL does (false < true, NaN above every number, strings by bytes).
// Each group keeps the two values; strings are copied, their bytes
// charged to the account in prepare (an upper bound: the rows that beat
// their group's value before the batch) and the bytes not kept credited
// in update. The partial state is (by, x), NULL for a group without a
// row.
type argState struct {
	acct    *account
	isMin   bool
	argT    arrow.DataType
	byT     arrow.DataType
	by      *input // the ordering argument's input, bound by the aggregator
	st      []argSlot
	pending int64 // string bytes charged by prepare and not yet settled
}

type argSlot struct {
	seen    bool
	by, arg slotVal
}

// slotVal holds one value of any engine type: i for integers, dates,
// timestamps, booleans (0/1) and float64 bits, d for decimals, s for
// strings.
type slotVal struct {
	i int64
	d decimal128.Num
	s string
}

func newArgState(a *account, isMin bool, argT, byT arrow.DataType, by *input) *argState {
	return &argState{acct: a, isMin: isMin, argT: argT, byT: byT, by: by}
}

// readerOf returns row r of a as a slotVal (strings not copied).
func readerOf(a arrow.Array) func(r int) slotVal {
	switch a := a.(type) {
	case *array.Int64:
		v := a.Int64Values()
		return func(r int) slotVal { return slotVal{i: v[r]} }
	case *array.Timestamp, *array.Time64:
		v := arrow.GetValues[int64](a.Data(), 1)
		return func(r int) slotVal { return slotVal{i: v[r]} }
	case *array.Date32:
		v := a.Date32Values()
		return func(r int) slotVal { return slotVal{i: int64(v[r])} }
	case *array.Float64:
		v := a.Float64Values()
		return func(r int) slotVal { return slotVal{i: int64(math.Float64bits(v[r]))} }
	case *array.Boolean:
		return func(r int) slotVal {
			if a.Value(r) {
				return slotVal{i: 1}
			}
			return slotVal{}
		}
	case *array.Decimal128:
		v := a.Values()
		return func(r int) slotVal { return slotVal{d: v[r]} }
	case *array.String:
		return func(r int) slotVal { return slotVal{s: a.Value(r)} }
	case *array.MonthDayNanoInterval: // 16 bytes, kept in d
		v := arrow.GetValues[decimal128.Num](a.Data(), 1)
		return func(r int) slotVal { return slotVal{d: v[r]} }
	}
	panic("agg: arg_min/arg_max cannot read " + a.DataType().String()) // types are checked by NewHashAggregator
}

// compareSlots orders two values of type t.
func compareSlots(t arrow.DataType) func(a, b slotVal) int {
	switch t.ID() {
	case arrow.FLOAT64:
		return func(a, b slotVal) int {
			return cmpFloatSQL(math.Float64frombits(uint64(a.i)), math.Float64frombits(uint64(b.i)))
		}
	case arrow.DECIMAL128:
		return func(a, b slotVal) int { return a.d.Cmp(b.d) }
	case arrow.STRING:
		return func(a, b slotVal) int { return strings.Compare(a.s, b.s) }
	}
	return func(a, b slotVal) int {
		switch {
		case a.i < b.i:
			return -1
		case a.i > b.i:
			return 1
		}
		return 0
	}
}

// cmpFloatSQL orders floats with NaN above every number and equal to
// itself.
func cmpFloatSQL(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	case a == b:
		return 0
	case a != a && b != b:
		return 0
	case a != a:
		return 1
	}
	return -1
}

func (s *argState) beats(v, cur slotVal, cmp func(a, b slotVal) int) bool {
	c := cmp(v, cur)
	if s.isMin {
		return c < 0
	}
	return c > 0
}

func (s *argState) resize(n int) (err error) {
	s.st, err = resizeStates(s.acct, s.st, n, argSlot{})
	return err
}

// rows calls f for each row where both x and by have a value.
func bothValid(x, by *input, f func(r int)) {
	if by.dense {
		for _, r := range x.rows {
			f(int(r))
		}
		return
	}
	bm, off := by.arr.NullBitmapBytes(), by.arr.Data().Offset()
	for _, r := range x.rows {
		if bm == nil || bm[(off+int(r))>>3]&(1<<((off+int(r))&7)) != 0 {
			f(int(r))
		}
	}
}

// need is the string bytes update may copy for rows of x and by: those
// that beat their group's value before the batch.
func (s *argState) need(gids []uint32, x, by *input) int64 {
	if s.argT.ID() != arrow.STRING && s.byT.ID() != arrow.STRING {
		return 0
	}
	cmp, byAt, xAt := compareSlots(s.byT), readerOf(by.arr), readerOf(x.arr)
	n := int64(0)
	bothValid(x, by, func(r int) {
		if a := s.st[gids[r]]; !a.seen || s.beats(byAt(r), a.by, cmp) {
			n += int64(len(byAt(r).s) + len(xAt(r).s))
		}
	})
	return n
}

func (s *argState) prepare(gids []uint32, in *input) error {
	n := s.need(gids, in, s.by)
	if err := s.acct.charge(n); err != nil {
		return err
	}
	s.pending = n
	return nil
}

func (s *argState) update(gids []uint32, in *input) { s.fold(gids, in, s.by) }

// fold takes the rows of x and by into their groups and settles the
// string bytes prepare charged.
func (s *argState) fold(gids []uint32, x, by *input) {
	cmp, byAt, xAt := compareSlots(s.byT), readerOf(by.arr), readerOf(x.arr)
	kept, freed := int64(0), int64(0)
	bothValid(x, by, func(r int) {
		a := &s.st[gids[r]]
		v := byAt(r)
		if a.seen && !s.beats(v, a.by, cmp) {
			return
		}
		freed += int64(len(a.by.s) + len(a.arg.s))
		w := xAt(r)
		v.s, w.s = strings.Clone(v.s), strings.Clone(w.s)
		kept += int64(len(v.s) + len(w.s))
		*a = argSlot{seen: true, by: v, arg: w}
	})
	s.acct.credit(s.pending - kept + freed)
	s.pending = 0
}

func (s *argState) truncate(n int) {
	for _, a := range s.st[min(n, len(s.st)):] {
		s.acct.credit(int64(len(a.by.s) + len(a.arg.s)))
	}
	s.st = s.st[:min(n, len(s.st))]
	s.acct.credit(s.pending)
	s.pending = 0
}

func (s *argState) partialTypes() []arrow.DataType { return []arrow.DataType{s.byT, s.argT} }

func (s *argState) partial(mem memory.Allocator, from, to int) ([]arrow.Array, error) {
	by := exportSlots(mem, s.byT, s.st[from:to], func(a argSlot) slotVal { return a.by })
	x := exportSlots(mem, s.argT, s.st[from:to], func(a argSlot) slotVal { return a.arg })
	return []arrow.Array{by, x}, nil
}

func (s *argState) prepareMerge(gids []uint32, ins []input) error {
	n := s.need(gids, &ins[1], &ins[0])
	if err := s.acct.charge(n); err != nil {
		return err
	}
	s.pending = n
	return nil
}

func (s *argState) merge(gids []uint32, ins []input) { s.fold(gids, &ins[1], &ins[0]) }

func (s *argState) result(mem memory.Allocator, _ Func, _ string, from, to int) (arrow.Array, error) {
	return exportSlots(mem, s.argT, s.st[from:to], func(a argSlot) slotVal { return a.arg }), nil
}

func (s *argState) release() {
	for _, a := range s.st {
		s.acct.credit(int64(len(a.by.s) + len(a.arg.s)))
	}
	s.st = drop(s.acct, s.st)
}

// exportSlots builds an array of t from the slots' values (NULL where a
// slot has none).
func exportSlots(mem memory.Allocator, t arrow.DataType, slots []argSlot, get func(argSlot) slotVal) arrow.Array {
	b := array.NewBuilder(mem, t)
	defer b.Release()
	b.Reserve(len(slots))
	for _, a := range slots {
		if !a.seen {
			b.AppendNull()
			continue
		}
		v := get(a)
		switch b := b.(type) {
		case *array.Int64Builder:
			b.Append(v.i)
		case *array.TimestampBuilder:
			b.Append(arrow.Timestamp(v.i))
		case *array.Time64Builder:
			b.Append(arrow.Time64(v.i))
		case *array.Date32Builder:
			b.Append(arrow.Date32(v.i))
		case *array.Float64Builder:
			b.Append(math.Float64frombits(uint64(v.i)))
		case *array.BooleanBuilder:
			b.Append(v.i != 0)
		case *array.Decimal128Builder:
			b.Append(v.d)
		case *array.StringBuilder:
			b.Append(v.s)
		case *array.MonthDayNanoIntervalBuilder: // the 16 bytes readerOf kept in d
			lo := v.d.LowBits()
			b.Append(arrow.MonthDayNanoInterval{Months: int32(uint32(lo)), Days: int32(uint32(lo >> 32)), Nanoseconds: v.d.HighBits()})
		}
	}
	return b.NewArray()
}
