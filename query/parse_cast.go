package query

import (
	"fmt"
	"regexp"
	"strings"
)

// Casts as DuckDB and PostgreSQL spell them. The TiDB grammar has no x::T
// and takes only MySQL's few CAST target types (SIGNED, DECIMAL, CHAR,
// DATE, DATETIME, TIME, DOUBLE, …). Before anything else reads the text,
// rewriteCasts makes every cast one the grammar takes:
//
//	x::T, CAST(x AS T)  → CAST(x AS T)          T a type parse_types.go
//	                                            spells for the grammar
//	                      quiver$cast(x, 'T')   any other T: INTEGER, INT,
//	                                            SMALLINT, BOOLEAN, NUMERIC(p,s), …
//	                                            (INTEGER here, not the grammar's
//	                                            SIGNED: its range is checked)
//	TRY_CAST(x AS T)    → quiver$try_cast(x, 'T') for those other T
//
// and the planner reads quiver$cast's type name itself (build_cast.go).
// x is what ends right before the ::, as for a subscript
// (parse_subscript.go): a name, possibly dotted or quoted, a literal, a
// parenthesized expression or a call (CASE … END too), a parameter, an
// earlier cast (x::INT::VARCHAR is a cast of a cast) or a subscript. ::
// binds tighter than any operator: -1::INT is -(CAST(1 AS INT)), a + b::INT
// casts b. The edits are recorded, so positions still point into the
// user's text (remapPositions), and column names read CAST(x AS T) again
// (castText).

const (
	castFunc    = "quiver$cast"
	tryCastFunc = "quiver$try_cast"
)

// grammarCastType matches the type names parse_types.go or the grammar
// itself takes as a CAST target, whole: these stay CAST(x AS T). JSON,
// YEAR and DATETIME(n) are parse_types.go's stand-ins for INTERVAL, BLOB
// and TIMESTAMPTZ, which a view's or WITH query's restored text holds
// when it is parsed again.
var grammarCastType = regexp.MustCompile(`(?i)^(TIMESTAMP\s+WITH\s+TIME\s+ZONE|TIMESTAMPTZ|TIMESTAMP|VARCHAR|TEXT|BIGINT|INTERVAL|BLOB|BYTEA|VARBINARY|SIGNED|DOUBLE|DATE|DATETIME(\s*\(\s*\d+\s*\))?|TIME|CHAR|JSON|YEAR|DECIMAL\s*\(\s*\d+\s*(,\s*\d+\s*)?\))$`)

// castTypeText matches a type name after :: or AS: words (DOUBLE
// PRECISION, TIMESTAMP WITH TIME ZONE, CHARACTER VARYING) and an optional
// parenthesized list of numbers.
var castTypeText = regexp.MustCompile(`(?i)^(TIMESTAMP\s+WITH(OUT)?\s+TIME\s+ZONE|TIME\s+WITH(OUT)?\s+TIME\s+ZONE|DOUBLE\s+PRECISION|CHARACTER\s+VARYING|[A-Za-z_][A-Za-z_0-9]*)(\s*\(\s*\d+\s*(,\s*\d+\s*)?\))?`)

// maxCastRewrites bounds the rewrites of one statement.
const maxCastRewrites = 4096

func rewriteCasts(text, sql string, edits *[]textEdit) (string, error) {
	if !strings.Contains(text, "::") && !containsFold(text, "cast") {
		return text, nil
	}
	var (
		opens                  []int // positions of the open parentheses
		lastOpen, lastClose    = -1, -1
		quoteStart, quoteEnd   = -1, -1 // the quoted name or string read last
		cases                  []int    // positions of the open CASE words
		caseStart, caseEnd     = -1, -1 // the CASE … END read last
		brackets               []int    // positions of the open brackets
		bracketOpen, bracketAt = -1, -1 // the subscript read last: [ and ]
		rewrites               int
	)
	fail := func(at int, kind error, format string, args ...any) error {
		line, col := position(sql, originalOffset(at, *edits))
		return &Error{Kind: kind, Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
	}
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case c == '\'' || c == '"' || c == '`':
			j, _ := skipQuoted(text, i)
			quoteStart, quoteEnd = i, j
			i = j
			continue
		case c == '(':
			opens = append(opens, i)
		case c == ')':
			if len(opens) > 0 {
				lastOpen, lastClose = opens[len(opens)-1], i
				opens = opens[:len(opens)-1]
				if rewritten, open, next := castCall(text, lastOpen, lastClose, edits); next > i+1 {
					text, lastOpen, lastClose, i = rewritten, open, next-1, next
					rewrites++
					continue
				}
			}
		case c == '[':
			brackets = append(brackets, i)
		case c == ']':
			if len(brackets) > 0 {
				bracketOpen, bracketAt = brackets[len(brackets)-1], i
				brackets = brackets[:len(brackets)-1]
			}
		case isWordByte(c) && (i == 0 || !isWordByte(text[i-1])):
			switch {
			case isWordAt(text, i, "case"):
				cases = append(cases, i)
			case isWordAt(text, i, "end") && len(cases) > 0:
				caseStart, caseEnd = cases[len(cases)-1], i+len("end")
				cases = cases[:len(cases)-1]
			}
			i = nameEnd(text, i)
			continue
		case c == ':' && i+1 < len(text) && text[i+1] == ':':
			if rewrites++; rewrites > maxCastRewrites {
				return "", fail(i, ErrInvalid, "more than %d casts in one statement", maxCastRewrites)
			}
			start := castOperand(text, i, lastOpen, lastClose, quoteStart, quoteEnd, caseStart, caseEnd, bracketOpen, bracketAt)
			if start < 0 {
				return "", fail(i, ErrSyntax, ":: without a value before it")
			}
			t := i + 2
			for t < len(text) && isSpace(text[t]) {
				t++
			}
			m := castTypeText.FindStringIndex(text[t:])
			if m == nil {
				return "", fail(i, ErrSyntax, ":: without a type after it")
			}
			typ := text[t : t+m[1]]
			end := t + m[1]
			if strings.HasPrefix(strings.TrimLeft(text[end:], " \t\r\n"), "[") {
				return "", fail(t, ErrUnsupported, "casts to list types (%s[])", typ)
			}
			var open, close string
			if grammarCastType.MatchString(typ) {
				open, close = "CAST(", " AS "+typ+")"
			} else {
				open, close = castFunc+"(", ", '"+typ+"')"
			}
			text = edit(text, i, end-i, close, edits)
			text = edit(text, start, 0, open, edits)
			// the cast is now the group that closed last: x::A::B casts it
			lastOpen, lastClose = start+len(open)-1, i+len(open)+len(close)-1
			quoteStart, quoteEnd, caseStart, caseEnd, bracketOpen, bracketAt = -1, -1, -1, -1, -1, -1
			i = lastClose + 1
			continue
		}
		i++
	}
	return text, nil
}

// castCall rewrites the CAST(x AS T) or TRY_CAST(x AS T) whose
// parentheses are at open and close when T is not a grammar type, and
// returns the text, where its open parenthesis is now and where to go on
// (close+1 when nothing changed, past the rewritten call otherwise).
func castCall(text string, open, close int, edits *[]textEdit) (string, int, int) {
	name := nameBefore(text, open)
	fn := strings.ToLower(strings.TrimSpace(text[name:open]))
	if fn != "cast" && fn != "try_cast" {
		return text, open, close + 1
	}
	as := topLevelWord(text, open+1, close, "as")
	if as < 0 {
		return text, open, close + 1
	}
	typ := strings.TrimSpace(text[as+len("as") : close])
	if grammarCastType.MatchString(typ) || castTypeText.FindString(typ) != typ {
		return text, open, close + 1 // the grammar's (or an error of its own)
	}
	call := castFunc
	if fn == "try_cast" {
		call = tryCastFunc
	}
	tail := ", '" + typ + "')"
	text = edit(text, as, close+1-as, tail, edits)
	text = edit(text, name, open+1-name, call+"(", edits)
	return text, name + len(call), as + (len(call) + 1 - (open + 1 - name)) + len(tail)
}

// castOperand is where the operand of the :: at colon starts, or -1 when
// none ends right before it. The other arguments are what the scan read
// last (see rewriteCasts).
func castOperand(text string, colon, lastOpen, lastClose, quoteStart, quoteEnd, caseStart, caseEnd, bracketOpen, bracketAt int) int {
	j := colon
	for j > 0 && isSpace(text[j-1]) {
		j--
	}
	if j == 0 {
		return -1
	}
	switch c := text[j-1]; {
	case c == ']' && j-1 == bracketAt && bracketOpen >= 0:
		// l[1]::INT: the subscript's operand, which ends at its [
		return operandStart(text, bracketOpen, lastOpen, lastClose, quoteStart, quoteEnd)
	case c == '\'' && j == quoteEnd:
		return quoteStart
	case c == '?':
		return j - 1
	case isWordByte(c) && j == caseEnd:
		return caseStart
	case isWordByte(c) && c >= '0' && c <= '9' || c == '.':
		// a number: 1, 1.5, 1e3 (a qualified name ends in a letter or _)
		s := j
		for s > 0 && (isWordByte(text[s-1]) || text[s-1] == '.') {
			s--
		}
		if text[s] >= '0' && text[s] <= '9' || text[s] == '.' {
			return s
		}
	}
	return operandStart(text, j, lastOpen, lastClose, quoteStart, quoteEnd)
}

// castText writes the casts rewriteCasts made back as CAST(x AS T), in
// restored SQL text (column names, errors).
func castText(s string) string {
	s = restoreCalls(s, castFunc, func(x, t string) string { return "CAST(" + x + " AS " + strings.Trim(t, "'") + ")" })
	return restoreCalls(s, tryCastFunc, func(x, t string) string { return "TRY_CAST(" + x + " AS " + strings.Trim(t, "'") + ")" })
}
