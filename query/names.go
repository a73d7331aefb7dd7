package query

import (
	"fmt"
	"sort"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/quiverdb/quiver/cache"
)

// Table names. The engine's tables are those of its cache.Cache, shown as
// schema "main" of catalog "quiver" (the Flight SQL server lists them so);
// a table may be qualified by that schema (main.lineitem) or by both
// (quiver.main.lineitem, as SQL tools write it), and any other qualifier is
// ErrNoTable, with or without the server. The parser reads at most two
// parts, so the catalog is checked and blanked out of the text before it
// parses (blankCatalog).
//
// Unquoted names match case-insensitively and quoted names exactly, as in
// DuckDB: FROM lineitem, FROM LINEITEM and FROM "lineitem" all read table
// lineitem, and a table loaded as LINEITEM is read by FROM lineitem too.
// PostgreSQL would fold the unquoted name to lower case and then match
// exactly, so such a table could only be read quoted; we follow DuckDB
// because quiver's tables are named by whoever loads them (quiver load
// LINEITEM file.csv) rather than by CREATE TABLE in SQL. Either way the
// match is never ambiguous: the cache refuses a table whose name differs
// only in case from one it holds (cache.ErrNameClash). A quoted name that
// matches only in another case fails with a hint: no table "LINEITEM"
// (quoted names match exactly; did you mean "lineitem"?).
const (
	CatalogName = "quiver"
	SchemaName  = "main"
)

// identPart is one part of a name as the SQL text spells it.
type identPart struct {
	text   string // unquoted
	quoted bool
	off    int // byte offset in the SQL text
}

// lookupTable resolves the FROM clause's table name to a table of the
// cache, or fails with ErrNoTable.
func (b *builder) lookupTable(tn *ast.TableName) (string, error) {
	schema, name := spelling(b.sql, tn)
	if tn.Schema.O != "" && !matchName(schema, SchemaName) {
		return "", b.atOffset(ErrNoTable, schema.off, "no schema %q: the tables are in schema %s (catalog %s)", tn.Schema.O, SchemaName, CatalogName)
	}
	held, ok := b.c.Resolve(name.text)
	switch {
	case ok && (!name.quoted || held == name.text):
		return held, nil
	case ok:
		return "", b.atOffset(ErrNoTable, name.off, "%q (quoted names match exactly; did you mean %q?)", name.text, held)
	}
	return "", b.atOffset(ErrNoTable, name.off, "%q (tables: %s)", name.text, strings.Join(b.c.Tables(), ", "))
}

// blankCatalog checks the catalog of a three-part table name in FROM
// (quiver.main.lineitem) and replaces it and its dot with spaces, so that
// the parser, which reads two parts, gets main.lineitem at the same byte
// offsets. A catalog other than quiver is ErrNoTable.
func blankCatalog(sql string) (string, error) {
	parts := fromName(sql)
	if len(parts) != 3 {
		return sql, nil
	}
	if !matchName(parts[0], CatalogName) {
		e := &Error{Kind: ErrNoTable, Msg: fmt.Sprintf("no catalog %q: the tables are in catalog %s, schema %s", parts[0].text, CatalogName, SchemaName)}
		e.Line, e.Col = position(sql, parts[0].off)
		return "", e
	}
	b := []byte(sql)
	for i := parts[0].off; i < parts[1].off; i++ {
		if b[i] != '\n' {
			b[i] = ' '
		}
	}
	return string(b), nil
}

// qualifies reports whether a column's qualifier, if any, names the FROM
// table: its alias, or its name, under schema main when one is given
// (main.lineitem.l_orderkey).
func (b *builder) qualifies(cn *ast.ColumnName) bool {
	switch {
	case cn.Schema.O != "" && (b.alias != "" || cache.FoldName(cn.Schema.O) != SchemaName):
		return false
	case cn.Table.O != "":
		return b.matchesTable(cn.Table.O)
	}
	return true
}

// matchName reports whether a name as written matches name: exactly when
// quoted, else ignoring case.
func matchName(p identPart, name string) bool {
	if p.quoted {
		return p.text == name
	}
	return cache.FoldName(p.text) == cache.FoldName(name)
}

// atOffset is an Error at a byte offset of the SQL text (0: none known).
func (b *builder) atOffset(kind error, off int, format string, args ...any) error {
	e := &Error{Kind: kind, Msg: fmt.Sprintf(format, args...)}
	if off > 0 {
		e.Line, e.Col = position(b.sql, off)
	}
	return e
}

// spelling finds how sql writes the table name of its FROM clause: the
// parser keeps neither whether a name was quoted nor where it was. The
// FROM clause is the first FROM keyword outside parentheses (EXTRACT(YEAR
// FROM d) is inside; subqueries are refused anyway). When what the text
// says does not agree with the parsed name, the name counts as unquoted,
// at no position.
func spelling(sql string, tn *ast.TableName) (schema, name identPart) {
	parts := fromName(sql)
	name = identPart{text: tn.Name.O}
	schema = identPart{text: tn.Schema.O}
	switch {
	case tn.Schema.O == "" && len(parts) == 1 && parts[0].text == tn.Name.O:
		name = parts[0]
	case tn.Schema.O != "" && len(parts) == 2 && parts[0].text == tn.Schema.O && parts[1].text == tn.Name.O:
		schema, name = parts[0], parts[1]
	case tn.Schema.O != "" && len(parts) == 3 && parts[1].text == tn.Schema.O && parts[2].text == tn.Name.O:
		schema, name = parts[1], parts[2] // the catalog was checked by blankCatalog
	}
	return schema, name
}

// fromName lexes sql up to the name after its first top-level FROM and
// returns that name's parts (nil when there is none). It skips string
// literals ('…', with doubled quotes and backslashes escaping), comments (-- and # to the
// end of the line, /* … */) and reads "…" and `…` as quoted identifiers
// (doubled quotes escape them), as the parser does in ANSI_QUOTES mode.
func fromName(sql string) []identPart {
	depth := 0
	afterFrom := false
	var parts []identPart
	wantPart := true
	for i := 0; i < len(sql); {
		c := sql[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			i++
			continue
		case c == '-' && strings.HasPrefix(sql[i:], "--"), c == '#':
			j := strings.IndexByte(sql[i:], '\n')
			if j < 0 {
				return parts
			}
			i += j + 1
			continue
		case c == '/' && strings.HasPrefix(sql[i:], "/*"):
			j := strings.Index(sql[i+2:], "*/")
			if j < 0 {
				return parts
			}
			i += j + 4
			continue
		}
		var tok identPart
		isIdent := false
		switch {
		case c == '\'':
			i = skipString(sql, i)
		case c == '"' || c == '`':
			tok, i = quotedIdent(sql, i)
			isIdent = true
		case isWordByte(c):
			j := i
			for j < len(sql) && isWordByte(sql[j]) {
				j++
			}
			tok, isIdent = identPart{text: sql[i:j], off: i}, true
			i = j
		default:
			switch c {
			case '(':
				depth++
			case ')':
				depth--
			}
			i++
		}
		if afterFrom {
			switch {
			case isIdent && wantPart:
				parts = append(parts, tok)
				wantPart = false
			case c == '.' && !wantPart:
				wantPart = true
			default:
				return parts
			}
			continue
		}
		if isIdent && !tok.quoted && depth == 0 && strings.EqualFold(tok.text, "FROM") {
			afterFrom = true
		}
	}
	return parts
}

func isWordByte(c byte) bool {
	return c == '_' || c == '$' || c >= 0x80 || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// skipQuoted returns the index just past the string literal or quoted
// name ("…" or `…`) that starts at text[i], and whether one starts there:
// the statement rewrites that scan text step over them with it.
func skipQuoted(text string, i int) (int, bool) {
	switch text[i] {
	case '\'':
		return skipString(text, i), true
	case '"', '`':
		_, j := quotedIdent(text, i)
		return j, true
	}
	return i, false
}

// skipString returns the offset after the string literal starting at i.
func skipString(sql string, i int) int {
	for j := i + 1; j < len(sql); j++ {
		switch sql[j] {
		case '\\':
			j++
		case '\'':
			if j+1 < len(sql) && sql[j+1] == '\'' {
				j++
				continue
			}
			return j + 1
		}
	}
	return len(sql)
}

// quotedIdent reads the quoted identifier starting at i.
func quotedIdent(sql string, i int) (identPart, int) {
	q := sql[i]
	var b strings.Builder
	for j := i + 1; j < len(sql); j++ {
		if sql[j] != q {
			b.WriteByte(sql[j])
			continue
		}
		if j+1 < len(sql) && sql[j+1] == q {
			b.WriteByte(q)
			j++
			continue
		}
		return identPart{text: b.String(), quoted: true, off: i}, j + 1
	}
	return identPart{text: b.String(), quoted: true, off: i}, len(sql)
}

// closestNames returns the names closest to name by edit distance (at
// most a third of its length, and at least one edit), at most three.
func closestNames(name string, names []string) []string {
	best, bestD := []string(nil), len(name)/3+1
	for _, n := range names {
		d := editDistance(name, n) // from_bind.go
		switch {
		case d < bestD:
			best, bestD = []string{n}, d
		case d == bestD:
			best = append(best, n)
		}
	}
	sort.Strings(best)
	if len(best) > 3 {
		best = best[:3]
	}
	return best
}
