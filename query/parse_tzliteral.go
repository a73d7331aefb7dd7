package query

import "regexp"

// TIMESTAMPTZ '…' and TIMESTAMP WITH TIME ZONE '…' (DuckDB's and
// PostgreSQL's literals of the zoned type) are not in the TiDB grammar,
// which has TIMESTAMP '…' only. Before parsing, rewriteTZLiterals makes
// each a cast, CAST('…' AS DATETIME(4)), which parse_types.go's
// DATETIME(4) makes TIMESTAMP WITH TIME ZONE: the text is read as a cast
// reads it, in the session's time zone unless it names an offset. The
// edits are recorded, so node positions map back to the user's text
// (parse_aggs.go).

var tzLiteral = regexp.MustCompile(`(?i)^(TIMESTAMPTZ|TIMESTAMP\s+WITH\s+TIME\s+ZONE)\s*'`)

func rewriteTZLiterals(text string, edits *[]textEdit) string {
	if !containsFold(text, "timestamp") {
		return text
	}
	for i := 0; i < len(text); {
		if j, ok := skipQuoted(text, i); ok {
			i = j
			continue
		}
		if (i == 0 || !isWordByte(text[i-1]) && text[i-1] != '$' && text[i-1] != '.') && (text[i]|0x20) == 't' {
			if m := tzLiteral.FindStringIndex(text[i:]); m != nil {
				quote := i + m[1] - 1
				end, ok := skipQuoted(text, quote)
				if !ok || end > len(text) || text[end-1] != '\'' {
					return text // an unclosed string: the parser reports it
				}
				text = edit(text, end, 0, " AS DATETIME(4))", edits) // the later edit first
				text = edit(text, i, quote-i, "CAST(", edits)
				i = end - (quote - i) + len("CAST(") + len(" AS DATETIME(4))")
				continue
			}
		}
		i++
	}
	return text
}
