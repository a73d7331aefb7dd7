package expr

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/internal/rawmem"
)

// LIKE is our kernel: arrow-go has no match_like. Patterns are compiled
// once: '%' matches any run of characters, '_' exactly one character (one
// UTF-8 sequence, or one byte of invalid UTF-8), '\' makes the next
// character literal. Matching is case-sensitive and covers the whole
// string. Prefix, suffix, substring and exact patterns use strings
// functions; others a backtracking matcher that is O(len(s) × len(pattern))
// at worst.

// likeToken is a literal run, or a wildcard when lit is empty: any (%),
// or one (_).
type likeToken struct {
	lit string
	any bool
}

// compileLike splits a pattern into tokens, merging adjacent literals and
// adjacent '%'.
func compileLike(pattern string) ([]likeToken, error) {
	var toks []likeToken
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			toks = append(toks, likeToken{lit: lit.String()})
			lit.Reset()
		}
	}
	for i := 0; i < len(pattern); i++ {
		switch c := pattern[i]; c {
		case '\\':
			if i+1 == len(pattern) {
				return nil, errorf(ErrInvalid, "LIKE pattern %s ends with the escape character", quote(pattern))
			}
			i++
			lit.WriteByte(pattern[i])
		case '%':
			flush()
			if len(toks) == 0 || !toks[len(toks)-1].any {
				toks = append(toks, likeToken{any: true})
			}
		case '_':
			flush()
			toks = append(toks, likeToken{})
		default:
			lit.WriteByte(c)
		}
	}
	flush()
	return toks, nil
}

// likeMatcher returns the function deciding whether s matches.
func likeMatcher(toks []likeToken) func(s string) bool {
	isLit := func(t likeToken) bool { return t.lit != "" }
	switch {
	case len(toks) == 0:
		return func(s string) bool { return s == "" }
	case len(toks) == 1 && isLit(toks[0]):
		lit := toks[0].lit
		return func(s string) bool { return s == lit }
	case len(toks) == 1 && toks[0].any:
		return func(string) bool { return true }
	case len(toks) == 2 && isLit(toks[0]) && toks[1].any:
		lit := toks[0].lit
		return func(s string) bool { return strings.HasPrefix(s, lit) }
	case len(toks) == 2 && toks[0].any && isLit(toks[1]):
		lit := toks[1].lit
		return func(s string) bool { return strings.HasSuffix(s, lit) }
	case len(toks) == 3 && toks[0].any && isLit(toks[1]) && toks[2].any:
		lit := toks[1].lit
		return func(s string) bool { return strings.Contains(s, lit) }
	}
	if m := likeSegments(toks); m != nil {
		return m
	}
	return func(s string) bool { return likeMatch(toks, s) }
}

// likeSegments matches a pattern of literals and '%' only ('%a%b%', 'a%b'):
// the literals are found in order, each at its leftmost place after the
// one before (strings.Index, which searches fast), the first one anchored
// at the start unless the pattern starts with '%', the last at the end
// unless it ends with '%'. Leftmost is safe: with only '%' between them,
// an earlier place for a literal never rules out a match a later one
// allows. nil when the pattern has a '_' or is a single anchored literal.
func likeSegments(toks []likeToken) func(s string) bool {
	if len(toks) == 0 {
		return nil
	}
	var lits []string
	for _, t := range toks {
		switch {
		case t.lit != "":
			lits = append(lits, t.lit)
		case !t.any:
			return nil
		}
	}
	head, tail := !toks[0].any, !toks[len(toks)-1].any // anchored
	if len(lits) == 0 || len(lits) == 1 && head && tail {
		return nil
	}
	return func(s string) bool {
		mid := lits
		if head {
			if !strings.HasPrefix(s, mid[0]) {
				return false
			}
			s, mid = s[len(mid[0]):], mid[1:]
		}
		last := ""
		if tail {
			last, mid = mid[len(mid)-1], mid[:len(mid)-1]
		}
		for _, lit := range mid {
			i := strings.Index(s, lit)
			if i < 0 {
				return false
			}
			s = s[i+len(lit):]
		}
		return !tail || strings.HasSuffix(s, last)
	}
}

// likeMatch is the general matcher: it advances through s and the tokens,
// remembering the last '%' to retry from one character further on a
// mismatch. One remembered '%' suffices: a later '%' can absorb whatever an
// earlier one would have.
func likeMatch(toks []likeToken, s string) bool {
	ti, si := 0, 0
	starT, starS := -1, 0
	for {
		if ti < len(toks) {
			t := toks[ti]
			switch {
			case t.any:
				starT, starS = ti, si
				ti++
				continue
			case t.lit != "":
				if strings.HasPrefix(s[si:], t.lit) {
					ti++
					si += len(t.lit)
					continue
				}
			default: // '_'
				if si < len(s) {
					_, w := utf8.DecodeRuneInString(s[si:])
					ti++
					si += w
					continue
				}
			}
		} else if si == len(s) {
			return true
		}
		// mismatch: let the last '%' absorb one more character
		if starT < 0 || starS >= len(s) {
			return false
		}
		_, w := utf8.DecodeRuneInString(s[starS:])
		starS += w
		ti, si = starT+1, starS
	}
}

// LikePrefix returns the literal text before the pattern's first wildcard,
// and whether the pattern means exactly "starts with prefix" (the prefix
// followed only by '%'s, at least one), as scan pruning wants:
// "abc%" is ("abc", true); "abc" ("abc", false); "a_c%" ("a", false).
func LikePrefix(pattern string) (prefix string, onlyPrefix bool) {
	toks, err := compileLike(pattern)
	if err != nil {
		// the literal text up to the dangling escape is still a prefix
		p, _ := LikePrefix(pattern[:len(pattern)-1])
		return p, false
	}
	if len(toks) == 0 {
		return "", false
	}
	if toks[0].lit != "" {
		prefix, toks = toks[0].lit, toks[1:]
	}
	return prefix, len(toks) == 1 && toks[0].any
}

type likeExpr struct {
	e       Expr
	pattern string
	negate  bool
	match   func(string) bool
	// lowered is lower(lowered) when e is that call (ILIKE is LIKE over
	// lower()): Eval then lower-cases each value into a scratch buffer
	// and matches it there, instead of building lower()'s whole array
	// first (a third of the string-function benchmark's time).
	lowered Expr
	// first is the literal after a leading '%' ("special" of
	// '%special%requests%'): a value without it cannot match, which
	// likeRows tests over a batch's whole buffer at once. onlyContains:
	// the pattern is '%first%', so containing it is matching.
	first        string
	onlyContains bool
}

// Like is e LIKE pattern (e NOT LIKE pattern when negate); NULL when e is.
// A pattern ending in a lone '\' is ErrInvalid.
func Like(e Expr, pattern string, negate bool) (Expr, error) {
	if err := checkEngine("LIKE", e); err != nil {
		return nil, err
	}
	e = nullAs(e, typString)
	if e.Type().ID() != arrow.STRING {
		return nil, errorf(ErrType, "LIKE needs a string, got %s (%s LIKE %s)", e.Type(), e, quote(pattern))
	}
	toks, err := compileLike(pattern)
	if err != nil {
		return nil, err
	}
	x := &likeExpr{e: e, pattern: pattern, negate: negate, match: likeMatcher(toks)}
	if len(toks) >= 2 && toks[0].any && toks[1].lit != "" {
		x.first = toks[1].lit
		x.onlyContains = len(toks) == 3 && toks[2].any
	}
	if c, ok := e.(*callExpr); ok && c.name == "lower" && len(c.args) == 1 && c.args[0].Type().ID() == arrow.STRING {
		x.lowered = c.args[0]
	}
	return fold(x), nil
}

func (x *likeExpr) Type() arrow.DataType { return typBool }
func (x *likeExpr) children() []Expr     { return []Expr{x.e} }
func (x *likeExpr) String() string       { return text(x) }
func (x *likeExpr) writeText(b *strings.Builder) {
	op := " LIKE "
	if x.negate {
		op = " NOT LIKE "
	}
	writeParen(b, x.e)
	b.WriteString(op + quote(x.pattern))
}

func (x *likeExpr) Eval(ctx context.Context, mem memory.Allocator, batch arrow.RecordBatch) (arrow.Array, error) {
	if x.lowered != nil {
		return x.evalLowered(ctx, mem, batch)
	}
	a, err := evalArray(ctx, mem, x.e, batch)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	s, ok := a.(*array.String)
	if !ok {
		return nullArray(mem, typBool, a.Len()), nil
	}
	return x.likeRows(mem, s, s.ValueBytes()), nil
}

// evalLowered is Eval of lower(s) LIKE pattern: s's whole value buffer
// lowered at once when it is ASCII, else each value lowered (as lower()
// does it) into one reused buffer.
func (x *likeExpr) evalLowered(ctx context.Context, mem memory.Allocator, batch arrow.RecordBatch) (arrow.Array, error) {
	a, err := evalArray(ctx, mem, x.lowered, batch)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	s, ok := a.(*array.String)
	if !ok {
		return nullArray(mem, typBool, a.Len()), nil
	}
	if low, release, ok := lowerASCII(s.ValueBytes()); ok {
		defer release()
		return x.likeRows(mem, s, low), nil
	}
	var buf []byte
	return boolsOf(mem, s, func(i int) bool {
		buf = appendLower(buf[:0], s.Value(i))
		return x.match(rawmem.String(buf)) != x.negate
	}), nil
}
