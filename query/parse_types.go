package query

import (
	"regexp"
	"strings"
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
//
// DATETIME(4) stands for the zoned type; a DATETIME written by the user
// is TIMESTAMP whatever its precision (castType).

// tzPrecision is the fractional-seconds precision that marks a
// DATETIME as TIMESTAMP WITH TIME ZONE.
const tzPrecision = 4

var (
	tryCastWord = regexp.MustCompile(`(?i)^TRY_CAST\s*\(`)
	asTimestamp = regexp.MustCompile(`(?i)^AS\s+(TIMESTAMP\s+WITH\s+TIME\s+ZONE|TIMESTAMPTZ|TIMESTAMP|VARCHAR|TEXT|INTEGER|BIGINT)\s*\)`)
)

// rewriteTypes applies the rewrites above to text.
func rewriteTypes(text string) string {
	lower := strings.ToLower(text)
	if !strings.Contains(lower, "try_cast") && !strings.Contains(lower, "timestamp") {
		return text
	}
	b := []byte(text)
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case c == '\'':
			i = skipString(text, i)
			continue
		case c == '"' || c == '`':
			_, i = quotedIdent(text, i)
			continue
		case i > 0 && isWordByte(text[i-1]):
		case (c == 't' || c == 'T') && tryCastWord.MatchString(text[i:]):
			copy(b[i:], "    ")
			i += len("TRY_")
			continue
		case (c == 'a' || c == 'A') && asTimestamp.MatchString(text[i:]):
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

// castSpelling is the grammar's spelling of the type names it lacks, no
// longer than theirs.
var castSpelling = map[string]string{
	"TIMESTAMP": "DATETIME", "TIMESTAMPTZ": "DATETIME(4)", "VARCHAR": "CHAR", "TEXT": "CHAR",
	"INTEGER": "SIGNED", "BIGINT": "SIGNED",
}

// isTryCast reports whether the CAST at byte offset off of the user's
// text was written TRY_CAST.
func isTryCast(sql string, off int) bool {
	return off >= 4 && off+4 <= len(sql) && strings.EqualFold(sql[off-4:off+4], "TRY_CAST")
}
