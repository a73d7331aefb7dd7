package expr

import (
	"context"
	"fmt"
	"strings"
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
func Share(exprs []Expr) []Expr {
	count := map[string]int{}
	for _, e := range exprs {
		countArith(e, count)
	}
	shared := map[string]Expr{}
	out := make([]Expr, len(exprs))
	for i, e := range exprs {
		out[i] = shareArith(e, count, shared)
	}
	return out
}

// countArith counts the arithmetic subtrees of e by fingerprint.
func countArith(e Expr, count map[string]int) {
	x, ok := e.(*arithExpr)
	if !ok {
		return
	}
	count[fingerprint(x)]++
	countArith(x.l, count)
	countArith(x.r, count)
}

func shareArith(e Expr, count map[string]int, shared map[string]Expr) Expr {
	x, ok := e.(*arithExpr)
	if !ok {
		return e
	}
	fp := fingerprint(x)
	if s, ok := shared[fp]; ok {
		return s
	}
	y := *x
	y.l, y.r = shareArith(x.l, count, shared), shareArith(x.r, count, shared)
	var out Expr = &y
	if count[fp] > 1 {
		out = &sharedExpr{Expr: &y, key: fp}
		shared[fp] = out
	}
	return out
}

// fingerprint identifies what e computes.
func fingerprint(e Expr) string {
	var b strings.Builder
	writeFingerprint(&b, e)
	return b.String()
}

func writeFingerprint(b *strings.Builder, e Expr) {
	switch x := e.(type) {
	case *sharedExpr:
		writeFingerprint(b, x.Expr)
	case *arithExpr:
		fmt.Fprintf(b, "(%d %s ", x.op, x.typ)
		writeFingerprint(b, x.l)
		b.WriteByte(' ')
		writeFingerprint(b, x.r)
		b.WriteByte(')')
	case *column:
		fmt.Fprintf(b, "#%d:%s", x.index, x.typ)
	default:
		// Other nodes by their text and type: a column under them is
		// named, and the arrays of one name hold the same values.
		fmt.Fprintf(b, "[%T %q %s]", e, e.String(), e.Type())
	}
}

// sharedExpr is one subtree Share found more than once.
type sharedExpr struct {
	Expr
	key string
}

func (s *sharedExpr) children() []Expr { return []Expr{s.Expr} }

func (s *sharedExpr) Eval(ctx context.Context, mem memory.Allocator, batch arrow.RecordBatch) (arrow.Array, error) {
	m, _ := ctx.Value(memoKey{}).(*memo)
	if m == nil {
		return s.Expr.Eval(ctx, mem, batch)
	}
	m.mu.Lock()
	a, ok := m.vals[s.key]
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
	m.vals[s.key] = a
	m.mu.Unlock()
	return a, nil
}

type memoKey struct{}

// memo holds the shared results of one batch.
type memo struct {
	mu   sync.Mutex
	vals map[string]arrow.Array
}

// WithMemo returns a context under which the shared nodes of Share keep
// their results, for evaluating expressions over one batch, and the
// function that releases them once that is done.
func WithMemo(ctx context.Context) (context.Context, func()) {
	m := &memo{vals: map[string]arrow.Array{}}
	return context.WithValue(ctx, memoKey{}, m), func() {
		for _, a := range m.vals {
			a.Release()
		}
		clear(m.vals)
	}
}
