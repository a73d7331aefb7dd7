package query

import (
	"fmt"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
)

// The TiDB grammar lacks three spellings of DuckDB's aggregates; before
// parsing, rewriteAggSyntax turns each into one it has, outside string
// literals and quoted names:
//
//   - agg(args) FILTER (WHERE cond) becomes quiver$filter(agg(args),
//     cond), which asAggregates (build_aggfuncs.go) turns back into the
//     aggregate with the condition as a trailing quiver$where(cond)
//     argument, planned as a filter of the rows the aggregate sees (so it
//     holds for every aggregate, count(*) and first/last included, and
//     the aggregate's text, by which the planner matches it, includes
//     the condition);
//   - first(x) and last(x), whose names are keywords, become
//     quiver$first(x) and quiver$last(x), and cardinality(m), a map
//     function named by a keyword, quiver$cardinality(m);
//   - string_agg(x, sep ORDER BY …) (and listagg, group_concat) becomes
//     MySQL's group_concat(x ORDER BY … SEPARATOR sep), the one call
//     with an ORDER BY the grammar takes;
//   - an aggregate the grammar has no window form of (median, string_agg,
//     arg_min, …) followed by OVER becomes max(quiver$win_median(x))
//     OVER …, which the window planner unwraps (plan_window.go);
//     first(x) OVER … becomes first_value(x) OVER ….
//
// The rewrites change the text's length; each records its edits, and
// once the text is parsed, remapPositions moves every node's position
// back to the user's text, which the planner reads at those positions
// (stddev as written, TRY_CAST, QUALIFY, quoted names) and errors cite.
// A syntax error reports a column in the rewritten text. FILTER before
// OVER (a filtered window aggregate) is refused by name.

// maxAggRewrites bounds the rewrites of one statement.
const maxAggRewrites = 4096

// textEdit is one replacement: at byte at of the text then, del bytes
// became ins bytes.
type textEdit struct{ at, del, ins int }

// edit replaces text[at:at+del] with s, recording it.
func edit(text string, at, del int, s string, edits *[]textEdit) string {
	*edits = append(*edits, textEdit{at: at, del: del, ins: len(s)})
	return text[:at] + s + text[at+del:]
}

func rewriteAggSyntax(text, sql string, edits *[]textEdit) (string, error) {
	if !containsFold(text, "filter") && !containsFold(text, "first") && !containsFold(text, "last") &&
		!containsFold(text, "agg") && !containsFold(text, "group_concat") && !containsFold(text, "over") &&
		!containsFold(text, "cardinality") {
		return text, nil
	}
	return rewriteAggs(text, sql, edits)
}

// originalOffset maps an offset in the rewritten text back to the text
// before edits; one inside inserted text maps to where the edit was.
func originalOffset(off int, edits []textEdit) int {
	for i := len(edits) - 1; i >= 0; i-- {
		e := edits[i]
		switch {
		case off >= e.at+e.ins:
			off += e.del - e.ins
		case off > e.at:
			off = e.at
		}
	}
	return off
}

// remapPositions moves the positions of stmt's nodes back through edits.
func remapPositions(stmt ast.Node, edits []textEdit) {
	stmt.Accept(positionMapper{edits})
}

type positionMapper struct{ edits []textEdit }

func (m positionMapper) Enter(n ast.Node) (ast.Node, bool) {
	n.SetOriginTextPosition(originalOffset(n.OriginTextPosition(), m.edits))
	return n, false
}

func (positionMapper) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// rewriteAggs makes the rewrites in one pass, recording the edits.
// After a rewrite the scan goes on where the rewritten text starts, with
// what it knew of the text before (every rewrite is of a closed call, so
// the open parentheses are all before it): a statement is scanned about
// once however many rewrites it needs.
func rewriteAggs(text, sql string, edits *[]textEdit) (string, error) {
	var opens []int               // positions of the open parentheses
	lastOpen, lastClose := -1, -1 // the group that closed last
	rewrites := 0
	// resume goes on scanning the rewritten text at at.
	resume := func(at int) (int, error) {
		if rewrites++; rewrites > maxAggRewrites {
			return 0, &Error{Kind: ErrInvalid, Msg: fmt.Sprintf("more than %d FILTER clauses and aggregate rewrites", maxAggRewrites)}
		}
		for len(opens) > 0 && opens[len(opens)-1] >= at {
			opens = opens[:len(opens)-1]
		}
		lastOpen, lastClose = -1, -1
		return at, nil
	}
	var err error
	for i := 0; i < len(text); {
		c := text[i]
		if j, ok := skipQuoted(text, i); ok {
			i = j
			continue
		}
		switch {
		case c == '(':
			opens = append(opens, i)
		case c == ')':
			if len(opens) > 0 {
				lastOpen, lastClose = opens[len(opens)-1], i
				opens = opens[:len(opens)-1]
			}
		case i > 0 && (isWordByte(text[i-1]) || text[i-1] == '$' || text[i-1] == '.'):
		case isWordAt(text, i, "filter"):
			if lastClose < 0 || strings.TrimSpace(text[lastClose+1:i]) != "" {
				break
			}
			open := skipSpace(text, i+len("filter"))
			if open >= len(text) || text[open] != '(' || !isWordAt(text, skipSpace(text, open+1), "where") {
				break
			}
			end := closing(text, open)
			if end < 0 {
				return text, nil // the parser reports the parenthesis
			}
			if isWordAt(text, skipSpace(text, end+1), "over") {
				line, col := position(sql, min(originalOffset(i, *edits), len(sql)))
				return "", &Error{Kind: ErrUnsupported, Line: line, Col: col, Msg: "FILTER (WHERE …) on a window function"}
			}
			name := nameBefore(text, lastOpen)
			cond := skipSpace(text, skipSpace(text, open+1)+len("where"))
			// agg(args) FILTER (WHERE cond) → quiver$filter(agg(args), cond)
			text = edit(text, lastClose+1, cond-(lastClose+1), ", ", edits)
			text = edit(text, name, 0, filterFunc+"(", edits)
			if i, err = resume(name); err != nil {
				return "", err
			}
			continue
		case isWordAt(text, i, "first") || isWordAt(text, i, "last"):
			w := len("first")
			if text[i]|0x20 == 'l' {
				w = len("last")
			}
			if p := skipSpace(text, i+w); p < len(text) && text[p] == '(' {
				if calledOver(text, i+w) {
					// over a window frame, first and last are first_value and last_value
					text = edit(text, i+w, 0, "_value", edits)
					if i, err = resume(i); err != nil {
						return "", err
					}
					continue
				}
				text = edit(text, i, w, "quiver$"+strings.ToLower(text[i:i+w]), edits)
				if i, err = resume(i); err != nil {
					return "", err
				}
				continue
			}
		case text[i]|0x20 == 'c' && isWordAt(text, i, "cardinality"):
			// a keyword too: the map function (build_nested.go)
			if p := skipSpace(text, i+len("cardinality")); p < len(text) && text[p] == '(' {
				text = edit(text, i, len("cardinality"), "quiver$cardinality", edits)
				if i, err = resume(i); err != nil {
					return "", err
				}
				continue
			}
		case windowless[strings.ToLower(wordFrom(text, i))] && calledOver(text, i+len(wordFrom(text, i))):
			// name(args) OVER … → max(quiver$win_name(args)) OVER …, a
			// window call the grammar takes (plan_window.go unwraps it)
			w := wordFrom(text, i)
			open := skipSpace(text, i+len(w))
			end := closing(text, open)
			if topLevelWord(text, open+1, end, "order") >= 0 || topLevelWord(text, open+1, end, "distinct") >= 0 {
				line, col := position(sql, min(originalOffset(i, *edits), len(sql)))
				return "", &Error{Kind: ErrUnsupported, Line: line, Col: col,
					Msg: strings.ToLower(w) + "(DISTINCT …) or (… ORDER BY …) as a window function"}
			}
			text = edit(text, end+1, 0, ")", edits)
			text = edit(text, i, open+1-i, "max("+winFuncPrefix+strings.ToLower(w)+"(", edits)
			if i, err = resume(i); err != nil {
				return "", err
			}
			continue
		case isWordAt(text, i, "string_agg") || isWordAt(text, i, "listagg") || isWordAt(text, i, "group_concat"):
			open := skipSpace(text, i+len(wordFrom(text, i)))
			if open >= len(text) || text[open] != '(' {
				break
			}
			end := closing(text, open)
			if end < 0 {
				return text, nil
			}
			order := topLevelWord(text, open+1, end, "order")
			if order < 0 || topLevelWord(text, open+1, end, "separator") >= 0 {
				break
			}
			// string_agg(x, sep ORDER BY k) → group_concat(x ORDER BY k SEPARATOR sep),
			// x and k where they were
			sep := "','"
			text = edit(text, end, 0, " SEPARATOR ", edits) // the separator is added below
			if comma := topLevelComma(text[open+1 : order]); comma >= 0 {
				comma += open + 1
				sep = strings.TrimSpace(text[comma+1 : order])
				text = edit(text, comma, order-comma, " ", edits)
			}
			end = closing(text, open)
			text = edit(text, end, 0, sep, edits)
			text = edit(text, i, open+1-i, "group_concat(", edits)
			if i, err = resume(i); err != nil {
				return "", err
			}
			continue
		}
		i++
	}
	return text, nil
}

// windowless are the aggregates the grammar takes only as function
// calls, without OVER; followed by OVER, one is rewritten as
// max(quiver$win_name(args)) OVER, which the window planner unwraps.
var windowless = map[string]bool{"string_agg": true, "listagg": true, "median": true, "quantile_cont": true,
	"quantile_disc": true, "quantile": true, "approx_quantile": true, "bool_and": true, "bool_or": true,
	"count_if": true, "any_value": true, "arg_min": true, "arg_max": true, "argmin": true, "argmax": true,
	"min_by": true, "max_by": true, "approx_count_distinct": true}

// winFuncPrefix names the wrapped call of a windowless aggregate.
const winFuncPrefix = "quiver$win_"

// calledOver reports whether text[i:] is a call's parenthesized
// arguments followed by OVER.
func calledOver(text string, i int) bool {
	p := skipSpace(text, i)
	if p >= len(text) || text[p] != '(' {
		return false
	}
	end := closing(text, p)
	return end >= 0 && isWordAt(text, skipSpace(text, end+1), "over")
}

// wordFrom is the identifier at text[i:].
func wordFrom(text string, i int) string {
	j := i
	for j < len(text) && isWordByte(text[j]) {
		j++
	}
	return text[i:j]
}

func skipSpace(text string, i int) int {
	for i < len(text) && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r') {
		i++
	}
	return i
}

// closing is the position of the parenthesis that closes the one at
// open, or -1.
func closing(text string, open int) int {
	depth := 0
	for i := open; i < len(text); {
		if j, ok := skipQuoted(text, i); ok {
			i = j
			continue
		}
		switch c := text[i]; {
		case c == '(':
			depth++
		case c == ')':
			depth--
			if depth == 0 {
				return i
			}
		}
		i++
	}
	return -1
}

// nameBefore is where the function name before the parenthesis at open
// starts (open itself when there is none).
func nameBefore(text string, open int) int {
	i := open
	for i > 0 && (text[i-1] == ' ' || text[i-1] == '\t' || text[i-1] == '\n' || text[i-1] == '\r') {
		i--
	}
	for i > 0 && (isWordByte(text[i-1]) || text[i-1] == '$') {
		i--
	}
	return i
}

// topLevelWord is the position of the word w in text[from:to] outside
// nested parentheses, strings and quoted names, or -1.
func topLevelWord(text string, from, to int, w string) int {
	depth := 0
	for i := from; i < to; {
		if j, ok := skipQuoted(text, i); ok {
			i = j
			continue
		}
		switch c := text[i]; {
		case c == '(':
			depth++
		case c == ')':
			depth--
		case depth == 0 && (i == from || !isWordByte(text[i-1])) && isWordAt(text, i, w):
			return i
		}
		i++
	}
	return -1
}

// topLevelComma is the position of the last comma of s outside nested
// parentheses, strings and quoted names, or -1.
func topLevelComma(s string) int {
	depth, last := 0, -1
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case c == '\'':
			i = skipString(s, i)
			continue
		case c == '"' || c == '`':
			_, i = quotedIdent(s, i)
			continue
		case c == '(':
			depth++
		case c == ')':
			depth--
		case c == ',' && depth == 0:
			last = i
		}
		i++
	}
	return last
}
