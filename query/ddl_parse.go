package query

import (
	"regexp"
	"strings"
)

// The parser reads column types as MySQL does, where VARCHAR needs a
// length; DuckDB and PostgreSQL take a bare VARCHAR (of any length), and
// tools write it so. When a CREATE TABLE fails to parse, every bare
// VARCHAR word of its text (outside strings, quoted names and comments)
// becomes TEXT, the same type here (ddl_types.go), and it is parsed again.

// rewriteBareVarchar returns text with bare VARCHAR words replaced by
// TEXT; ok is false when text is no CREATE TABLE or has none.
func rewriteBareVarchar(text string) (string, bool) {
	if !startsWithWord(text, "CREATE") {
		return "", false
	}
	var b strings.Builder
	changed := false
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case c == '\'':
			j := skipString(text, i)
			b.WriteString(text[i:j])
			i = j
		case c == '"' || c == '`':
			_, j := quotedIdent(text, i)
			b.WriteString(text[i:j])
			i = j
		case c == '-' && strings.HasPrefix(text[i:], "--"):
			j := strings.IndexByte(text[i:], '\n')
			if j < 0 {
				j = len(text) - i
			}
			b.WriteString(text[i : i+j])
			i += j
		case c == '/' && strings.HasPrefix(text[i:], "/*"):
			j := strings.Index(text[i+2:], "*/")
			end := len(text)
			if j >= 0 {
				end = i + 2 + j + 2
			}
			b.WriteString(text[i:end])
			i = end
		case isWordByte(c):
			j := i
			for j < len(text) && isWordByte(text[j]) {
				j++
			}
			word := text[i:j]
			if strings.EqualFold(word, "VARCHAR") && !strings.HasPrefix(strings.TrimLeft(text[j:], " \t\r\n"), "(") {
				word, changed = "TEXT", true
			}
			b.WriteString(word)
			i = j
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String(), changed
}

// startsWithWord reports whether text's first word is word (ignoring
// case and leading space).
func startsWithWord(text, word string) bool {
	t := strings.TrimLeft(text, " \t\r\n")
	return len(t) >= len(word) && strings.EqualFold(t[:len(word)], word) &&
		(len(t) == len(word) || !isWordByte(t[len(word)]))
}

// orReplaceTable matches DuckDB's CREATE OR REPLACE TABLE, which the
// parser does not take: the two words are blanked (offsets kept) and the
// text parsed again; createTable sees them in the statement's text.
var orReplaceTable = regexp.MustCompile(`(?is)^(\s*CREATE\s+)(OR\s+REPLACE)(\s+TABLE\b)`)

// rewriteOrReplaceTable blanks OR REPLACE of CREATE OR REPLACE TABLE.
func rewriteOrReplaceTable(text string) (string, bool) {
	m := orReplaceTable.FindStringSubmatchIndex(text)
	if m == nil {
		return "", false
	}
	return text[:m[4]] + strings.Repeat(" ", m[5]-m[4]) + text[m[5]:], true
}

// replacesTable reports whether a statement's text is CREATE OR REPLACE
// TABLE.
func replacesTable(sql string) bool { return orReplaceTable.MatchString(sql) }
