package query

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
)

// SELECT * EXCLUDE (a, b), DuckDB's: every column but a and b (t.*
// EXCLUDE … too; one name may go without parentheses). The grammar has no
// EXCLUDE, so rewriteStarExclude writes each excluded name as a sentinel
// SELECT item right after the star:
//
//	SELECT * EXCLUDE (a, "B c") FROM t  →  SELECT *, "quiver$exclude$a", "quiver$exclude$B c" FROM t
//
// and the planner takes them off the SELECT list before anything reads
// it (starExcludes), dropping those columns where it expands the star. A name that no column of the star has is an error, as in DuckDB.

const excludeSentinel = "quiver$exclude$"

var starExclude = regexp.MustCompile(`(?i)^\*\s*EXCLUDE\s*`)

func rewriteStarExclude(text string, edits *[]textEdit) string {
	if !containsFold(text, "exclude") {
		return text
	}
	for i := 0; i < len(text); {
		if j, ok := skipQuoted(text, i); ok {
			i = j
			continue
		}
		if text[i] != '*' {
			i++
			continue
		}
		m := starExclude.FindStringIndex(text[i:])
		if m == nil {
			i++
			continue
		}
		start := i + m[1]
		var names []string
		end := -1
		if start < len(text) && text[start] == '(' {
			if c := closing(text, start); c >= 0 {
				names, end = excludeNames(text[start+1:c]), c+1
			}
		} else if name, e := fieldAfter(text, start); e >= 0 && !isWordAt(text, start, "from") {
			names, end = []string{name}, e
		}
		if end < 0 || names == nil {
			i++ // not an EXCLUDE list: the parser reports it
			continue
		}
		var b strings.Builder
		for _, n := range names {
			b.WriteString(`, "` + excludeSentinel + strings.ReplaceAll(n, `"`, `""`) + `"`)
		}
		text = edit(text, i+1, end-i-1, b.String(), edits)
		i += 1 + b.Len()
	}
	return text
}

// excludeNames reads the comma-separated names of an EXCLUDE list, or
// nil when one is not a name.
func excludeNames(list string) []string {
	var names []string
	for _, part := range strings.Split(list, ",") {
		p := strings.TrimSpace(part)
		name, e := fieldAfter(p, 0)
		// t.a: the column a (a star's columns are named alone)
		for e >= 0 && e < len(p) && p[e] == '.' {
			name, e = fieldAfter(p, e+1)
		}
		if e < 0 || e != len(p) {
			return nil
		}
		names = append(names, name)
	}
	return names
}

// starExcludes returns the SELECT list without the EXCLUDE sentinels
// and, per star, the names it excludes (fields itself is not changed).
func starExcludes(fields []*ast.SelectField) ([]*ast.SelectField, map[*ast.SelectField][]string, error) {
	var excl map[*ast.SelectField][]string
	kept := make([]*ast.SelectField, 0, len(fields))
	for _, f := range fields {
		c, ok := f.Expr.(*ast.ColumnNameExpr)
		if !ok || !strings.HasPrefix(c.Name.Name.O, excludeSentinel) {
			kept = append(kept, f)
			continue
		}
		if len(kept) == 0 || kept[len(kept)-1].WildCard == nil {
			return nil, nil, &Error{Kind: ErrSyntax, Msg: "EXCLUDE follows * or t.*"}
		}
		star := kept[len(kept)-1]
		if excl == nil {
			excl = map[*ast.SelectField][]string{}
		}
		excl[star] = append(excl[star], strings.TrimPrefix(c.Name.Name.O, excludeSentinel))
	}
	return kept, excl, nil
}

// excludeItems drops from a star's items the columns it excludes, each of
// which must be one of them.
func excludeItems(items []selectItem, names []string, star *ast.SelectField) ([]selectItem, error) {
	for _, n := range names {
		before := len(items)
		items = slices.DeleteFunc(items, func(it selectItem) bool { return strings.EqualFold(it.name, n) })
		if len(items) == before {
			return nil, fmt.Errorf("EXCLUDE: no column %q in %s", n, restore(star))
		}
	}
	return items, nil
}
