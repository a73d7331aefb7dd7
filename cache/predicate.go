package cache

import (
	"fmt"
	"strings"
)

// Predicate is a boolean expression over the columns of a batch, evaluated
// per row with SQL three-valued logic (see the package documentation). The
// implementations are Cmp, And, Or, Not, In, Between, IsNull, IsNotNull and
// Prefix. Col fields index the batch's columns (and the stats slice given to
// [CanSkip]).
type Predicate interface {
	fmt.Stringer
	// prune returns (neverTrue, neverFalse): whether the statistics prove
	// that no row evaluates to TRUE, and that no row evaluates to FALSE.
	// UNKNOWN rows are compatible with both.
	prune(stats []ColumnStats) (neverTrue, neverFalse bool)
}

// Op is a comparison operator.
type Op uint8

const (
	Eq Op = iota
	Ne
	Lt
	Le
	Gt
	Ge
)

var opNames = [...]string{"=", "<>", "<", "<=", ">", ">="}

func (o Op) String() string {
	if int(o) < len(opNames) {
		return opNames[o]
	}
	return fmt.Sprintf("Op(%d)", uint8(o))
}

// negate returns the operator that is TRUE exactly where o is FALSE (on
// non-null operands).
func (o Op) negate() Op {
	return [...]Op{Eq: Ne, Ne: Eq, Lt: Ge, Le: Gt, Gt: Le, Ge: Lt}[o]
}

type (
	// Cmp is "column Op Val". It is UNKNOWN when the row or Val is NULL.
	Cmp struct {
		Col int
		Op  Op
		Val Value
	}
	// And is TRUE when every operand is; the empty And is TRUE.
	And []Predicate
	// Or is TRUE when any operand is; the empty Or is FALSE.
	Or []Predicate
	// Not is TRUE when X is FALSE, UNKNOWN when X is.
	Not struct{ X Predicate }
	// In is "column IN (Vals...)", that is Col = v1 OR Col = v2 ...; an empty
	// list is FALSE.
	In struct {
		Col  int
		Vals []Value
	}
	// Between is "column BETWEEN Lo AND Hi", that is Col >= Lo AND Col <= Hi.
	Between struct {
		Col    int
		Lo, Hi Value
	}
	// IsNull and IsNotNull are never UNKNOWN.
	IsNull    struct{ Col int }
	IsNotNull struct{ Col int }
	// Prefix is TRUE when the (string or binary) column starts with P,
	// UNKNOWN on NULL rows, FALSE otherwise.
	Prefix struct {
		Col int
		P   []byte
	}
)

// CanSkip reports whether stats, one entry per column of a batch, prove that
// no row of the batch satisfies p, so the batch need not be decoded. It is
// conservative: false means "maybe". Literals whose Kind differs from the
// column's bounds prove nothing. A Col outside stats is a planner bug and
// panics.
func CanSkip(p Predicate, stats []ColumnStats) bool {
	if len(stats) > 0 && stats[0].Rows == 0 {
		return true
	}
	neverTrue, _ := p.prune(stats)
	return neverTrue
}

func col(stats []ColumnStats, c int) ColumnStats {
	if c < 0 || c >= len(stats) {
		panic(fmt.Sprintf("cache: predicate column %d outside batch of %d columns", c, len(stats)))
	}
	return stats[c]
}

func (p Cmp) prune(stats []ColumnStats) (bool, bool) {
	s := col(stats, p.Col)
	return cmpNeverTrue(s, p.Op, p.Val), cmpNeverTrue(s, p.Op.negate(), p.Val)
}

// cmpNeverTrue reports whether "x op v" is TRUE on no row. On a non-null row
// "x op v" is FALSE exactly where "x negate(op) v" is TRUE, and both are
// UNKNOWN on null rows, so cmpNeverTrue(negate(op)) is Cmp's neverFalse.
func cmpNeverTrue(s ColumnStats, op Op, v Value) bool {
	if v.IsNull() || s.AllNull() {
		return true // every row is UNKNOWN
	}
	if !s.HasBounds || s.Min.Kind != v.Kind {
		return false
	}
	lo, hi := compareSQL(s.Min, v), compareSQL(s.Max, v)
	switch op {
	case Eq:
		return lo > 0 || hi < 0
	case Ne:
		return lo == 0 && hi == 0
	case Lt:
		return lo >= 0
	case Le:
		return lo > 0
	case Gt:
		return hi <= 0
	case Ge:
		return hi < 0
	}
	panic(fmt.Sprintf("cache: unknown comparison %d", op))
}

func (p And) prune(stats []ColumnStats) (neverTrue, neverFalse bool) {
	neverFalse = true
	for _, x := range p {
		t, f := x.prune(stats)
		neverTrue = neverTrue || t // one operand never TRUE: neither is And
		neverFalse = neverFalse && f
	}
	return neverTrue, neverFalse
}

func (p Or) prune(stats []ColumnStats) (neverTrue, neverFalse bool) {
	neverTrue = true
	for _, x := range p {
		t, f := x.prune(stats)
		neverTrue = neverTrue && t
		neverFalse = neverFalse || f // one operand never FALSE: neither is Or
	}
	return neverTrue, neverFalse
}

func (p Not) prune(stats []ColumnStats) (bool, bool) {
	t, f := p.X.prune(stats)
	return f, t
}

// In is the OR of "Col = v" over Vals.
func (p In) prune(stats []ColumnStats) (neverTrue, neverFalse bool) {
	s := col(stats, p.Col)
	neverTrue = true
	for _, v := range p.Vals {
		neverTrue = neverTrue && cmpNeverTrue(s, Eq, v)
		neverFalse = neverFalse || cmpNeverTrue(s, Ne, v)
	}
	return neverTrue, neverFalse
}

// Between is "Col >= Lo AND Col <= Hi".
func (p Between) prune(stats []ColumnStats) (neverTrue, neverFalse bool) {
	s := col(stats, p.Col)
	neverTrue = cmpNeverTrue(s, Ge, p.Lo) || cmpNeverTrue(s, Le, p.Hi)
	neverFalse = cmpNeverTrue(s, Lt, p.Lo) && cmpNeverTrue(s, Gt, p.Hi)
	// An empty range is never TRUE, whatever the bounds.
	if p.Lo.Kind == p.Hi.Kind && compareSQL(p.Lo, p.Hi) > 0 {
		neverTrue = true
	}
	return neverTrue, neverFalse
}

func (p IsNull) prune(stats []ColumnStats) (bool, bool) {
	s := col(stats, p.Col)
	return s.Nulls == 0, s.AllNull()
}

func (p IsNotNull) prune(stats []ColumnStats) (bool, bool) {
	s := col(stats, p.Col)
	return s.AllNull(), s.Nulls == 0
}

// prune uses that the values starting with P are exactly the byte strings in
// [P, successor(P)).
func (p Prefix) prune(stats []ColumnStats) (neverTrue, neverFalse bool) {
	s := col(stats, p.Col)
	if s.AllNull() {
		return true, true
	}
	if !s.HasBounds || s.Min.Kind != KindBytes {
		return false, false
	}
	neverTrue = s.Max.S < string(p.P)
	if succ, ok := prefixSuccessor(p.P); ok && s.Min.S >= succ {
		neverTrue = true
	}
	// Both bounds in [P, successor(P)) put every value there.
	neverFalse = hasPrefixBytes(s.Min.S, p.P) && hasPrefixBytes(s.Max.S, p.P)
	return neverTrue, neverFalse
}

// prefixSuccessor returns the least byte string greater than every string
// starting with p, or false if there is none (p empty or all 0xff).
func prefixSuccessor(p []byte) (string, bool) {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] != 0xff {
			b := append([]byte(nil), p[:i+1]...)
			b[i]++
			return string(b), true
		}
	}
	return "", false
}

func colName(c int) string { return fmt.Sprintf("$%d", c) }

func (p Cmp) String() string { return colName(p.Col) + " " + p.Op.String() + " " + p.Val.String() }

func (p And) String() string { return join(p, " AND ", "TRUE") }
func (p Or) String() string  { return join(p, " OR ", "FALSE") }

func join(ps []Predicate, sep, empty string) string {
	if len(ps) == 0 {
		return empty
	}
	parts := make([]string, len(ps))
	for i, x := range ps {
		parts[i] = x.String()
	}
	return "(" + strings.Join(parts, sep) + ")"
}

func (p Not) String() string { return "NOT " + parenthesize(p.X) }

func parenthesize(p Predicate) string {
	switch p.(type) {
	case And, Or:
		return p.String() // already parenthesized
	}
	return "(" + p.String() + ")"
}

func (p In) String() string {
	parts := make([]string, len(p.Vals))
	for i, v := range p.Vals {
		parts[i] = v.String()
	}
	return colName(p.Col) + " IN (" + strings.Join(parts, ", ") + ")"
}

func (p Between) String() string {
	return colName(p.Col) + " BETWEEN " + p.Lo.String() + " AND " + p.Hi.String()
}

func (p IsNull) String() string    { return colName(p.Col) + " IS NULL" }
func (p IsNotNull) String() string { return colName(p.Col) + " IS NOT NULL" }
func (p Prefix) String() string {
	return "starts_with(" + colName(p.Col) + ", " + String(string(p.P)).String() + ")"
}
