package query

import (
	"fmt"
	"strconv"
	"strings"
)

// VALUES lists as tables, as DuckDB and PostgreSQL take them:
//
//	VALUES (1, 'a'), (2, NULL)                      -- columns col0, col1
//	SELECT * FROM (VALUES (1, 'a'), (2, NULL)) AS v(x, y)
//
// The grammar has VALUES only after INSERT. Before parsing,
// rewriteValues makes a VALUES list that starts a statement or a
// parenthesized query a UNION ALL of one-row SELECTs, its first row
// naming the columns (col0, col1, … or the names listed after the
// derived table's alias, which are then dropped):
//
//	(SELECT 1 AS "x", 'a' AS "y" UNION ALL SELECT 2, NULL) AS v
//
// so the columns take the types UNION ALL gives them (DuckDB's VALUES
// unifies its rows' types as its UNION does). The edits are made piece
// by piece, right to left, so every value keeps its position in the
// user's text (the planner reads TRY_CAST there, errors cite it).

// maxValuesRows bounds the rows of one VALUES list: each is a SELECT of
// its own to plan.
const maxValuesRows = 10_000

func rewriteValues(text, sql string, edits *[]textEdit) (string, error) {
	if !containsFold(text, "values") {
		return text, nil
	}
	for i := 0; i < len(text); {
		if j, ok := skipQuoted(text, i); ok {
			i = j
			continue
		}
		if (text[i]|0x20) == 'v' && (i == 0 || !isWordByte(text[i-1])) && isWordAt(text, i, "values") && startsQuery(text, i) {
			next, err := rewriteValuesAt(text, sql, i, edits)
			if err != nil {
				return "", err
			}
			text = next
			i += len("select")
			continue
		}
		i++
	}
	return text, nil
}

// startsQuery reports whether the word at i starts a statement or a
// parenthesized query (not INSERT … VALUES).
func startsQuery(text string, i int) bool {
	j := i
	for j > 0 && isSpace(text[j-1]) {
		j--
	}
	return j == 0 || text[j-1] == '('
}

// rewriteValuesAt rewrites the VALUES list whose word is at text[at:].
func rewriteValuesAt(text, sql string, at int, edits *[]textEdit) (string, error) {
	fail := func(off int, format string, args ...any) error {
		line, col := position(sql, originalOffset(off, *edits))
		return &Error{Kind: ErrSyntax, Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
	}
	type row struct {
		open, close int
		commas      []int // top-level commas between its values
	}
	var rows []row
	i := at + len("values")
	for {
		for i < len(text) && isSpace(text[i]) {
			i++
		}
		if i >= len(text) || text[i] != '(' {
			return "", fail(i, "VALUES needs rows in parentheses: VALUES (1, 'a'), (2, 'b')")
		}
		end := closing(text, i)
		if end < 0 {
			return "", fail(i, "VALUES row without a closing )")
		}
		r := row{open: i, close: end, commas: topLevelCommas(text, i+1, end)}
		if strings.TrimSpace(text[i+1:end]) == "" {
			return "", fail(i, "an empty VALUES row")
		}
		if len(rows) > 0 && len(r.commas) != len(rows[0].commas) {
			return "", fail(i, "VALUES rows of %d and %d values", len(rows[0].commas)+1, len(r.commas)+1)
		}
		if rows = append(rows, r); len(rows) > maxValuesRows {
			return "", fail(at, "more than %d VALUES rows (load the rows as a table)", maxValuesRows)
		}
		i = end + 1
		j := i
		for j < len(text) && isSpace(text[j]) {
			j++
		}
		if j >= len(text) || text[j] != ',' {
			break
		}
		i = j + 1
	}
	n := len(rows[0].commas) + 1
	names := make([]string, n)
	for k := range names {
		names[k] = "col" + strconv.Itoa(k)
	}
	// (VALUES …) AS v(x, y): the names come from the list, dropped after
	if open := precedingParen(text, at); open >= 0 {
		if end := closing(text, open); end >= 0 && strings.TrimSpace(text[i:end]) == "" {
			listOpen, listEnd, list := aliasColumnList(text, end+1)
			if listOpen >= 0 {
				if len(list) != n {
					return "", fail(listOpen, "%d column names for VALUES rows of %d values", len(list), n)
				}
				names = list
				text = edit(text, listOpen, listEnd-listOpen, "", edits)
			}
		}
	}
	// right to left: each edit's position holds in the text it is made in
	for k := len(rows) - 1; k >= 0; k-- {
		r := rows[k]
		if k == 0 {
			text = edit(text, r.close, 1, ` AS "`+names[n-1]+`"`, edits)
			for c := n - 2; c >= 0; c-- {
				text = edit(text, r.commas[c], 0, ` AS "`+names[c]+`"`, edits)
			}
			text = edit(text, r.open, 1, "", edits)
			continue
		}
		text = edit(text, r.close, 1, "", edits)
		text = edit(text, r.open, 1, "", edits)
		// the comma between the rows before it
		comma := strings.LastIndexByte(text[:r.open], ',')
		text = edit(text, comma, 1, " UNION ALL SELECT ", edits)
	}
	return edit(text, at, len("values"), "SELECT", edits), nil
}

// precedingParen is the position of the ( right before the word at i, or
// -1.
func precedingParen(text string, i int) int {
	for i > 0 && isSpace(text[i-1]) {
		i--
	}
	if i > 0 && text[i-1] == '(' {
		return i - 1
	}
	return -1
}

// aliasColumnList reads [AS] name (c1, c2, …) at text[i:] and returns
// where the parenthesized list starts and ends and its names; -1 when
// there is none.
func aliasColumnList(text string, i int) (int, int, []string) {
	for i < len(text) && isSpace(text[i]) {
		i++
	}
	if isWordAt(text, i, "as") {
		i += len("as")
		for i < len(text) && isSpace(text[i]) {
			i++
		}
	}
	_, end := fieldAfter(text, i) // the alias
	if end < 0 {
		return -1, -1, nil
	}
	open := end
	for open < len(text) && isSpace(text[open]) {
		open++
	}
	if open >= len(text) || text[open] != '(' {
		return -1, -1, nil
	}
	close := closing(text, open)
	if close < 0 {
		return -1, -1, nil
	}
	var names []string
	for _, part := range strings.Split(text[open+1:close], ",") {
		name, e := fieldAfter(strings.TrimSpace(part), 0)
		if e < 0 || e != len(strings.TrimSpace(part)) {
			return -1, -1, nil
		}
		names = append(names, name)
	}
	return open, close + 1, names
}

// topLevelCommas is the positions of the commas of text[from:to] outside
// nested parentheses, brackets, strings and quoted names.
func topLevelCommas(text string, from, to int) []int {
	var out []int
	depth := 0
	for i := from; i < to; {
		if j, ok := skipQuoted(text, i); ok {
			i = j
			continue
		}
		switch text[i] {
		case '(', '[':
			depth++
		case ')', ']':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, i)
			}
		}
		i++
	}
	return out
}
