package query

import "strings"

// FULL [OUTER] JOIN is not in the TiDB grammar (MySQL has none), and
// worse, `t FULL JOIN u ON …` parses as t aliased FULL, inner-joined with
// u. So before parsing, FULL [OUTER] JOIN becomes STRAIGHT_JOIN, which
// the grammar takes with ON (as an inner join with a flag, which MySQL
// uses only as a join-order hint); the planner reads the flag as FULL
// (bindRefs). A STRAIGHT_JOIN the user wrote is refused first, so the
// flag means FULL only. The replacement is longer than FULL JOIN; it is
// recorded in edits, so node positions map back to the user's text
// (parse_aggs.go), though a syntax error after it points a few columns
// off.
func rewriteFullJoin(text, sql string, edits *[]textEdit) (string, error) {
	lower := strings.ToLower(text)
	if !strings.Contains(lower, "full") && !strings.Contains(lower, "straight_join") {
		return text, nil
	}
	for i := 0; i < len(text); {
		if j, ok := skipQuoted(text, i); ok {
			i = j
			continue
		}
		switch {
		case i > 0 && isWordByte(text[i-1]):
		case isWordAt(text, i, "straight_join"):
			line, col := position(sql, min(originalOffset(i, *edits), len(sql)))
			return "", &Error{Kind: ErrUnsupported, Line: line, Col: col, Msg: "STRAIGHT_JOIN (quiver orders joins itself; write JOIN)"}
		case isWordAt(text, i, "full"):
			j := skipSpace(text, i+len("full"))
			if isWordAt(text, j, "outer") {
				j = skipSpace(text, j+len("outer"))
			}
			if isWordAt(text, j, "join") {
				text = edit(text, i, j+len("join")-i, "STRAIGHT_JOIN", edits) // parse_aggs.go
				i += len("STRAIGHT_JOIN")
				continue
			}
		}
		i++
	}
	return text, nil
}

// restoredFullJoin writes back as FULL JOIN the STRAIGHT_JOIN of a
// restored statement (restoreSQL), so that parsing it again reads a
// FULL JOIN, not the STRAIGHT_JOIN rewriteFullJoin refuses.
func restoredFullJoin(text string) string {
	if !strings.Contains(text, "straight_join") {
		return text
	}
	var b strings.Builder
	last := 0
	for i := 0; i < len(text); {
		if j, ok := skipQuoted(text, i); ok {
			i = j
			continue
		}
		switch {
		case i > 0 && isWordByte(text[i-1]):
		case isWordAt(text, i, "straight_join"):
			b.WriteString(text[last:i])
			b.WriteString("full join")
			i += len("straight_join")
			last = i
			continue
		}
		i++
	}
	b.WriteString(text[last:])
	return b.String()
}
