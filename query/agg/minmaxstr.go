package agg

import (
	"bytes"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// minMaxString is min and max over strings (or BLOBs: dt) in byte order. Each group's
// current value is a reference into one arena; a new winner is appended
// and the old bytes become garbage, which prepare compacts away once it
// outweighs the live bytes. prepare reserves what update can append at
// most (the values that beat their group's value before the batch), so
// update never allocates.
type minMaxString struct {
	acct  *account
	dt    arrow.DataType // utf8 or binary
	isMin bool
	st    []strRef
	arena []byte
	live  int // arena bytes referenced by st
	in    strInput
}

type strRef struct {
	off  uint64
	n    uint32
	seen bool
}

func (s *minMaxString) resize(n int) (err error) {
	s.st, err = resizeStates(s.acct, s.st, n, strRef{})
	return err
}

func (s *minMaxString) value(a strRef) []byte { return s.arena[a.off : a.off+uint64(a.n)] }

func (s *minMaxString) prepare(gids []uint32, in *input) error {
	s.in.bind(in.arr.(offsetsArray))
	need := 0 // bytes of the rows that beat their group's value before the batch: a bound on what update appends
	for _, r := range in.rows {
		if a := s.st[gids[r]]; !a.seen || s.beats(s.in.value(r), a) {
			need += int(s.in.offs[r+1] - s.in.offs[r])
		}
	}
	if len(s.arena)+need <= cap(s.arena) {
		return nil
	}
	if garbage := len(s.arena) - s.live; garbage >= s.live {
		return s.compact(need)
	}
	arena, err := reserve(s.acct, s.arena, need)
	s.arena = arena
	return err
}

// compact copies the live values into a new arena with room for need more.
func (s *minMaxString) compact(need int) error {
	size := max(2*(s.live+need), 1024)
	if err := s.acct.charge(int64(size)); err != nil {
		return err
	}
	arena := make([]byte, 0, size)
	for i, a := range s.st {
		if a.seen {
			off := len(arena)
			arena = append(arena, s.value(a)...)
			s.st[i].off = uint64(off)
		}
	}
	s.arena = drop(s.acct, s.arena)
	s.arena = arena
	return nil
}

// beats reports whether v replaces the value of a.
func (s *minMaxString) beats(v []byte, a strRef) bool {
	c := bytes.Compare(v, s.value(a))
	return s.isMin && c < 0 || !s.isMin && c > 0
}

func (s *minMaxString) update(gids []uint32, in *input) {
	for _, r := range in.rows {
		a := &s.st[gids[r]]
		v := s.in.value(r)
		if a.seen {
			if !s.beats(v, *a) {
				continue
			}
			s.live -= int(a.n)
		}
		a.off, a.n, a.seen = uint64(len(s.arena)), uint32(len(v)), true
		s.arena = append(s.arena, v...)
		s.live += len(v)
	}
}

func (s *minMaxString) prepareMerge(gids []uint32, ins []input) error {
	return s.prepare(gids, &ins[0])
}
func (s *minMaxString) merge(gids []uint32, ins []input) { s.update(gids, &ins[0]) }

func (s *minMaxString) truncate(n int) {
	if n == 0 {
		s.st, s.arena, s.live = s.st[:0], s.arena[:0], 0
		return
	}
	for _, a := range s.st[min(n, len(s.st)):] {
		if a.seen {
			s.live -= int(a.n)
		}
	}
	s.st = s.st[:min(n, len(s.st))]
}

// varBytes is the string bytes groups [from, to) export.
func (s *minMaxString) varBytes(from, to int) int64 {
	n := int64(0)
	for _, a := range s.st[from:to] {
		n += int64(a.n)
	}
	return n
}

func (s *minMaxString) partialTypes() []arrow.DataType {
	return []arrow.DataType{s.dt}
}

func (s *minMaxString) partial(mem memory.Allocator, from, to int) ([]arrow.Array, error) {
	a, err := s.result(mem, 0, "", from, to)
	return []arrow.Array{a}, err
}

func (s *minMaxString) result(mem memory.Allocator, _ Func, _ string, from, to int) (arrow.Array, error) {
	out := newStringOut(mem, to-from, int(s.varBytes(from, to)))
	out.dt = s.dt
	for i, a := range s.st[from:to] {
		if a.seen {
			out.add(s.value(a))
		} else {
			out.add(nil)
			out.setNull(i)
		}
	}
	return out.finish(), nil
}

func (s *minMaxString) release() {
	s.st = drop(s.acct, s.st)
	s.arena = drop(s.acct, s.arena)
	s.live, s.in = 0, strInput{}
}
