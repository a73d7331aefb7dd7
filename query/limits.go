package query

import (
	"fmt"

	"github.com/pingcap/tidb/pkg/parser/ast"
)

// Limits on the size of a statement's expressions. Planning and
// evaluation are linear in an expression's size, but each node costs a
// pass over every batch, so `sum(a + a + … + a)` with a million terms
// would hold a query for minutes: the limits refuse it before planning.
// The parser itself builds the tree without recursion; the planner and
// the evaluator recurse once per level, so depth bounds their stacks.
const (
	// DefaultMaxExprNodes is Options.MaxExprNodes left zero: the
	// expression nodes (operators, operands, literals, columns) one
	// statement may hold, all its expressions together.
	DefaultMaxExprNodes = 10_000
	// DefaultMaxExprDepth is Options.MaxExprDepth left zero: how deeply
	// expressions may nest.
	DefaultMaxExprDepth = 1_000
)

// checkLimits refuses a statement whose expressions pass the engine's
// limits. It stops walking at the first node past a limit, so it takes
// time bounded by the limits, not by the statement.
func (e *Engine) checkLimits(sql string, stmt ast.StmtNode) error {
	v := limitWalker{maxNodes: e.opts.MaxExprNodes, maxDepth: e.opts.MaxExprDepth}
	stmt.Accept(&v)
	if v.err == "" {
		return nil
	}
	b := &builder{sql: sql}
	return b.at(ErrInvalid, v.at, "%s", v.err)
}

// limitWalker counts expression nodes and their nesting. The left operand
// of a binary operator is at its operator's depth: a + b + c … is a chain,
// which the evaluator runs in a loop (expr's Eval of a left-deep chain),
// so its length is bounded by the node limit alone.
type limitWalker struct {
	maxNodes, maxDepth int
	nodes              int
	stack              []limitFrame // the expression nodes entered, innermost last
	err                string
	at                 ast.Node
}

type limitFrame struct {
	n     ast.ExprNode
	depth int
}

func (v *limitWalker) Enter(n ast.Node) (ast.Node, bool) {
	e, ok := n.(ast.ExprNode)
	if !ok {
		return n, v.err != ""
	}
	depth := 1
	if !v.inListLiteral(e) {
		v.nodes++
	}
	if len(v.stack) > 0 {
		top := v.stack[len(v.stack)-1]
		depth = top.depth + 1
		if b, ok := top.n.(*ast.BinaryOperationExpr); ok && b.L == e {
			depth = top.depth
		}
	}
	v.stack = append(v.stack, limitFrame{e, depth}) // Leave pops it, also when skipped
	switch {
	case v.err != "":
		return n, true
	case v.maxNodes > 0 && v.nodes > v.maxNodes:
		v.err = fmt.Sprintf("the statement has more than %d expression nodes; the limit is %d (query.Options.MaxExprNodes, quiver serve --max-expr-nodes)", v.maxNodes, v.maxNodes)
	case v.maxDepth > 0 && depth > v.maxDepth:
		v.err = fmt.Sprintf("expressions nest more than %d deep; the limit is %d (query.Options.MaxExprDepth, quiver serve --max-expr-depth)", v.maxDepth, v.maxDepth)
	default:
		return n, false
	}
	v.at = n
	return n, true
}

// inListLiteral says whether e is a literal of the list of an IN whose
// node is innermost: such a list is evaluated as one set, and tools send
// IN lists of many thousands (bounded by the SQL's length, MaxSQLBytes in
// the server), so its literals do not count as nodes.
func (v *limitWalker) inListLiteral(e ast.ExprNode) bool {
	if len(v.stack) == 0 {
		return false
	}
	in, ok := v.stack[len(v.stack)-1].n.(*ast.PatternInExpr)
	if !ok || in.Expr == e {
		return false
	}
	_, lit := e.(ast.ValueExpr)
	return lit
}

func (v *limitWalker) Leave(n ast.Node) (ast.Node, bool) {
	if _, ok := n.(ast.ExprNode); ok {
		v.stack = v.stack[:len(v.stack)-1]
	}
	return n, true
}

// tick counts one expression node built and every 256 nodes checks
// whether the query was cancelled, so a large statement stops planning
// soon after its client goes away.
func (b *builder) tick() error {
	b.ticks++
	if b.ctx == nil || b.ticks%256 != 0 {
		return nil
	}
	if err := b.ctx.Err(); err != nil {
		return cancelled(err)
	}
	return nil
}

// exprSizes gives the expression nodes in a subtree, counted once for all
// its subtrees: every expression node restores to at least one byte of
// text, so a subtree of more nodes than a text has bytes cannot restore
// to that text.
type exprSizes struct {
	max   int // the longest text compared against
	sizes map[ast.Node]int
}

// of returns the expression nodes under n, n included.
func (s *exprSizes) of(n ast.ExprNode) int {
	if size, ok := s.sizes[n]; ok {
		return size
	}
	if s.sizes == nil {
		s.sizes = map[ast.Node]int{}
	}
	n.Accept(&sizeCounter{sizes: s.sizes})
	return s.sizes[n]
}

// sizeCounter records the expression nodes under each node it leaves.
type sizeCounter struct {
	sizes map[ast.Node]int
	stack []int // per node entered: expression nodes below it so far
}

func (v *sizeCounter) Enter(n ast.Node) (ast.Node, bool) {
	v.stack = append(v.stack, 0)
	return n, false
}

func (v *sizeCounter) Leave(n ast.Node) (ast.Node, bool) {
	size := v.stack[len(v.stack)-1]
	v.stack = v.stack[:len(v.stack)-1]
	if _, ok := n.(ast.ExprNode); ok {
		size++
	}
	v.sizes[n] = size
	if len(v.stack) > 0 {
		v.stack[len(v.stack)-1] += size
	}
	return n, true
}
