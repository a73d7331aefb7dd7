package query

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/quiverdb/quiver/cache"
)

// A WITH query that a statement names more than once (TPC-H Q15's
// revenue0, in FROM and in a scalar subquery) is computed once, while
// planning, and every use reads the held result: without this each use
// is planned and run again, scanning and aggregating the same rows twice.
// DuckDB and DataFusion materialize such a CTE the same way.
//
// Only a result up to heldLimit bytes is held (a WITH over a whole table
// used twice is cheaper to scan twice than to copy); past it the
// computation is abandoned and each use is planned as a derived table,
// as before. The held batches are copied into Go memory, outside the
// query's allocator: the plan that reads them has no end to release them
// at, and the collector frees them with the plan.

// heldLimit is the most bytes a held WITH result may take: a sixteenth of
// the query's memory limit, at most 64 MiB.
func heldLimit(memLimit int64) int64 {
	if memLimit <= 0 {
		memLimit = DefaultMemoryLimit
	}
	return min(memLimit/16, 64<<20)
}

// cteShared is what every use of one WITH name shares.
type cteShared struct {
	uses  int       // times the statement names it
	held  *heldNode // its result, once computed
	tried bool      // computing it was tried (held nil: it was too big)
}

// countWithUses records, for each WITH name of w, how many times root
// names it as a table; w's names are the last len(w.CTEs) of b.ctes.
func (b *builder) countWithUses(w *ast.WithClause, root ast.Node) {
	if w == nil || len(w.CTEs) > len(b.ctes) {
		return
	}
	ctes := b.ctes[len(b.ctes)-len(w.CTEs):]
	v := &tableNameCounter{n: map[string]int{}}
	root.Accept(v)
	for i := range ctes {
		if ctes[i].shared != nil {
			ctes[i].shared.uses = v.n[strings.ToLower(ctes[i].name)]
		}
	}
}

// tableNameCounter counts the unqualified table names of a statement,
// folded to lower case.
type tableNameCounter struct{ n map[string]int }

func (v *tableNameCounter) Enter(n ast.Node) (ast.Node, bool) {
	if t, ok := n.(*ast.TableName); ok && t.Schema.O == "" {
		v.n[strings.ToLower(t.Name.O)]++
	}
	return n, false
}

func (v *tableNameCounter) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// heldCTE returns the held result of the WITH query q, computing it on
// the first use; nil when q is named once, when planning only for types
// (prepare) or names (probing), or when its result passed heldLimit or
// could not be computed alone (each use is then planned as before).
func (b *builder) heldCTE(q *namedQuery, at ast.Node) (*heldNode, error) {
	s := q.shared
	if s == nil || s.uses < 2 || b.prepare || b.probing {
		return nil, nil
	}
	if s.tried {
		return s.held, nil
	}
	s.tried = true
	if err := b.nest(at); err != nil {
		return nil, err
	}
	p, err := b.planNamed(q) // cte_setop.go
	if err != nil {
		return nil, err
	}
	h, err := b.hold(q.name, p)
	if err != nil {
		return nil, err
	}
	s.held = h
	if h == nil {
		// Too big to hold: this use plans the statement again, as every
		// later use does (use reparses once the original is taken).
		return nil, nil
	}
	return h, nil
}

// hold runs p and copies its batches into one Go-allocated batch; nil
// when they pass heldLimit.
func (b *builder) hold(name string, p planNode) (*heldNode, error) {
	ctx := b.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	r, err := (&Engine{c: b.c, opts: b.opts}).run(ctx, p)
	if err != nil {
		return nil, err
	}
	defer r.Release()
	limit := heldLimit(b.opts.MemoryLimit)
	var recs []arrow.RecordBatch
	defer func() {
		for _, rec := range recs {
			rec.Release()
		}
	}()
	var size int64
	for r.Next() {
		rec := r.RecordBatch()
		if rec.NumRows() == 0 {
			continue
		}
		size += batchBytes(rec)
		if size > limit {
			return nil, nil
		}
		rec.Retain()
		recs = append(recs, rec)
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	h := &heldNode{name: name, sch: p.schema(), from: p, bytes: size}
	if len(recs) == 0 {
		return h, nil
	}
	cols := make([]arrow.Array, h.sch.NumFields())
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	parts := make([]arrow.Array, len(recs))
	for i := range cols {
		for j, rec := range recs {
			parts[j] = rec.Column(i)
		}
		c, err := array.Concatenate(parts, memory.DefaultAllocator)
		if err != nil {
			return nil, fmt.Errorf("holding WITH %s: %w", name, err)
		}
		cols[i] = c
	}
	h.batch = array.NewRecordBatch(h.sch, cols, int64(cols[0].Len()))
	return h, nil
}

// heldNode reads the held result of a WITH query (cte_held.go).
type heldNode struct {
	name  string
	sch   *arrow.Schema
	from  planNode          // the plan that computed it, for EXPLAIN
	batch arrow.RecordBatch // nil: no rows; Go memory, never released
	bytes int64
}

func (n *heldNode) schema() *arrow.Schema { return n.sch }

func (n *heldNode) rows() int64 {
	if n.batch == nil {
		return 0
	}
	return n.batch.NumRows()
}

func (n *heldNode) open(context.Context, *runtime, *cache.Cache) (operator, error) {
	return &heldOp{n: n}, nil
}

func (n *heldNode) explain(b *strings.Builder, depth int) {
	indent(b, depth)
	fmt.Fprintf(b, "Held WITH %s: %d rows, %d bytes, computed once while planning\n", n.name, n.rows(), n.bytes)
	n.from.explain(b, depth+1)
}

// heldOp returns the held batch once per use.
type heldOp struct {
	n    *heldNode
	done bool
}

func (o *heldOp) Schema() *arrow.Schema { return o.n.sch }

func (o *heldOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if o.done || o.n.batch == nil {
		return nil, io.EOF
	}
	o.done = true
	o.n.batch.Retain()
	return o.n.batch, nil
}

func (o *heldOp) Close() {}
