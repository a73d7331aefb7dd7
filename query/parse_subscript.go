package query

import (
	"fmt"
	"strings"
)

// The grammar has no subscripts: l[1] and s['f'] are syntax errors to
// it. Before parsing, each x[i] outside strings and quoted names becomes
// array_extract(x, i) — DuckDB's own name for it, which takes a list and
// an index or a struct and a field name — and the planner reads it as
// that call (build_nested.go). x is what ends right before the bracket:
// a name, possibly dotted or quoted (l, t.l, "My List"), a parenthesized
// expression or a call, or an earlier subscript (l[1][2] is
// array_extract(array_extract(l, 1), 2)). A bracket with no such operand
// before it opens a list literal ([1, 2]), and l[a:b] is a slice: both
// are refused by name. The edits are recorded, so positions still point
// into the user's text (remapPositions).

// subscriptFunc is the call x[i] becomes.
const subscriptFunc = "array_extract"

// notOperands are the words after which a bracket opens a list literal,
// not a subscript.
var notOperands = map[string]bool{
	"select": true, "where": true, "and": true, "or": true, "not": true, "in": true, "then": true, "else": true,
	"when": true, "by": true, "on": true, "as": true, "is": true, "like": true, "between": true, "case": true,
	"from": true, "having": true, "values": true, "array": true, "distinct": true, "all": true, "set": true,
	"qualify": true, "limit": true, "offset": true, "ilike": true, "escape": true, "return": true,
}

func rewriteSubscripts(text, sql string, edits *[]textEdit) (string, error) {
	if !strings.Contains(text, "[") {
		return text, nil
	}
	var opens []int                // positions of the open parentheses
	lastOpen, lastClose := -1, -1  // the group that closed last
	quoteStart, quoteEnd := -1, -1 // the quoted name read last
	fail := func(at int, kind error, format string, args ...any) error {
		line, col := position(sql, originalOffset(at, *edits))
		return &Error{Kind: kind, Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
	}
	for i := 0; i < len(text); {
		switch c := text[i]; c {
		case '\'':
			i = skipString(text, i)
			continue
		case '"', '`':
			_, j := quotedIdent(text, i)
			quoteStart, quoteEnd = i, j
			i = j
			continue
		case '(':
			opens = append(opens, i)
		case ')':
			if len(opens) > 0 {
				lastOpen, lastClose = opens[len(opens)-1], i
				opens = opens[:len(opens)-1]
			}
		case '.':
			// l[1].k: a field of what a subscript read (the grammar takes
			// no name after a call)
			if i-1 != lastClose || lastClose < 0 {
				break
			}
			start := nameBefore(text, lastOpen)
			if fn := strings.ToLower(text[start:lastOpen]); fn != subscriptFunc && fn != "struct_extract" {
				break
			}
			name, end := fieldAfter(text, i+1)
			if end < 0 {
				break
			}
			call := ", '" + strings.ReplaceAll(name, "'", "''") + "')"
			text = edit(text, i, end-i, call, edits)
			text = edit(text, start, 0, "struct_extract(", edits)
			lastOpen, lastClose = start+len("struct_extract"), i+len("struct_extract(")+len(call)-1
			i = lastClose + 1
			continue
		case '[':
			start := operandStart(text, i, lastOpen, lastClose, quoteStart, quoteEnd)
			if start < 0 {
				return "", fail(i, ErrUnsupported, "list literals ([…]): quiver reads lists from tables, and indexes them as l[i]")
			}
			end := closingBracket(text, i)
			if end < 0 {
				return "", fail(i, ErrSyntax, "[ without a closing ]")
			}
			inner := text[i+1 : end]
			if strings.TrimSpace(inner) == "" {
				return "", fail(i, ErrSyntax, "[] without an index")
			}
			if topLevelColon(inner) {
				return "", fail(i, ErrUnsupported, "list slices (l[a:b]); index one element as l[i]")
			}
			// right to left, so each edit's position holds in the text it
			// was made in
			text = edit(text, end, 1, ")", edits)
			text = edit(text, i, 1, ", ", edits)
			text = edit(text, start, 0, subscriptFunc+"(", edits)
			opens = append(opens, start+len(subscriptFunc)) // closed by the ) that was ]
			lastOpen, lastClose, quoteStart, quoteEnd = -1, -1, -1, -1
			i += len(subscriptFunc) + 1 + 2 // past ", ": the index may hold subscripts too
			continue
		}
		i++
	}
	return text, nil
}

// operandStart is where the operand of the subscript whose bracket is at
// open starts, or -1 when none ends right before it.
func operandStart(text string, open, lastOpen, lastClose, quoteStart, quoteEnd int) int {
	j := open
	for j > 0 && isSpace(text[j-1]) {
		j--
	}
	if j == 0 {
		return -1
	}
	var s int
	switch c := text[j-1]; {
	case c == ')' && j-1 == lastClose:
		s = nameBefore(text, lastOpen)
		if name := strings.TrimSpace(text[s:lastOpen]); name == "" || notOperands[strings.ToLower(name)] {
			s = lastOpen // IN (…)[1] and the like: the group alone
		}
		return s
	case (c == '"' || c == '`') && j == quoteEnd:
		s = quoteStart
	case isWordByte(c):
		s = j
		for s > 0 && isWordByte(text[s-1]) {
			s--
		}
		w := strings.ToLower(text[s:j])
		if notOperands[w] || w[0] >= '0' && w[0] <= '9' {
			return -1
		}
	default:
		return -1
	}
	// a qualified name: t.l, "t"."l"
	for s > 1 && text[s-1] == '.' {
		k := s - 1
		switch c := text[k-1]; {
		case c == '"' || c == '`':
			q := strings.LastIndexByte(text[:k-1], c)
			if q < 0 {
				return s
			}
			s = q
		case isWordByte(c):
			s = k
			for s > 0 && isWordByte(text[s-1]) {
				s--
			}
		default:
			return s
		}
	}
	return s
}

// nameEnd is where the word starting at s ends.
func nameEnd(text string, s int) int {
	for s < len(text) && isWordByte(text[s]) {
		s++
	}
	return s
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// closingBracket is the position of the ] that closes the [ at open
// (brackets nest; strings and quoted names are skipped), or -1.
func closingBracket(text string, open int) int {
	depth := 0
	for i := open; i < len(text); {
		if j, ok := skipQuoted(text, i); ok {
			i = j
			continue
		}
		switch text[i] {
		case '[':
			depth++
		case ']':
			depth--
			if depth == 0 {
				return i
			}
		}
		i++
	}
	return -1
}

// topLevelColon reports a colon in s outside parentheses, brackets,
// strings and quoted names: a slice's.
func topLevelColon(s string) bool {
	depth := 0
	for i := 0; i < len(s); {
		if j, ok := skipQuoted(s, i); ok {
			i = j
			continue
		}
		switch s[i] {
		case '(', '[':
			depth++
		case ')', ']':
			depth--
		case ':':
			if depth == 0 {
				return true
			}
		}
		i++
	}
	return false
}

// fieldAfter reads the field name at text[i:] (a word or a quoted name)
// and where it ends, or -1 when there is none.
func fieldAfter(text string, i int) (string, int) {
	if i >= len(text) {
		return "", -1
	}
	if c := text[i]; c == '"' || c == '`' {
		id, end := quotedIdent(text, i)
		return id.text, end
	}
	end := nameEnd(text, i)
	if end == i || text[i] >= '0' && text[i] <= '9' {
		return "", -1
	}
	return text[i:end], end
}

// subscriptText writes the subscripts the rewrite made back as the user
// wrote them, in restored SQL text (column names, errors):
// array_extract(l, 1) is l[1] again. The innermost call goes first.
func subscriptText(s string) string {
	return restoreCalls(s, subscriptFunc, func(x, i string) string { return x + "[" + i + "]" })
}

// restoreCalls writes each call fn(a, b) in s, the innermost first, as
// write(a, b) does (both arguments trimmed): how restored SQL text reads
// a rewrite's call as the user wrote it (subscriptText, castText). Text
// it cannot read as such a call is left as it is.
func restoreCalls(s, fn string, write func(a, b string) string) string {
	call := fn + "("
	for range strings.Count(s, call) {
		at := strings.LastIndex(s, call)
		if at < 0 || at > 0 && isWordByte(s[at-1]) {
			return s
		}
		open := at + len(fn)
		end := closing(s, open)
		if end < 0 {
			return s
		}
		args := s[open+1 : end]
		comma := topLevelComma(args)
		if comma < 0 {
			return s
		}
		s = s[:at] + write(strings.TrimSpace(args[:comma]), strings.TrimSpace(args[comma+1:])) + s[end+1:]
	}
	return s
}
