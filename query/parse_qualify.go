package query

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
)

// QUALIFY filters rows by their window functions, as WHERE does by
// columns and HAVING by aggregates (DuckDB, Snowflake, BigQuery):
//
//	SELECT k, v FROM t QUALIFY row_number() OVER (PARTITION BY k ORDER BY v DESC) = 1
//
// The TiDB grammar has no QUALIFY. It sits where HAVING does (after
// GROUP BY and HAVING, before ORDER BY), so rewriteQualify replaces the
// word, outside string literals and quoted names, with "HAVING " (the
// same length: every position the parser reports is still the user's),
// and the planner knows a HAVING is a QUALIFY by the user's text before
// its condition (isQualify). A SELECT that has both is refused: it would
// have two HAVING clauses.

// rewriteQualify rewrites QUALIFY as HAVING; sql is the user's text, for
// errors.
func rewriteQualify(text, sql string) (string, error) {
	if !containsFold(text, "qualify") {
		return text, nil
	}
	b := []byte(text)
	having := []bool{false} // per open parenthesis: a HAVING seen in its SELECT
	for i := 0; i < len(text); {
		c := text[i]
		if j, ok := skipQuoted(text, i); ok {
			i = j
			continue
		}
		switch {
		case c == '(':
			having = append(having, false)
		case c == ')':
			if len(having) > 1 {
				having = having[:len(having)-1]
			}
		case i > 0 && isWordByte(text[i-1]):
		case isWordAt(text, i, "select"):
			having[len(having)-1] = false
		case isWordAt(text, i, "having"):
			having[len(having)-1] = true
		case isWordAt(text, i, "qualify"):
			if having[len(having)-1] {
				line, col := position(sql, i)
				return "", &Error{Kind: ErrUnsupported, Line: line, Col: col,
					Msg: "QUALIFY and HAVING in one SELECT (filter the grouped rows in a subquery)"}
			}
			copy(b[i:], "HAVING ")
			i += len("qualify")
			continue
		}
		i++
	}
	return string(b), nil
}

// isWordAt reports whether the word w (lower case) is at text[i:], whole.
func isWordAt(text string, i int, w string) bool {
	return len(text)-i >= len(w) && strings.EqualFold(text[i:i+len(w)], w) &&
		(len(text) == i+len(w) || !isWordByte(text[i+len(w)]))
}

// isQualify reports whether a HAVING clause whose condition is cond was
// written QUALIFY in sql.
func isQualify(sql string, cond ast.ExprNode) bool {
	off := cond.OriginTextPosition()
	if off <= 0 || off > len(sql) {
		return false
	}
	before := strings.TrimRight(sql[:off], " \t\r\n(")
	return len(before) >= len("qualify") && strings.EqualFold(before[len(before)-len("qualify"):], "qualify")
}
