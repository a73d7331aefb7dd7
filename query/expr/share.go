package expr

import (
	"context"
	"fmt"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Sharing common subexpressions: TPC-H Q1 sums l_extendedprice * (1 -
// l_discount) and l_extendedprice * (1 - l_discount) * (1 + l_tax), so
// evaluated one by one the first product is computed twice per batch.
// Share rewrites a list of expressions evaluated over the same batches so
// that an arithmetic subtree occurring more than once is evaluated once
// per batch: its occurrences become one shared node, which keeps its
// result in the memo a context carries (WithMemo) and hands it out again.
// Without a memo in the context a shared node simply evaluates.
//
// Only arithmetic is shared, and only through arithmetic parents: it is
// where the time goes, and rebuilding an arithmetic node is a struct copy.
// Two subtrees are the same when their fingerprints are: operator, type
// and operands, columns by batch index (not by name: a column's stored
// and engine arrays share a name).

// Share returns exprs with the arithmetic subtrees they repeat shared.
// It takes time linear in the size of the trees: each node gets a number
// from its operator, type and its operands' numbers, once.
func Share(exprs []Expr) []Expr {
	s := &sharer{ids: map[shareKey]int{}, of: map[*arithExpr]int{}, shared: map[int]Expr{}}
	for _, e := range exprs {
		s.countArith(e)
	}
	out := make([]Expr, len(exprs))
	for i, e := range exprs {
		out[i] = s.shareArith(e)
	}
	return out
}

// shareKey identifies what a node computes: an arithmetic node by its
// operator, type and operands' ids, a column by batch index and type,
// anything else by its Go type, Key (text and columns read) and type.
type shareKey struct {
	op         ArithOp
	typ        string
	l, r       int
	index      int
	other      string // Go type
	text       string
	arith, col bool
}

type sharer struct {
	ids    map[shareKey]int   // what a node computes → its id
	of     map[*arithExpr]int // the id of each arithmetic node seen
	count  []int              // by id: how often an arithmetic subtree occurs
	shared map[int]Expr       // by id: the shared node
}

// id numbers what e computes; equal ids compute the same.
func (s *sharer) id(e Expr) int {
	var k shareKey
	switch x := e.(type) {
	case *sharedExpr:
		return s.id(x.Expr)
	case *arithExpr:
		if id, ok := s.of[x]; ok {
			return id
		}
		k = shareKey{arith: true, op: x.op, typ: x.typ.String(), l: s.id(x.l), r: s.id(x.r)}
	case *column:
		k = shareKey{col: true, index: x.index, typ: x.typ.String()}
	default:
		k = shareKey{other: fmt.Sprintf("%T", e), typ: e.Type().String(), text: Key(e)}
	}
	id, ok := s.ids[k]
	if !ok {
		id = len(s.ids)
		s.ids[k] = id
		s.count = append(s.count, 0)
	}
	if x, ok := e.(*arithExpr); ok {
		s.of[x] = id
	}
	return id
}

// countArith counts the arithmetic subtrees of e by id.
func (s *sharer) countArith(e Expr) {
	x, ok := e.(*arithExpr)
	if !ok {
		return
	}
	s.count[s.id(x)]++
	s.countArith(x.l)
	s.countArith(x.r)
}

func (s *sharer) shareArith(e Expr) Expr {
	x, ok := e.(*arithExpr)
	if !ok {
		return e
	}
	id := s.id(x)
	if sh, ok := s.shared[id]; ok {
		return sh
	}
	y := *x
	y.l, y.r = s.shareArith(x.l), s.shareArith(x.r)
	var out Expr = &y
	if s.count[id] > 1 {
		out = &sharedExpr{Expr: &y}
		s.shared[id] = out
	}
	return out
}

// sharedExpr is one subtree Share found more than once.
type sharedExpr struct {
	Expr
}

func (s *sharedExpr) children() []Expr { return []Expr{s.Expr} }

func (s *sharedExpr) Eval(ctx context.Context, mem memory.Allocator, batch arrow.RecordBatch) (arrow.Array, error) {
	m, _ := ctx.Value(memoKey{}).(*memo)
	if m == nil {
		return s.Expr.Eval(ctx, mem, batch)
	}
	m.mu.Lock()
	a, ok := m.vals[s]
	m.mu.Unlock()
	if ok {
		a.Retain()
		return a, nil
	}
	a, err := s.Expr.Eval(ctx, mem, batch)
	if err != nil {
		return nil, err
	}
	a.Retain() // the memo's reference
	m.mu.Lock()
	m.vals[s] = a
	m.mu.Unlock()
	return a, nil
}

type memoKey struct{}

// memo holds the shared results of one batch.
type memo struct {
	mu   sync.Mutex
	vals map[*sharedExpr]arrow.Array
}

// WithMemo returns a context under which the shared nodes of Share keep
// their results, for evaluating expressions over one batch, and the
// function that releases them once that is done.
func WithMemo(ctx context.Context) (context.Context, func()) {
	m := &memo{vals: map[*sharedExpr]arrow.Array{}}
	return context.WithValue(ctx, memoKey{}, m), func() {
		for _, a := range m.vals {
			a.Release()
		}
		clear(m.vals)
	}
}
