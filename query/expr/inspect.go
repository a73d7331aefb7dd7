package expr

import "sort"

// Kind names what an expression node is, for planners that take trees
// apart (predicate pushdown, pruning).
type Kind int

const (
	KindOther Kind = iota // an Expr implemented outside this package
	KindColumn
	KindLiteral
	KindArith
	KindCompare
	KindAnd
	KindOr
	KindNot
	KindIsNull
	KindIsNotNull
	KindIn
	KindBetween
	KindLike
	KindCast
	KindCase
	KindCoalesce
	KindNegate
	KindAddInterval
	KindStored    // AsStored: Args[0] in a stored type
	KindConcat    // l || r
	KindExtract   // EXTRACT(Part FROM Args[0])
	KindSubstring // substring(Args[0], Args[1][, Args[2]])
	KindCall      // a registered function Name(Args...) (funcs.go)
)

// Node describes one expression node.
type Node struct {
	Kind Kind
	// Args are the operands in order: l, r (Arith, Compare, And, Or,
	// Concat); e
	// (Not, IsNull, IsNotNull, Like, Cast, Negate, AddInterval, Extract);
	// s, start and the length if given (Substring); e then the
	// items (In); e, lo, hi (Between); cond1, then1, ..., else (Case, the
	// else a NULL literal when absent); the arguments (Coalesce).
	Args []Expr
	// Column and Name are the batch column index and name (KindColumn);
	// Name is also the function a KindCall calls.
	Column int
	Name   string
	// Value is a literal's value (KindLiteral): nil, bool, int64, float64,
	// decimal128.Num (unscaled; the scale is in Type()), string, or int32
	// days since 1970-01-01 for a Date32.
	Value   any
	ArithOp ArithOp
	CmpOp   CmpOp
	// Pattern and Negated describe a LIKE.
	Pattern string
	Negated bool
	// Months and Days are AddInterval's interval.
	Months, Days int32
	// Part is the field an Extract takes.
	Part DatePart
	// Implicit marks a cast that coercion inserted.
	Implicit bool
}

// Inspect describes e's top node.
func Inspect(e Expr) Node {
	switch x := e.(type) {
	case *sharedExpr:
		return Inspect(x.Expr)
	case *column:
		return Node{Kind: KindColumn, Column: x.index, Name: x.name}
	case *literal:
		return Node{Kind: KindLiteral, Value: x.value()}
	case *arithExpr:
		return Node{Kind: KindArith, Args: x.children(), ArithOp: x.op}
	case *compareExpr:
		return Node{Kind: KindCompare, Args: x.children(), CmpOp: x.op}
	case *boolExpr:
		k := map[string]Kind{"AND": KindAnd, "OR": KindOr, "NOT": KindNot}[x.text]
		return Node{Kind: k, Args: x.children()}
	case *nullTest:
		if x.not {
			return Node{Kind: KindIsNotNull, Args: x.children()}
		}
		return Node{Kind: KindIsNull, Args: x.children()}
	case *inExpr:
		return Node{Kind: KindIn, Args: x.children()}
	case *betweenExpr:
		return Node{Kind: KindBetween, Args: x.children()}
	case *likeExpr:
		return Node{Kind: KindLike, Args: x.children(), Pattern: x.pattern, Negated: x.negate}
	case *castExpr:
		return Node{Kind: KindCast, Args: x.children(), Implicit: x.implicit}
	case *caseExpr:
		return Node{Kind: KindCase, Args: x.children()}
	case *coalesceExpr:
		return Node{Kind: KindCoalesce, Args: x.children()}
	case *negateExpr:
		return Node{Kind: KindNegate, Args: x.children()}
	case *intervalExpr:
		return Node{Kind: KindAddInterval, Args: x.children(), Months: x.months, Days: x.days}
	case *storedExpr:
		return Node{Kind: KindStored, Args: x.children()}
	case *concatExpr:
		return Node{Kind: KindConcat, Args: x.children()}
	case *extractExpr:
		return Node{Kind: KindExtract, Args: x.children(), Part: x.part}
	case *substringExpr:
		return Node{Kind: KindSubstring, Args: x.children()}
	case *callExpr:
		return Node{Kind: KindCall, Args: x.children(), Name: x.name}
	}
	return Node{Kind: KindOther}
}

// referenced returns a predicate telling which columns es read (every
// column when one of them is not ours).
func referenced(es ...Expr) func(int) bool {
	cols := map[int]bool{}
	all := false
	var walk func(e Expr)
	walk = func(e Expr) {
		switch x := e.(type) {
		case *column:
			cols[x.index] = true
		case node:
			for _, c := range x.children() {
				walk(c)
			}
		default:
			all = true
		}
	}
	for _, e := range es {
		walk(e)
	}
	if all {
		return func(int) bool { return true }
	}
	return func(i int) bool { return cols[i] }
}

// Columns returns the batch columns e reads, ascending (for projection
// pushdown). Only columns built with Column are seen.
func Columns(e Expr) []int {
	seen := map[int]bool{}
	var walk func(e Expr)
	walk = func(e Expr) {
		if c, ok := e.(*column); ok {
			seen[c.index] = true
		}
		for _, c := range childrenOf(e) {
			walk(c)
		}
	}
	walk(e)
	out := make([]int, 0, len(seen))
	for c := range seen {
		out = append(out, c)
	}
	sort.Ints(out)
	return out
}
