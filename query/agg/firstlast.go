package agg

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// first(x) and last(x) are DuckDB's: the x of the group's first (last)
// row, NULL or not, and NULL for a group without rows (a global
// aggregate over none, or every row filtered out). Which row is first is
// the caller's to say: Spec.By is an int64 argument of positions, one
// per row, distinct (package query numbers a row by its batch's place in
// the scan and its own in the batch), so that aggregators fed batches in
// any order, merged in any order or spilled and merged back agree on
// the row of the smallest (largest) position. A row whose position is
// NULL is skipped. Strings are copied, their bytes charged in prepare
// (an upper bound: every row that may replace its group's value) and
// settled in update. The partial state is (position, x), the position
// NULL for a group without rows.
type firstLastState struct {
	acct    *account
	first   bool
	t       arrow.DataType
	pos     *input // the positions' input, bound by the aggregator
	st      []flSlot
	pending int64
}

type flSlot struct {
	seen, valid bool
	pos         int64
	v           slotVal
}

func (s *firstLastState) resize(n int) (err error) {
	s.st, err = resizeStates(s.acct, s.st, n, flSlot{})
	return err
}

// beats reports whether position p replaces a's row.
func (s *firstLastState) beats(p int64, a *flSlot) bool {
	return !a.seen || (s.first && p < a.pos) || (!s.first && p > a.pos)
}

// each calls f for the rows of x (NULL values included) whose position
// is not NULL.
func each(x, pos *input, f func(r int, p int64)) {
	ps := pos.arr.(*array.Int64).Int64Values()
	valid, off := pos.arr.NullBitmapBytes(), pos.arr.Data().Offset()
	for _, r := range x.rows {
		if valid == nil || bitutil.BitIsSet(valid, off+int(r)) {
			f(int(r), ps[r])
		}
	}
}

// need is the string bytes fold may copy.
func (s *firstLastState) need(gids []uint32, x, pos *input) int64 {
	if s.t.ID() != arrow.STRING {
		return 0
	}
	str, n := x.arr.(*array.String), int64(0)
	each(x, pos, func(r int, p int64) {
		if s.beats(p, &s.st[gids[r]]) {
			n += int64(len(str.Value(r)))
		}
	})
	return n
}

func (s *firstLastState) charge(gids []uint32, x, pos *input) error {
	n := s.need(gids, x, pos)
	if err := s.acct.charge(n); err != nil {
		return err
	}
	s.pending = n
	return nil
}

func (s *firstLastState) prepare(gids []uint32, in *input) error { return s.charge(gids, in, s.pos) }

func (s *firstLastState) update(gids []uint32, in *input) { s.fold(gids, in, s.pos) }

// fold takes the rows of x at positions pos into their groups and
// settles the string bytes prepare charged.
func (s *firstLastState) fold(gids []uint32, x, pos *input) {
	at := readerOf(x.arr)
	valid, off := x.arr.NullBitmapBytes(), x.arr.Data().Offset()
	kept, freed := int64(0), int64(0)
	each(x, pos, func(r int, p int64) {
		a := &s.st[gids[r]]
		if !s.beats(p, a) {
			return
		}
		freed += int64(len(a.v.s))
		*a = flSlot{seen: true, pos: p, valid: valid == nil || bitutil.BitIsSet(valid, off+r)}
		if a.valid {
			a.v = at(r)
			a.v.s = strings.Clone(a.v.s)
			kept += int64(len(a.v.s))
		}
	})
	s.acct.credit(s.pending - kept + freed)
	s.pending = 0
}

func (s *firstLastState) truncate(n int) {
	for _, a := range s.st[min(n, len(s.st)):] {
		s.acct.credit(int64(len(a.v.s)))
	}
	s.st = s.st[:min(n, len(s.st))]
	s.acct.credit(s.pending)
	s.pending = 0
}

func (s *firstLastState) partialTypes() []arrow.DataType {
	return []arrow.DataType{arrow.PrimitiveTypes.Int64, s.t}
}

func (s *firstLastState) partial(mem memory.Allocator, from, to int) ([]arrow.Array, error) {
	pos := newFixedOut[int64](mem, arrow.PrimitiveTypes.Int64, to-from)
	for i, a := range s.st[from:to] {
		if !a.seen {
			pos.setNull(i)
			continue
		}
		pos.vals[i] = a.pos
	}
	return []arrow.Array{pos.finish(), s.values(mem, from, to)}, nil
}

// prepareMerge and merge read a partial batch: positions, then values
// (the rows of a group without rows have no position and are skipped).
func (s *firstLastState) prepareMerge(gids []uint32, ins []input) error {
	return s.charge(gids, s.allRows(&ins[1], &ins[0]), &ins[0])
}

func (s *firstLastState) merge(gids []uint32, ins []input) {
	s.fold(gids, s.allRows(&ins[1], &ins[0]), &ins[0])
}

// allRows is x with every row listed, NULL values too: a partial value
// is NULL where the first row's was.
func (s *firstLastState) allRows(x, pos *input) *input {
	all := *x
	all.rows = pos.rows // the rows with a position: a value, NULL or not
	return &all
}

func (s *firstLastState) result(mem memory.Allocator, _ Func, _ string, from, to int) (arrow.Array, error) {
	return s.values(mem, from, to), nil
}

func (s *firstLastState) values(mem memory.Allocator, from, to int) arrow.Array {
	slots := make([]argSlot, to-from)
	for i, a := range s.st[from:to] {
		slots[i] = argSlot{seen: a.valid, arg: a.v}
	}
	return exportSlots(mem, s.t, slots, func(a argSlot) slotVal { return a.arg })
}

func (s *firstLastState) release() {
	for _, a := range s.st {
		s.acct.credit(int64(len(a.v.s)))
	}
	s.st = drop(s.acct, s.st)
}

// serialState is embedded by the states of Serial functions: they have no
// partial state, so an aggregator holding one cannot export, merge or
// spill.
type serialState struct{}

func (serialState) partialTypes() []arrow.DataType { return nil }

func (serialState) partial(memory.Allocator, int, int) ([]arrow.Array, error) {
	return nil, errSerial
}

func (serialState) prepareMerge([]uint32, []input) error { return errSerial }
func (serialState) merge([]uint32, []input)              {}
func (serialState) serial()                              {}

var errSerial = fmt.Errorf("%w: string_agg and the quantiles have no partial state to export, merge or spill", ErrUnsupported)
