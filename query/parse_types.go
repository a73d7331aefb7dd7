package query

import (
	"regexp"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"
)

// The TiDB grammar (parse.go) lacks spellings quiver takes: TRY_CAST(x AS
// t), CAST(x AS TIMESTAMP), CAST(x AS TIMESTAMP WITH TIME ZONE) (or
// TIMESTAMPTZ), and CAST to VARCHAR, TEXT, INTEGER and BIGINT. rewriteTypes replaces them, outside string
// literals and quoted names, with text of the same length the grammar
// reads, so every position the parser reports is still the user's:
//
//	TRY_CAST(                 → "    CAST(" (the planner sees TRY_ in the
//	                            original text before the CAST: isTryCast)
//	AS TIMESTAMP)             → AS DATETIME )
//	AS TIMESTAMPTZ)           → AS DATETIME(4))
//	AS TIMESTAMP WITH TIME ZONE) → AS DATETIME(4) + spaces)
//	AS VARCHAR) / TEXT)       → AS CHAR + spaces)
//	AS INTEGER) / BIGINT)     → AS SIGNED + spaces)
//	AS INTERVAL)              → AS JSON + spaces)
//	AS BLOB) / BYTEA) / VARBINARY) → AS YEAR + spaces)
//
// INTERVAL '3 days' becomes INTERVAL '3' DAY, EXTRACT(EPOCH FROM t) (and
// DOW, DOY, ISODOW, … FROM) becomes date_part('epoch', t),
// and a IS [NOT] DISTINCT FROM b becomes a <=> b, MySQL's null-safe
// equality (the planner reads IS DISTINCT, its negation, in the user's
// text: distinctFrom).
//
// DATETIME(4) stands for the zoned type; a DATETIME written by the user
// is TIMESTAMP whatever its precision (castType).

// tzPrecision is the fractional-seconds precision that marks a
// DATETIME as TIMESTAMP WITH TIME ZONE.
const tzPrecision = 4

var (
	tryCastWord = regexp.MustCompile(`(?i)^TRY_CAST\s*\(`)
	// INTERVAL '3 days' (DuckDB and PostgreSQL's spelling) is INTERVAL '3' DAY
	intervalText = regexp.MustCompile(`(?i)^INTERVAL\s+'\s*(-?\d+)\s+(microsecond|second|minute|hour|day|week|month|quarter|year)(s?)\s*'`)
	// an INTERVAL literal: INTERVAL n unit, INTERVAL 'text' [unit]
	intervalWord = regexp.MustCompile(`(?i)^INTERVAL\s+('(?:[^']|'')*'|[-+]?\d+(?:\.\d*)?|\?)(?:\s+(microsecond|second|minute|hour|day|week|month|quarter|year)s?\b)?`)
	// after an INTERVAL literal: what keeps it in the grammar's own forms
	intervalAfter = regexp.MustCompile(`(?i)^\s*(PRECEDING\b|FOLLOWING\b|\+\s*(?:[^\sI]|I[^N]|IN[^T]))`)
	// EXTRACT(EPOCH FROM t) and the other fields MySQL's grammar lacks
	// are date_part('epoch', t)
	extractField = regexp.MustCompile(`(?i)^EXTRACT\s*\(\s*(epoch|dow|doy|isodow|isoyear|yearweek|millisecond|decade|century|millennium|era)\s+FROM\s`)
	isDistinct   = regexp.MustCompile(`(?i)^IS\s+(NOT\s+)?DISTINCT\s+FROM\b`)
	asTimestamp  = regexp.MustCompile(`(?i)^AS\s+(TIMESTAMP\s+WITH\s+TIME\s+ZONE|TIMESTAMPTZ|TIMESTAMP|VARCHAR|TEXT|INTEGER|BIGINT|INTERVAL|BLOB|BYTEA|VARBINARY)\s*\)`)
)

// setTimeZone is SET TIME ZONE 'zone' (SQL's and PostgreSQL's spelling),
// which the grammar lacks: it becomes SET TimeZone= 'zone', the same
// length (a wider gap padded).
var setTimeZone = regexp.MustCompile(`(?i)^(\s*SET\s+)(TIME\s+ZONE)\s`)

// rewriteTypes applies the rewrites above to text.
func rewriteTypes(text string) string {
	if m := setTimeZone.FindStringSubmatchIndex(text); m != nil {
		text = text[:m[4]] + "TimeZone=" + strings.Repeat(" ", m[5]-m[4]-len("TimeZone=")) + text[m[5]:]
	}
	b := []byte(text)
	var casts []bool   // per open parenthesis: a CAST's (AS type is rewritten only there)
	var calls []string // per open parenthesis: the word before it
	for i := 0; i < len(text); {
		c := text[i]
		if j, ok := skipQuoted(text, i); ok {
			i = j
			continue
		}
		switch {
		case c == '(':
			w := strings.ToLower(lastWord(text[:i]))
			casts = append(casts, w == "cast" || w == "try_cast")
			calls = append(calls, w)
		case c == ')':
			if len(casts) > 0 {
				casts = casts[:len(casts)-1]
				calls = calls[:len(calls)-1]
			}
		case i > 0 && isWordByte(text[i-1]):
		case (c == 'i' || c == 'I') && isDistinct.MatchString(text[i:]):
			m := isDistinct.FindStringIndex(text[i:])
			copy(b[i:i+m[1]], "<=>"+strings.Repeat(" ", m[1]-3))
			i += m[1]
			continue
		case (c == 'i' || c == 'I') && intervalWord.MatchString(text[i:]) && !grammarInterval(text, i, calls):
			// a standalone INTERVAL literal → qv$iv(n,'UNIT') or qv$iv('text')
			m := intervalWord.FindStringSubmatchIndex(text[i:])
			repl := intervalFunc + "(" + text[i+m[2]:i+m[3]]
			if m[4] >= 0 {
				repl += ",'" + strings.ToUpper(text[i+m[4]:i+m[5]]) + "'"
			}
			repl += ")"
			copy(b[i:i+m[1]], repl+strings.Repeat(" ", m[1]-len(repl)))
			i += m[1]
			continue
		case (c == 'i' || c == 'I') && intervalText.MatchString(text[i:]):
			// '3 days' → '3' DAY: the same length or one less (padded)
			m := intervalText.FindStringSubmatchIndex(text[i:])
			q := strings.IndexByte(text[i:], '\'')
			repl := "'" + text[i+m[2]:i+m[3]] + "' " + strings.ToUpper(text[i+m[4]:i+m[5]])
			copy(b[i+q:i+m[1]], repl+strings.Repeat(" ", m[1]-q-len(repl)))
			i += m[1]
			continue
		case (c == 'e' || c == 'E') && extractField.MatchString(text[i:]):
			m := extractField.FindStringSubmatchIndex(text[i:])
			repl := "date_part('" + strings.ToLower(text[i+m[2]:i+m[3]]) + "',"
			copy(b[i:i+m[1]], repl+strings.Repeat(" ", m[1]-len(repl)))
			i += m[1]
			continue
		case (c == 't' || c == 'T') && tryCastWord.MatchString(text[i:]):
			copy(b[i:], "    ")
			i += len("TRY_")
			continue
		case (c == 'a' || c == 'A') && len(casts) > 0 && casts[len(casts)-1] && asTimestamp.MatchString(text[i:]):
			m := asTimestamp.FindStringSubmatchIndex(text[i:])
			lo, hi := i+m[2], i+m[3]
			repl := castSpelling[strings.ToUpper(text[lo:hi])]
			if repl == "" {
				repl = "DATETIME(4)" // TIMESTAMP WITH TIME ZONE, any spacing
			}
			copy(b[lo:hi], repl+strings.Repeat(" ", hi-lo-len(repl)))
			i = hi
			continue
		}
		i++
	}
	return string(b)
}

// lastWord is the identifier that ends s, spaces after it ignored.
func lastWord(s string) string {
	s = strings.TrimRight(s, " \t\r\n")
	j := len(s)
	for j > 0 && isWordByte(s[j-1]) {
		j--
	}
	return s[j:]
}

// castSpelling is the grammar's spelling of the type names it lacks, no
// longer than theirs.
var castSpelling = map[string]string{
	"TIMESTAMP": "DATETIME", "TIMESTAMPTZ": "DATETIME(4)", "VARCHAR": "CHAR", "TEXT": "CHAR",
	"INTEGER": "SIGNED", "BIGINT": "SIGNED",
	"INTERVAL": "JSON", // the grammar has no INTERVAL type; quiver has no JSON (build_expr.go's cast)
	"BLOB":     "YEAR", // nor BLOB; quiver has no YEAR
	"BYTEA":    "YEAR", "VARBINARY": "YEAR",
}

// isTryCast reports whether the CAST at byte offset off of the user's
// text was written TRY_CAST.
func isTryCast(sql string, off int) bool {
	return off >= 4 && off+4 <= len(sql) && strings.EqualFold(sql[off-4:off+4], "TRY_CAST")
}

var distinctBefore = regexp.MustCompile(`(?i)\bIS\s+(NOT\s+)?DISTINCT\s+FROM\s*$`)

// distinctFrom reports, for a <=> whose right operand starts at byte off
// of the user's text, whether it was written IS DISTINCT FROM (negate)
// rather than IS NOT DISTINCT FROM or <=>.
func distinctFrom(sql string, off int) (negate bool) {
	if off <= 0 || off > len(sql) {
		return false
	}
	m := distinctBefore.FindStringSubmatch(sql[:off])
	return m != nil && m[1] == ""
}

// markDistinct makes each a <=> b of stmt that sql wrote a IS DISTINCT
// FROM b into NOT (a <=> b), once, as it is parsed: the planner then
// reads <=> as IS NOT DISTINCT FROM whatever text a statement was parsed
// from. (It read the user's text at the operand's position, which a
// query planned again from restored text — a view, a WITH used twice, a
// derived table with conjuncts moved in — does not share: the negation
// was lost.)
func markDistinct(stmt ast.Node, sql string) {
	stmt.Accept(&distinctMarker{sql: sql})
}

type distinctMarker struct{ sql string }

func (v *distinctMarker) Enter(n ast.Node) (ast.Node, bool) { return n, false }

func (v *distinctMarker) Leave(n ast.Node) (ast.Node, bool) {
	x, ok := n.(*ast.BinaryOperationExpr)
	if !ok || x.Op != opcode.NullEQ || !distinctFrom(v.sql, x.R.OriginTextPosition()) {
		return n, true
	}
	not := &ast.UnaryOperationExpr{Op: opcode.Not, V: &ast.ParenthesesExpr{Expr: x}}
	not.SetOriginTextPosition(x.OriginTextPosition())
	return not, true
}

// intervalFunc is the call a standalone INTERVAL literal becomes: the
// grammar (MySQL's) takes INTERVAL only as an operand of + and -, in
// DATE_ADD and in window frames, not as a value of its own. No longer
// than the shortest literal it replaces (INTERVAL 1 DAY: 14 bytes for
// qv$iv(1,'DAY')), so positions stay the user's. The planner reads it as
// an INTERVAL constant (build_interval.go).
const intervalFunc = "qv$iv"

// grammarInterval reports whether the INTERVAL literal at text[i:] is in
// one of the grammar's own forms, left to it: after a binary + or -
// (d - INTERVAL 1 DAY, the form TPC-H uses, planned as a date that stays
// a date), before a + that is not followed by another INTERVAL, as
// DATE_ADD's second argument, and before PRECEDING or FOLLOWING in a
// window frame. Such a literal needs a unit.
func grammarInterval(text string, i int, calls []string) bool {
	m := intervalWord.FindStringSubmatchIndex(text[i:])
	if m[4] < 0 && !intervalText.MatchString(text[i:]) {
		return false // INTERVAL '1 day 2 hours': no unit, a value
	}
	before := strings.TrimRight(text[:i], " \t\r\n")
	if n := len(before); n > 0 && (before[n-1] == '+' || before[n-1] == '-') {
		operand := strings.TrimRight(before[:n-1], " \t\r\n")
		if k := len(operand); k > 0 && (isWordByte(operand[k-1]) || operand[k-1] == ')' || operand[k-1] == '\'' || operand[k-1] == '"' || operand[k-1] == '`') &&
			!strings.EqualFold(lastWord(operand), "SELECT") {
			return true // a binary + or -
		}
	}
	if n := len(before); n > 0 && before[n-1] == ',' && len(calls) > 0 {
		switch calls[len(calls)-1] {
		case "date_add", "date_sub", "adddate", "subdate":
			return true
		}
	}
	return intervalAfter.MatchString(text[i+m[1]:])
}

var (
	intervalCall     = regexp.MustCompile(`qv\$iv\(([^,()']*|'(?:[^']|'')*'), '([A-Z]+)'\)`)
	intervalTextCall = regexp.MustCompile(`qv\$iv\(('(?:[^']|'')*')\)`)
	castStandIn      = regexp.MustCompile(`(?i)\bas (year|json)\)`)
)

// unrewriteTypes puts back, in a node's restored text (a column's name,
// an error's), what rewriteTypes replaced for the grammar: INTERVAL
// literals and the BLOB and INTERVAL type names.
func unrewriteTypes(text string) string {
	if !strings.Contains(text, intervalFunc) && !strings.Contains(text, " as ") {
		return text
	}
	text = intervalCall.ReplaceAllString(text, "INTERVAL $1 $2")
	text = intervalTextCall.ReplaceAllString(text, "INTERVAL $1")
	return castStandIn.ReplaceAllStringFunc(text, func(m string) string {
		if strings.Contains(strings.ToLower(m), "year") {
			return "as blob)"
		}
		return "as interval)"
	})
}
