package query

import (
	"errors"
	"fmt"

	"github.com/quiverdb/quiver/extsort"
)

// What a query past its memory limit is told: what needed the bytes, how
// many, the limit by the name its user sets it by, whether spilling was
// off and by what, and what to do. The limit's name and the spill
// setting's come from Options (a server passes its flags).

// memNames are the names ErrMemory messages use.
type memNames struct {
	limit   string // names MemoryLimit
	noSpill string // what turned spilling off; "" when spilling is on
}

func (e *Engine) memNames() memNames {
	n := memNames{limit: e.opts.MemoryLimitName}
	if n.limit == "" {
		n.limit = "the query memory limit"
	}
	if e.opts.Spill == nil {
		n.noSpill = e.opts.NoSpillName
		if n.noSpill == "" {
			n.noSpill = "Options.Spill is nil"
		}
	}
	return n
}

// limitError is the ErrMemory of what needing need more bytes while the
// query holds held.
func (m *memTracker) limitError(what string, need, held int64) error {
	return &Error{Kind: ErrMemory, Msg: fmt.Sprintf("%s needs %d more bytes beyond %s (%d bytes; the query holds %d)%s",
		what, need, m.names.limit, m.limit, held, m.advice())}
}

// sortMemoryError is the ErrMemory of a sort (what: ORDER BY or a
// window's) that could not spill.
func (m *memTracker) sortMemoryError(err error, what string) error {
	var me *extsort.MemoryError
	if !errors.As(err, &me) {
		return &Error{Kind: ErrMemory, Msg: what + m.advice(), Err: err}
	}
	return &Error{Kind: ErrMemory, Msg: fmt.Sprintf("%s needs %d more bytes beyond %s (%d bytes; it holds %d rows in %d)%s",
		what, me.Need, m.names.limit, m.limit, me.Rows, me.Held, m.advice())}
}

func (m *memTracker) advice() string {
	if m.names.noSpill != "" {
		return fmt.Sprintf(" and spilling is off (%s): raise the limit, let it spill, or add a LIMIT or a more selective WHERE", m.names.noSpill)
	}
	return ": raise the limit, or add a LIMIT or a more selective WHERE"
}

// joinLimitError is the ErrMemory of a hash join whose build side does not
// fit. With spilling on, a join spills instead of failing, so this is
// what a join without a spill Manager says.
func (m *memTracker) joinLimitError(join string, need, held int64) error {
	return &Error{Kind: ErrMemory, Msg: fmt.Sprintf("%s: its build side needs %d more bytes beyond %s (%d bytes; the query holds %d)%s",
		join, need, m.names.limit, m.limit, held, m.advice())}
}
