package query

import (
	"strings"
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
//     quiver$first(x) and quiver$last(x);
//   - string_agg(x, sep ORDER BY …) (and listagg, group_concat) becomes
//     MySQL's group_concat(x ORDER BY … SEPARATOR sep), the one call
//     with an ORDER BY the grammar takes.
//
// The rewrites change the text's length, so a syntax error after one
// reports a column in the rewritten text. FILTER before OVER (a filtered
// window aggregate) is refused by name.

// maxAggRewrites bounds the rewrite passes over one statement.
const maxAggRewrites = 4096

func rewriteAggSyntax(text, sql string) (string, error) {
	low := strings.ToLower(text)
	if !strings.Contains(low, "filter") && !strings.Contains(low, "first") && !strings.Contains(low, "last") &&
		!strings.Contains(low, "agg") && !strings.Contains(low, "group_concat") {
		return text, nil
	}
	for range maxAggRewrites {
		next, done, err := rewriteAggOnce(text, sql)
		if err != nil || done {
			return next, err
		}
		text = next
	}
	return "", &Error{Kind: ErrInvalid, Msg: "too many FILTER clauses and aggregate rewrites"}
}

// rewriteAggOnce makes the first rewrite the text needs; done when there
// is none.
func rewriteAggOnce(text, sql string) (string, bool, error) {
	var opens []int               // positions of the open parentheses
	lastOpen, lastClose := -1, -1 // the group that closed last
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case c == '\'':
			i = skipString(text, i)
			continue
		case c == '"' || c == '`':
			_, i = quotedIdent(text, i)
			continue
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
				return text, true, nil // the parser reports the parenthesis
			}
			if isWordAt(text, skipSpace(text, end+1), "over") {
				line, col := position(sql, min(i, len(sql)))
				return "", false, &Error{Kind: ErrUnsupported, Line: line, Col: col, Msg: "FILTER (WHERE …) on a window function"}
			}
			name := nameBefore(text, lastOpen)
			cond := text[skipSpace(text, open+1)+len("where") : end]
			return text[:name] + "quiver$filter(" + text[name:lastClose+1] + ", " + cond + ")" + text[end+1:], false, nil
		case isWordAt(text, i, "first") || isWordAt(text, i, "last"):
			w := len("first")
			if text[i]|0x20 == 'l' {
				w = len("last")
			}
			if p := skipSpace(text, i+w); p < len(text) && text[p] == '(' {
				return text[:i] + "quiver$" + strings.ToLower(text[i:i+w]) + text[i+w:], false, nil
			}
		case isWordAt(text, i, "string_agg") || isWordAt(text, i, "listagg") || isWordAt(text, i, "group_concat"):
			w := strings.IndexFunc(text[i:], func(r rune) bool { return r > 127 || !isWordByte(byte(r)) })
			open := skipSpace(text, i+w)
			if open >= len(text) || text[open] != '(' {
				break
			}
			end := closing(text, open)
			if end < 0 {
				return text, true, nil
			}
			order := topLevelWord(text, open+1, end, "order")
			if order < 0 || topLevelWord(text, open+1, end, "separator") >= 0 {
				break
			}
			args := text[open+1 : order]
			sep := "','"
			if comma := topLevelComma(args); comma >= 0 {
				args, sep = args[:comma], strings.TrimSpace(args[comma+1:])
			}
			return text[:i] + "group_concat(" + args + " " + text[order:end] + " SEPARATOR " + sep + ")" + text[end+1:], false, nil
		}
		i++
	}
	return text, true, nil
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
		switch c := text[i]; {
		case c == '\'':
			i = skipString(text, i)
			continue
		case c == '"' || c == '`':
			_, i = quotedIdent(text, i)
			continue
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
		switch c := text[i]; {
		case c == '\'':
			i = skipString(text, i)
			continue
		case c == '"' || c == '`':
			_, i = quotedIdent(text, i)
			continue
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
