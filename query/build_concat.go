package query

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"

	"github.com/quiverdb/quiver/query/expr"
)

// The parser runs with PIPES_AS_CONCAT (parse.go), so a || b arrives as a
// call of concat(a, b), the same node a written concat(a, b) makes. The
// two differ in SQL: || is NULL when either side is, while concat()
// skips NULLs in DuckDB and PostgreSQL (and returns NULL in MySQL). They
// are told apart by position: the node of a || b starts where its left
// operand does, a call starts at its name, before its first argument.
func isPipes(x *ast.FuncCallExpr) bool {
	off := x.OriginTextPosition()
	return len(x.Args) == 2 && off > 0 && x.Args[0].OriginTextPosition() == off
}

// pipesFunc names the calls that are a || b once markPipes has told them
// from written concat() calls, so that restored text (column names,
// messages, a query planned again) keeps them apart: pipesText writes
// them back as ||, and a written concat(a, b) stays concat(a, b).
const pipesFunc = "quiver$pipes"

// markPipes renames the || calls of s to pipesFunc.
func markPipes(s *ast.SelectStmt) { s.Accept(pipesMarker{}) }

// pipesKeptSQL is restoreSQL of a query (a WITH name's, a derived
// table's) that is parsed again from the text, its || regrouped and
// marked first as planning does (fixConcatPrecedence, markPipes):
// restored unmarked, a || b reads back as a written concat(a, b), which
// skips a NULL operand where || is NULL.
func pipesKeptSQL(n ast.Node) string {
	n.Accept(&concatRegrouper{})
	n.Accept(pipesMarker{})
	return restoreSQL(n)
}

type pipesMarker struct{}

func (pipesMarker) Enter(n ast.Node) (ast.Node, bool) {
	if x, ok := n.(*ast.FuncCallExpr); ok && x.FnName.L == ast.Concat && isPipes(x) {
		x.FnName = ast.NewCIStr(pipesFunc)
	}
	return n, false
}

func (pipesMarker) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// concat plans a || b (a written concat() is the registry's: see
// isPipes).
func (b *builder) concat(x *ast.FuncCallExpr, sc scope) (expr.Expr, error) {
	l, err := b.expr(x.Args[0], sc)
	if err != nil {
		return nil, err
	}
	r, err := b.expr(x.Args[1], sc)
	if err != nil {
		return nil, err
	}
	return wrap(b, x)(expr.Concat(l, r))
}

// The grammar binds || tighter than arithmetic (MySQL's PIPES_AS_CONCAT
// rule: its operands are simple expressions), so a + b || c parses as
// a + (b || c). In ANSI SQL, PostgreSQL and DuckDB it is looser than + - *
// / % and tighter than comparisons: (a + b) || c. fixConcatPrecedence
// regroups each run of arithmetic and || outside parentheses by the SQL
// rule: both groupings keep the operands and operators in the order
// written, so reading them left to right and building the tree again by
// precedence is exact. Each node is visited once; a run with only one
// kind of operator is left as the parser made it.
func fixConcatPrecedence(s *ast.SelectStmt) {
	s.Accept(&concatRegrouper{})
}

type concatRegrouper struct{}

// regroupOp is an operator of a run: || or an arithmetic opcode.
type regroupOp struct {
	pipes bool
	op    opcode.Op
}

// precedence: || below + and -, below * / % DIV; 0 for operators whose
// place differs between the grammars (bit operators), which leave the run
// as it is.
func (o regroupOp) precedence() int {
	if o.pipes {
		return 1
	}
	switch o.op {
	case opcode.Plus, opcode.Minus:
		return 2
	case opcode.Mul, opcode.Div, opcode.Mod, opcode.IntDiv:
		return 3
	}
	return 0
}

// runOp returns n's operator when n is an operator of a run.
func runOp(n ast.Node) (regroupOp, bool) {
	switch x := n.(type) {
	case *ast.BinaryOperationExpr:
		o := regroupOp{op: x.Op}
		return o, o.precedence() > 0
	case *ast.FuncCallExpr:
		return regroupOp{pipes: true}, x.FnName.L == pipesFunc || x.FnName.L == ast.Concat && isPipes(x)
	}
	return regroupOp{}, false
}

func (v *concatRegrouper) Enter(n ast.Node) (ast.Node, bool) {
	if _, ok := runOp(n); !ok {
		return n, false
	}
	r := &opRun{}
	r.flatten(n.(ast.ExprNode))
	for i, x := range r.operands { // runs nested in the operands
		y, _ := x.Accept(v)
		r.operands[i] = y.(ast.ExprNode)
	}
	pipes, arith := false, false
	for _, o := range r.ops {
		pipes, arith = pipes || o.pipes, arith || !o.pipes
	}
	if !pipes || !arith {
		return n, true
	}
	out, _ := r.build(0, 1)
	return out, true // Accept hands the node Enter returns to Leave
}

func (v *concatRegrouper) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// opRun is a run of operators as written: operands[i] ops[i] operands[i+1].
type opRun struct {
	operands []ast.ExprNode
	ops      []regroupOp
}

func (r *opRun) flatten(n ast.ExprNode) {
	o, ok := runOp(n)
	switch {
	case !ok:
		r.operands = append(r.operands, n)
	case o.pipes:
		x := n.(*ast.FuncCallExpr)
		r.flatten(x.Args[0])
		r.ops = append(r.ops, o)
		r.flatten(x.Args[1])
	default:
		x := n.(*ast.BinaryOperationExpr)
		r.flatten(x.L)
		r.ops = append(r.ops, o)
		r.flatten(x.R)
	}
}

// build groups operands[i:] by precedence climbing, taking operators of
// at least precedence min, left-associatively; it returns the tree and
// the index of the next operand.
func (r *opRun) build(i, min int) (ast.ExprNode, int) {
	lhs := r.operands[i]
	i++
	for i-1 < len(r.ops) && r.ops[i-1].precedence() >= min {
		o := r.ops[i-1]
		var rhs ast.ExprNode
		rhs, i = r.build(i, o.precedence()+1)
		var n ast.ExprNode
		if o.pipes {
			n = &ast.FuncCallExpr{FnName: ast.NewCIStr(pipesFunc), Args: []ast.ExprNode{lhs, rhs}}
		} else {
			n = &ast.BinaryOperationExpr{Op: o.op, L: lhs, R: rhs}
		}
		// A node starts where its left operand does (isPipes relies on it).
		n.SetOriginTextPosition(lhs.OriginTextPosition())
		lhs = n
	}
	return lhs, i
}

// pipesText writes the pipesFunc(a, b) calls of restored SQL text as
// a || b, as the user wrote them, for column names and messages; text is
// matched restored as is. One pass with a stack of the open parentheses,
// whether each is a ||'s: linear however deep the calls nest.
func pipesText(s string) string {
	call := pipesFunc + "("
	if !strings.Contains(s, call) {
		return s
	}
	var out strings.Builder
	var open []bool // per open parenthesis: a concat's
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\'':
			j := skipString(s, i)
			out.WriteString(s[i:j])
			i = j
			continue
		case c == '"' || c == '`':
			_, j := quotedIdent(s, i)
			out.WriteString(s[i:j])
			i = j
			continue
		case strings.HasPrefix(s[i:], call) && (i == 0 || !isWordByte(s[i-1])):
			open = append(open, true)
			i += len(call)
			continue
		case c == '(':
			open = append(open, false)
		case c == ')' && len(open) > 0:
			concat := open[len(open)-1]
			open = open[:len(open)-1]
			if concat {
				i++
				continue
			}
		case c == ',' && len(open) > 0 && open[len(open)-1]:
			out.WriteString(" ||")
			i++
			continue
		}
		out.WriteByte(c)
		i++
	}
	return out.String()
}
