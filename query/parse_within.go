package query

import (
	"fmt"
	"regexp"
	"strings"
)

// Ordered-set aggregates, SQL's spelling of quantiles (PostgreSQL's and
// DuckDB's):
//
//	percentile_cont(0.9) WITHIN GROUP (ORDER BY x)       → quantile_cont(x, 0.9)
//	percentile_disc(0.9) WITHIN GROUP (ORDER BY x)       → quantile_disc(x, 0.9)
//	percentile_cont(0.9) WITHIN GROUP (ORDER BY x DESC)  → (-quantile_cont(-(x), 0.9))
//
// The grammar has no WITHIN GROUP; rewriteWithinGroup makes the call
// DuckDB's own quantile function. The values in descending order are
// the negated values in ascending order, so a DESC quantile is the
// negated quantile of the negated values: the same rows picked and, for
// the continuous one, the same interpolation with the sign flipped (a
// decimal's rounding is symmetric), where 1 - f would round from the
// other end. DESC therefore needs a numeric key.

var withinGroup = regexp.MustCompile(`(?i)^\s*WITHIN\s+GROUP\s*\(\s*ORDER\s+BY\s+`)

var orderDirection = regexp.MustCompile(`(?i)\s+(ASC|DESC)\s*$`)

func rewriteWithinGroup(text, sql string, edits *[]textEdit) (string, error) {
	if !containsFold(text, "within") {
		return text, nil
	}
	for i := 0; i < len(text); {
		if j, ok := skipQuoted(text, i); ok {
			i = j
			continue
		}
		fn := ""
		for _, name := range [...]string{"percentile_cont", "percentile_disc"} {
			if (i == 0 || !isWordByte(text[i-1])) && isWordAt(text, i, name) {
				fn = name
			}
		}
		if fn == "" {
			i++
			continue
		}
		open := i + len(fn)
		for open < len(text) && isSpace(text[open]) {
			open++
		}
		if open >= len(text) || text[open] != '(' {
			i++
			continue
		}
		close := closing(text, open)
		if close < 0 {
			return text, nil // the parser reports it
		}
		m := withinGroup.FindStringIndex(text[close+1:])
		if m == nil {
			i = close + 1
			continue
		}
		groupOpen := close + 1 + strings.IndexByte(text[close+1:close+1+m[1]], '(')
		groupClose := closing(text, groupOpen)
		if groupClose < 0 {
			return text, nil
		}
		key := strings.TrimSpace(text[close+1+m[1] : groupClose])
		desc := false
		if d := orderDirection.FindStringSubmatchIndex(key); d != nil {
			desc = strings.EqualFold(key[d[2]:d[3]], "desc")
			key = key[:d[0]]
		}
		if strings.Contains(strings.ToLower(key), "nulls") || topLevelComma(key) >= 0 {
			line, col := position(sql, originalOffset(close+1, *edits))
			return "", &Error{Kind: ErrUnsupported, Line: line, Col: col, Msg: "WITHIN GROUP (ORDER BY …) of more than one key or with NULLS FIRST/LAST"}
		}
		frac := text[open+1 : close]
		args, tail := fmt.Sprintf("%s, %s", key, frac), ""
		if desc {
			args, tail = fmt.Sprintf("-(%s), %s", key, frac), ")"
		}
		// right to left
		text = edit(text, close+1, groupClose+1-(close+1), tail, edits)
		text = edit(text, open+1, close-(open+1), args, edits)
		to := "quantile_cont"
		if fn == "percentile_disc" {
			to = "quantile_disc"
		}
		if desc {
			to = "(-" + to
		}
		text = edit(text, i, len(fn), to, edits)
		i += len(to)
	}
	return text, nil
}
