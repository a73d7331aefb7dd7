package query

import (
	"regexp"
)

// GROUP BY ROLLUP (…), CUBE (…) and GROUPING SETS (…), as DuckDB,
// PostgreSQL and Spark spell them:
//
//	GROUP BY ROLLUP (region, nation)            (region, nation), (region), ()
//	GROUP BY CUBE (a, b)                         (a, b), (a), (b), ()
//	GROUP BY GROUPING SETS ((a, b), (c), ())     as listed
//	GROUP BY y, ROLLUP (m, d)                    y with each of ROLLUP's sets
//
// The TiDB grammar has only MySQL's GROUP BY … WITH ROLLUP. Before the
// text is parsed, rewriteGroupingSets makes each of these words a call
// the grammar takes, with the edit recorded: ROLLUP ( → quiver$rollup(,
// CUBE ( → quiver$cube(, GROUPING SETS ( → quiver$grouping_sets(, and
// inside GROUPING SETS the empty set () → quiver$set(). A set of several
// expressions, (a, b), parses as a row. The planner expands them
// (build_groupingsets.go).

const (
	rollupFunc       = "quiver$rollup"
	cubeFunc         = "quiver$cube"
	groupingSetsFunc = "quiver$grouping_sets"
	emptySetFunc     = "quiver$set"
)

var groupingWord = regexp.MustCompile(`(?i)^(ROLLUP|CUBE|GROUPING\s+SETS)\s*\(`)

// rewriteGroupingSets rewrites the grouping constructs of text.
func rewriteGroupingSets(text string, edits *[]textEdit) string {
	if !containsFold(text, "rollup") && !containsFold(text, "cube") && !containsFold(text, "sets") {
		return text
	}
	for i := 0; i < len(text); {
		if j, ok := skipQuoted(text, i); ok {
			i = j
			continue
		}
		c := text[i] | 0x20
		if (c == 'r' || c == 'c' || c == 'g') && (i == 0 || !isWordByte(text[i-1])) {
			if m := groupingWord.FindStringSubmatchIndex(text[i:]); m != nil {
				word := rollupFunc
				switch text[i] | 0x20 {
				case 'c':
					word = cubeFunc
				case 'g':
					word = groupingSetsFunc
				}
				text = edit(text, i, m[3], word, edits)
				open := i + len(word) + (m[1] - 1 - m[3]) // the '(' after the word
				if word == groupingSetsFunc {
					text = rewriteEmptySets(text, open, edits)
				}
				i = open + 1
				continue
			}
		}
		i++
	}
	return text
}

// rewriteEmptySets replaces each () inside the parentheses opened at
// text[open] by quiver$set(): an empty grouping set.
func rewriteEmptySets(text string, open int, edits *[]textEdit) string {
	depth := 0
	last := byte(0) // the last byte read that is not a space
	for i := open; i < len(text); {
		if j, ok := skipQuoted(text, i); ok {
			i, last = j, '\''
			continue
		}
		switch c := text[i]; c {
		case '(':
			if last == '(' || last == ',' {
				j := i + 1
				for j < len(text) && (text[j] == ' ' || text[j] == '\t' || text[j] == '\n' || text[j] == '\r') {
					j++
				}
				if j < len(text) && text[j] == ')' {
					text = edit(text, i, j+1-i, emptySetFunc+"()", edits)
					i += len(emptySetFunc) + 2
					last = ')'
					continue
				}
			}
			depth++
		case ')':
			depth--
			if depth == 0 {
				return text
			}
		}
		if c := text[i]; c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			last = c
		}
		i++
	}
	return text
}
