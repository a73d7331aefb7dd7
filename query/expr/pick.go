package expr

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// CASE and COALESCE evaluate an operand only on the rows that reach it, so
// `CASE WHEN x <> 0 THEN 10 / x END` never divides by zero. A picker runs
// the operands and records, for every output row, which operand's array
// and which row of it supply the value; gather then builds the result in
// one pass. An operand that cannot fail (mayFail) is evaluated on the whole
// batch, which is cheaper than cutting the batch; one that can is evaluated
// on the batch cut down to its rows (arrow-go's filter, over only the
// columns the operands read).
type picker struct {
	ctx    context.Context
	mem    memory.Allocator
	batch  arrow.RecordBatch
	needed func(int) bool
	n      int
	srcs   []arrow.Array
	from   []int32 // per row: index into srcs
	at     []int32 // per row: row of srcs[from]
	proj   arrow.RecordBatch
}

func newPicker(ctx context.Context, mem memory.Allocator, batch arrow.RecordBatch, needed func(int) bool) *picker {
	n := int(batch.NumRows())
	return &picker{ctx: ctx, mem: mem, batch: batch, needed: needed, n: n, from: make([]int32, n), at: make([]int32, n)}
}

func (p *picker) release() {
	for _, s := range p.srcs {
		s.Release()
	}
	p.srcs = nil
	if p.proj != nil {
		p.proj.Release()
	}
}

// eval evaluates e on the rows where pick[row] == arm, on the whole
// batch instead when e is safe (cannot fail) or those rows are all of it.
// It returns the array (the caller's), and rows: nil when the array is
// full (its row i is batch row i), else the batch row of each of its rows.
func (p *picker) eval(e Expr, safe bool, pick []int32, arm int32) (a arrow.Array, rows []int32, err error) {
	b := p.batch
	if !safe {
		for i, k := range pick {
			if k == arm {
				rows = append(rows, int32(i))
			}
		}
		if len(rows) == p.n {
			rows = nil
		}
		if rows != nil {
			if p.proj == nil {
				p.proj = project(p.batch, p.needed)
			}
			if b, err = filterBatch(p.ctx, p.mem, p.proj, rows, p.needed); err != nil {
				return nil, nil, err
			}
			defer b.Release()
		}
	}
	if a, err = evalArray(p.ctx, p.mem, e, b); err != nil {
		return nil, nil, err
	}
	return a, rows, nil
}

// takeAll records that the rows where pick[row] == arm come from source
// k, evaluated over rows (nil: every row).
func (p *picker) takeAll(k int, rows []int32, pick []int32, arm int32) {
	if rows != nil {
		for j, row := range rows {
			p.from[row], p.at[row] = int32(k), int32(j)
		}
		return
	}
	for i, pk := range pick {
		if pk == arm {
			p.from[i], p.at[i] = int32(k), int32(i)
		}
	}
}

// add makes a a source of values (the picker releases it) and returns its
// index.
func (p *picker) add(a arrow.Array) int {
	p.srcs = append(p.srcs, a)
	return len(p.srcs) - 1
}

// result builds the output of type typ (every row must have been taken).
func (p *picker) result(typ arrow.DataType) arrow.Array {
	if typ.ID() == arrow.NULL {
		return array.NewNull(p.n)
	}
	if len(p.srcs) == 1 && p.srcs[0].Len() == p.n {
		p.srcs[0].Retain()
		return p.srcs[0] // every row from one full source, in order
	}
	if len(p.srcs) == 0 {
		return nullArray(p.mem, typ, p.n)
	}
	return gather(p.mem, typ, p.srcs, p.from, p.at)
}

// isValid is whether row i of a holds a value (never for a NULL-typed
// array, which has no bitmap).
func isValid(a arrow.Array, i int) bool {
	return a.DataType().ID() != arrow.NULL && a.IsValid(i)
}
