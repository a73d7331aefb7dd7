package query

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/mysql"
	_ "github.com/pingcap/tidb/pkg/parser/test_driver" // literal values for the AST
)

// The SQL parser is pingcap's TiDB parser (github.com/pingcap/tidb/pkg/parser),
// run with ANSI_QUOTES so double-quoted text is an identifier, with
// NO_BACKSLASH_ESCAPES so a backslash in a string literal is itself (as in
// ANSI SQL, DuckDB and PostgreSQL: '\d+' is a regular expression's digit
// class, not 'd+'; LIKE still reads \ as its escape) and with
// PIPES_AS_CONCAT so || concatenates (as in ANSI SQL, DuckDB and
// PostgreSQL; without it TiDB reads || as OR, ModeANSI notwithstanding:
// in TiDB that flag is one bit of its own, not MySQL's ANSI combination).
// Chosen over vitess' sqlparser because it is a standalone module of modest
// weight (the vitess module brings all of Vitess), is maintained with TiDB,
// takes ANSI_QUOTES, DATE '…' literals, INTERVAL arithmetic, CAST to
// DECIMAL(p,s), CASE and COALESCE, and reports positions for its nodes.
//
// It lacks one thing we need: NULLS FIRST / NULLS LAST in ORDER BY (MySQL
// has no such clause). We add it without a parser of our own: when the
// parser stops at a NULLS FIRST or NULLS LAST token (the error says where),
// the two words are replaced by an extra ORDER BY item, a sentinel
// identifier, and the text is parsed again. The sentinel lands in the AST
// right after the item it qualifies; the planner folds it into that item and
// refuses it anywhere else.

// Sentinel identifiers that stand for NULLS FIRST and NULLS LAST. Column
// names starting with "quiver$" are refused by the planner.
const (
	nullsFirstSentinel = "quiver$nulls_first"
	nullsLastSentinel  = "quiver$nulls_last"
	sentinelPrefix     = "quiver$"
)

// maxNullsRewrites bounds the parse-and-rewrite loop.
const maxNullsRewrites = 64

// errNear matches the TiDB parser's syntax error: line, column and the text
// from the offending token on.
var errNear = regexp.MustCompile(`line (\d+) column (\d+) near "((?s).*)"`)

var nullsClause = regexp.MustCompile(`(?i)^NULLS\s+(FIRST|LAST)\b`)

// parseSQL parses one statement.
func parseSQL(sql string) (ast.StmtNode, error) {
	p := parser.New()
	p.SetSQLMode(mysql.ModeANSIQuotes | mysql.ModeANSI | mysql.ModePipesAsConcat | mysql.ModeNoBackslashEscapes)
	text, err := blankCatalog(sql) // names.go
	if err != nil {
		return nil, err
	}
	var edits []textEdit
	if text, err = rewriteValues(text, sql, &edits); err != nil { // parse_values.go
		return nil, err
	}
	if text, err = rewriteCasts(text, sql, &edits); err != nil { // parse_cast.go
		return nil, err
	}
	text = rewriteTypes(text)                              // parse_types.go
	if text, err = rewriteQualify(text, sql); err != nil { // parse_qualify.go
		return nil, err
	}
	if text, err = rewriteWithinGroup(text, sql, &edits); err != nil { // parse_within.go
		return nil, err
	}
	if text, err = rewriteAggSyntax(text, sql, &edits); err != nil { // parse_aggs.go
		return nil, err
	}
	if text, err = rewriteFullJoin(text, sql, &edits); err != nil { // parse_fulljoin.go
		return nil, err
	}
	text = rewriteExclude(text, &edits)                               // parse_exclude.go
	text = rewriteByAll(text, &edits)                                 // parse_byall.go
	text = rewriteGroupingSets(text, &edits)                          // parse_groupingsets.go
	text = rewriteStarExclude(text, &edits)                           // parse_star.go
	text = rewriteTZLiterals(text, &edits)                            // parse_tzliteral.go
	if text, err = rewriteSubscripts(text, sql, &edits); err != nil { // parse_subscript.go
		return nil, err
	}
	for range maxNullsRewrites {
		stmts, _, err := p.ParseSQL(text)
		if err == nil {
			switch len(stmts) {
			case 0:
				return nil, &Error{Kind: ErrSyntax, Msg: "empty statement"}
			case 1:
				if len(edits) > 0 {
					remapPositions(stmts[0], edits)
				}
				markGroups(stmts[0])        // parse_exclude.go
				markDistinct(stmts[0], sql) // parse_types.go
				return stmts[0], nil
			}
			return nil, &Error{Kind: ErrSyntax, Msg: fmt.Sprintf("%d statements; send one at a time", len(stmts))}
		}
		next, ok := rewriteNulls(text, err, &edits)
		if !ok {
			next, ok = rewriteBareVarchar(text) // ddl_parse.go
		}
		if !ok {
			next, ok = rewriteOrReplaceTable(text)
		}
		if !ok {
			return nil, syntaxError(text, sql, err)
		}
		text = next
	}
	return nil, &Error{Kind: ErrSyntax, Msg: "too many NULLS FIRST/LAST clauses"}
}

// rewriteNulls replaces the NULLS FIRST/LAST clause the parser stopped at
// with ", <sentinel>", recording the edit (positions after it move, and
// the planner reads the user's text at them: stddev as written).
func rewriteNulls(text string, err error, edits *[]textEdit) (string, bool) {
	m := errNear.FindStringSubmatch(err.Error())
	if m == nil {
		return "", false
	}
	near := m[3]
	if !nullsClause.MatchString(near) {
		return "", false
	}
	off := nearOffset(text, m[1], m[2], near)
	if off < 0 {
		return "", false
	}
	loc := nullsClause.FindStringSubmatchIndex(text[off:])
	if loc == nil {
		return "", false
	}
	sentinel := nullsFirstSentinel
	if strings.EqualFold(text[off+loc[2]:off+loc[3]], "LAST") {
		sentinel = nullsLastSentinel
	}
	return edit(text, off, loc[1], `, "`+sentinel+`"`, edits), true // parse_aggs.go
}

// nearOffset finds where the parser's "near" text starts in text: among
// the places it occurs, the one closest to the reported line and column
// (the parser reports the column around the end of the token).
func nearOffset(text, line, col, near string) int {
	ln, _ := strconv.Atoi(line)
	cn, _ := strconv.Atoi(col)
	target := 0
	for i := 1; i < ln; i++ {
		nl := strings.IndexByte(text[target:], '\n')
		if nl < 0 {
			break
		}
		target += nl + 1
	}
	target += cn
	probe := near
	if probe == "" { // the parser stopped at the end of the text
		return -1
	}
	if len(probe) > 40 {
		probe = probe[:40]
	}
	best, bestDist := -1, 0
	// An empty probe (a syntax error at the end: near "") matches
	// everywhere, up to len(text) and no further.
	for from := 0; from <= len(text); {
		i := strings.Index(text[from:], probe)
		if i < 0 {
			break
		}
		at := from + i
		dist := max(at-target, target-at)
		if best < 0 || dist < bestDist {
			best, bestDist = at, dist
		}
		from = at + 1
	}
	return best
}

// unrewriteNulls puts back the NULLS FIRST/LAST clauses rewriteNulls
// replaced, so that an error quotes what the user wrote, not our sentinels.
func unrewriteNulls(text string) string {
	for sentinel, clause := range map[string]string{nullsFirstSentinel: "NULLS FIRST", nullsLastSentinel: "NULLS LAST"} {
		text = strings.ReplaceAll(text, `, "`+sentinel+`"`, clause)
		text = strings.ReplaceAll(text, `"`+sentinel+`"`, clause)
	}
	return text
}

// syntaxError turns a parser error into an Error with its position. The
// text it quotes is the user's (orig) where the rewrites before parsing
// kept every offset (blankCatalog, rewriteTypes: same lengths), so a
// message shows TEXT where the parser read CHAR.
func syntaxError(text, orig string, err error) error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	msg := err.Error()
	if m := errNear.FindStringSubmatch(msg); m != nil {
		ln, _ := strconv.Atoi(m[1])
		cn, _ := strconv.Atoi(m[2])
		near := m[3]
		if len(text) == len(orig) {
			if off := nearOffset(text, m[1], m[2], near); off >= 0 && off+len(near) <= len(orig) {
				near = orig[off : off+len(near)]
			}
		}
		near = unrewriteNulls(near)
		if nullsClause.MatchString(near) { // the clause was not after an ORDER BY item
			return &Error{Kind: ErrSyntax, Line: ln, Col: cn, Msg: fmt.Sprintf("%s only follows an ORDER BY item", nullsClause.FindString(near))}
		}
		if len(near) > 40 {
			near = near[:40] + "…"
		}
		return &Error{Kind: ErrSyntax, Line: ln, Col: cn, Msg: fmt.Sprintf("syntax error near %q", near)}
	}
	return &Error{Kind: ErrSyntax, Msg: msg}
}

// containsFold reports whether text holds w (lower-case ASCII) in any
// case, without the copy strings.ToLower would make of the whole
// statement (a statement may hold megabytes of literal): the rewrites
// call it to skip the text that cannot concern them.
func containsFold(text, w string) bool {
	for i := 0; i+len(w) <= len(text); i++ {
		if text[i]|0x20 == w[0] && strings.EqualFold(text[i:i+len(w)], w) {
			return true
		}
	}
	return false
}
