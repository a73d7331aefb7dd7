package agg

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// first(x) and last(x) are DuckDB's: the x of the first (last) row of the
// group in the order the aggregator sees the rows, NULL or not, and NULL
// for a group without rows (a global aggregate over none, or every row
// filtered out). The order is that of Add's batches and of the rows in
// each, so the caller that wants input order feeds one aggregator in
// order (package query runs these on one worker); there is no partial
// state to merge (Serial). Strings are copied, their bytes charged in
// prepare (an upper bound: every row that may replace its group's value)
// and settled in update.
type firstLastState struct {
	serialState
	acct    *account
	first   bool
	t       arrow.DataType
	st      []flSlot
	pending int64
}

type flSlot struct {
	seen, valid bool
	v           slotVal
}

func (s *firstLastState) resize(n int) (err error) {
	s.st, err = resizeStates(s.acct, s.st, n, flSlot{})
	return err
}

func (s *firstLastState) prepare(gids []uint32, in *input) error {
	if s.t.ID() != arrow.STRING {
		return nil
	}
	str := in.arr.(*array.String)
	n := int64(0)
	for _, r := range in.rows {
		if !s.first || !s.st[gids[r]].seen {
			n += int64(len(str.Value(int(r))))
		}
	}
	if err := s.acct.charge(n); err != nil {
		return err
	}
	s.pending = n
	return nil
}

func (s *firstLastState) update(gids []uint32, in *input) {
	at := readerOf(in.arr)
	valid, off := in.arr.NullBitmapBytes(), in.arr.Data().Offset()
	kept, freed := int64(0), int64(0)
	for _, r := range in.rows {
		a := &s.st[gids[r]]
		if s.first && a.seen {
			continue
		}
		freed += int64(len(a.v.s))
		*a = flSlot{seen: true, valid: valid == nil || bitutil.BitIsSet(valid, off+int(r))}
		if a.valid {
			a.v = at(int(r))
			a.v.s = strings.Clone(a.v.s)
			kept += int64(len(a.v.s))
		}
	}
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

func (s *firstLastState) result(mem memory.Allocator, _ Func, _ string, from, to int) (arrow.Array, error) {
	slots := make([]argSlot, to-from)
	for i, a := range s.st[from:to] {
		slots[i] = argSlot{seen: a.valid, arg: a.v}
	}
	return exportSlots(mem, s.t, slots, func(a argSlot) slotVal { return a.arg }), nil
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

var errSerial = fmt.Errorf("%w: first, last, string_agg and the quantiles have no partial state to export, merge or spill", ErrUnsupported)
