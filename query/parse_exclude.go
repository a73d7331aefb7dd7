package query

import (
	"regexp"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
)

// A window frame's EXCLUDE clause (EXCLUDE CURRENT ROW | GROUP | TIES |
// NO OTHERS, after the frame's extent) is not in the TiDB grammar, which
// takes ROWS, RANGE and GROUPS frames but nothing after them. Before
// parsing, rewriteExclude deletes the clause and adds a sentinel item to
// the window's ORDER BY in its place — before the frame's ROWS, RANGE or
// GROUPS word, as ", "quiver$exclude_ties"", or "ORDER BY
// "quiver$exclude_ties"" when the window has none — as NULLS FIRST/LAST
// become sentinels (parse.go). The planner takes the sentinel out of the
// ORDER BY and into the call's frame (excludeOf). Both edits are
// recorded, so node positions map back to the user's text (parse_aggs.go).

// excludeKind is a frame's EXCLUDE clause.
type excludeKind uint8

const (
	excludeNoOthers excludeKind = iota
	excludeCurrentRow
	excludeGroup // the row and its peers
	excludeTies  // the row's peers, not the row
)

var excludeSentinels = map[string]excludeKind{
	"quiver$exclude_no_others": excludeNoOthers, "quiver$exclude_current_row": excludeCurrentRow,
	"quiver$exclude_group": excludeGroup, "quiver$exclude_ties": excludeTies,
}

func (k excludeKind) String() string {
	return [...]string{"NO OTHERS", "CURRENT ROW", "GROUP", "TIES"}[k]
}

// rewriteExclude rewrites each EXCLUDE clause that follows a frame.
func rewriteExclude(text string, edits *[]textEdit) string {
	if !containsFold(text, "exclude") {
		return text
	}
	type level struct {
		orderBy bool // ORDER BY seen in this parenthesis
		frameAt int  // the last ROWS, RANGE or GROUPS word in it; -1: none
	}
	levels := []level{{frameAt: -1}}
	for i := 0; i < len(text); {
		if j, ok := skipQuoted(text, i); ok {
			i = j
			continue
		}
		top := &levels[len(levels)-1]
		switch c := text[i]; {
		case c == '(':
			levels = append(levels, level{frameAt: -1})
		case c == ')':
			if len(levels) > 1 {
				levels = levels[:len(levels)-1]
			}
		case i > 0 && (isWordByte(text[i-1]) || text[i-1] == '$' || text[i-1] == '.'):
		case isWordAt(text, i, "select"):
			*top = level{frameAt: -1}
		case isWordAt(text, i, "order") && isWordAt(text, skipSpace(text, i+len("order")), "by"):
			top.orderBy = true
		case isWordAt(text, i, "rows") || isWordAt(text, i, "range") || isWordAt(text, i, "groups"):
			top.frameAt = i
		case isWordAt(text, i, "exclude") && top.frameAt >= 0:
			kind, end := excludeWords(text, skipSpace(text, i+len("exclude")))
			if end < 0 {
				break // the parser reports it
			}
			sentinel := `"quiver$exclude_` + strings.ReplaceAll(strings.ToLower(kind.String()), " ", "_") + `" `
			if top.orderBy {
				sentinel = ", " + sentinel
			} else {
				sentinel = "ORDER BY " + sentinel
			}
			text = edit(text, i, end-i, "", edits)             // the later edit first: frameAt stays where it is
			text = edit(text, top.frameAt, 0, sentinel, edits) // parse_aggs.go
			i += len(sentinel)
			top.frameAt = -1
			continue
		}
		i++
	}
	return text
}

// excludeWords reads what follows EXCLUDE at i: the kind and where the
// clause ends, or -1.
func excludeWords(text string, i int) (excludeKind, int) {
	two := func(a, b string, k excludeKind) (excludeKind, int) {
		if !isWordAt(text, i, a) {
			return 0, -1
		}
		j := skipSpace(text, i+len(a))
		if !isWordAt(text, j, b) {
			return 0, -1
		}
		return k, j + len(b)
	}
	switch {
	case isWordAt(text, i, "group"):
		return excludeGroup, i + len("group")
	case isWordAt(text, i, "ties"):
		return excludeTies, i + len("ties")
	case isWordAt(text, i, "current"):
		return two("current", "row", excludeCurrentRow)
	case isWordAt(text, i, "no"):
		return two("no", "others", excludeNoOthers)
	}
	return 0, -1
}

// excludeOf splits a window's ORDER BY items into the keys (NULLS
// FIRST/LAST sentinels among them) and the EXCLUDE sentinel's kind.
func excludeOf(ob *ast.OrderByClause) ([]*ast.ByItem, excludeKind) {
	items, kind, _ := frameSentinels(ob)
	return items, kind
}

// frameSentinels splits a window's ORDER BY items into the keys (NULLS
// FIRST/LAST sentinels among them), the EXCLUDE sentinel's kind and
// whether the GROUPS sentinel is among them.
func frameSentinels(ob *ast.OrderByClause) (items []*ast.ByItem, kind excludeKind, groups bool) {
	if ob == nil {
		return nil, excludeNoOthers, false
	}
	items = make([]*ast.ByItem, 0, len(ob.Items))
	for _, it := range ob.Items {
		if c, ok := it.Expr.(*ast.ColumnNameExpr); ok {
			if k, ok := excludeSentinels[c.Name.Name.L]; ok {
				kind = k
				continue
			}
			if c.Name.Name.L == groupsSentinel {
				groups = true
				continue
			}
		}
		items = append(items, it)
	}
	return items, kind, groups
}

// groupsSentinel marks a ROWS frame that was written GROUPS
// (markGroups).
const groupsSentinel = "quiver$groups"

// markGroups turns each GROUPS frame of stmt into a ROWS frame and a
// groupsSentinel item in its window's ORDER BY: the parser reads GROUPS
// but cannot write it back (ast.FrameClause.Restore fails on it), and
// the planner names a call by its restored text, views are kept as it,
// so a GROUPS frame must restore as something that parses back to the
// same window.
func markGroups(stmt ast.Node) {
	stmt.Accept(groupsMarker{})
}

type groupsMarker struct{}

func (groupsMarker) Enter(n ast.Node) (ast.Node, bool) {
	if sp, ok := n.(*ast.WindowSpec); ok && sp.Frame != nil && sp.Frame.Type == ast.Groups {
		sp.Frame.Type = ast.Rows
		items, kind, _ := frameSentinels(sp.OrderBy)
		sp.OrderBy = withSentinels(items, kind, true)
	}
	return n, false
}

func (groupsMarker) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// withSentinels is an ORDER BY of items, kind's sentinel (none for NO
// OTHERS) and the GROUPS sentinel when groups; nil when that is nothing.
func withSentinels(items []*ast.ByItem, kind excludeKind, groups bool) *ast.OrderByClause {
	items = items[:len(items):len(items)]
	add := func(name string) {
		items = append(items, &ast.ByItem{Expr: &ast.ColumnNameExpr{Name: &ast.ColumnName{Name: ast.NewCIStr(name)}}})
	}
	if kind != excludeNoOthers {
		add(`quiver$exclude_` + strings.ReplaceAll(strings.ToLower(kind.String()), " ", "_"))
	}
	if groups {
		add(groupsSentinel)
	}
	if len(items) == 0 {
		return nil
	}
	return &ast.OrderByClause{Items: items}
}

// frameSentinel matches a frame sentinel of a restored window, with the
// comma or ORDER BY before it.
var frameSentinel = regexp.MustCompile("(,|order by )`?(quiver\\$(groups|exclude_[a-z_]+))`?")

// unrewriteFrames writes a restored call's frame sentinels back as GROUPS
// and EXCLUDE, for the call's column name: "sum(x) over (order by k
// groups between 1 preceding and current row exclude ties)".
func unrewriteFrames(s string) string {
	for range maxAggRewrites {
		loc := frameSentinel.FindStringSubmatchIndex(s)
		if loc == nil {
			break
		}
		name := s[loc[4]:loc[5]]
		at, end := loc[0], loc[1]
		switch {
		case s[at] == ',':
		case end < len(s) && s[end] == ',': // order by SENTINEL,more
			at, end = at+len("order by "), end+1
		default: // order by SENTINEL rows …: the window has no ORDER BY
			end = skipSpace(s, end)
		}
		s = s[:at] + s[end:]
		if name == groupsSentinel {
			if j := strings.Index(s[at:], "rows between"); j >= 0 {
				s = s[:at+j] + "groups" + s[at+j+len("rows"):]
			}
			continue
		}
		open, depth := -1, 0
		for j := at - 1; j >= 0 && open < 0; j-- {
			switch s[j] {
			case ')':
				depth++
			case '(':
				if depth == 0 {
					open = j
				}
				depth--
			}
		}
		if open < 0 {
			continue
		}
		if c := closing(s, open); c > 0 {
			words := strings.ReplaceAll(strings.TrimPrefix(name, "quiver$exclude_"), "_", " ")
			s = s[:c] + " exclude " + words + s[c:]
		}
	}
	return s
}
