package query

import (
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/quiverdb/quiver/cache"
)

// Views. CREATE [OR REPLACE] VIEW v [(cols)] AS SELECT … (or a set
// operation of SELECTs: cte_setop.go) keeps the
// query as text (restoreSQL); a statement that names v plans it as if it
// began WITH v [(cols)] AS (…): bindViews adds the views it names to the
// builder's WITH names before planning (from_bind.go plans each use as a
// derived table), so a view costs what the same WITH query does, and its
// tables are read as they are when the statement runs. A view sees the
// views made before it; a name in a statement's own WITH clause hides a
// view's. Names are unique among tables and views, ignoring case.
//
// Views live in the engine (Options.Views to share or keep them): a
// server without a data directory forgets them at restart, as it does
// its tables.

// View is one view: its name, the column names it gives (none: the
// query's), and its query as SQL text.
type View struct {
	Name    string   `json:"name"`
	Columns []string `json:"columns,omitempty"`
	SQL     string   `json:"sql"`
}

// Views holds an engine's views. Its zero value is empty and ready;
// it is safe for concurrent use.
type Views struct {
	mu   sync.RWMutex
	m    map[string]*viewDef // by folded name
	next int
	// Saved, when set, is called with every view after each change,
	// before the change is acknowledged; an error undoes the change.
	// A durable server stores them with it.
	Saved func([]View) error
}

type viewDef struct {
	View
	name string
	seq  int // creation order: a view sees those made before it
}

// get returns the view named name (ignoring case), or nil.
func (v *Views) get(name string) *viewDef {
	if v == nil {
		return nil
	}
	v.mu.RLock()
	defer v.mu.RUnlock()
	return v.m[cache.FoldName(name)]
}

// List returns the views in the order they were made.
func (v *Views) List() []View {
	v.mu.RLock()
	defer v.mu.RUnlock()
	return v.listLocked()
}

func (v *Views) listLocked() []View {
	defs := make([]*viewDef, 0, len(v.m))
	for _, d := range v.m {
		defs = append(defs, d)
	}
	sort.Slice(defs, func(i, j int) bool { return defs[i].seq < defs[j].seq })
	out := make([]View, len(defs))
	for i, d := range defs {
		out[i] = d.View
	}
	return out
}

// Load replaces the views with vs (as a store kept them), in order.
func (v *Views) Load(vs []View) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.m = map[string]*viewDef{}
	for _, x := range vs {
		v.next++
		v.m[cache.FoldName(x.Name)] = &viewDef{View: x, name: x.Name, seq: v.next}
	}
}

// set adds or replaces a view (nil def: drops name), saving the result
// first when Saved is set.
func (v *Views) set(name string, def *View) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.m == nil {
		v.m = map[string]*viewDef{}
	}
	key := cache.FoldName(name)
	old := v.m[key]
	if def == nil {
		delete(v.m, key)
	} else {
		v.next++
		v.m[key] = &viewDef{View: *def, name: def.Name, seq: v.next}
	}
	if v.Saved != nil {
		if err := v.Saved(v.listLocked()); err != nil {
			if old != nil {
				v.m[key] = old
			} else {
				delete(v.m, key)
			}
			return err
		}
	}
	return nil
}

// bind adds to b's WITH names the views sql names, directly or
// through other views, in the order they were made.
func (v *Views) bind(b *builder, sql string) error {
	if v == nil {
		return nil
	}
	v.mu.RLock()
	if len(v.m) == 0 {
		v.mu.RUnlock()
		return nil
	}
	var used []*viewDef
	texts := []string{strings.ToLower(sql)}
	for changed := true; changed; {
		changed = false
		for _, d := range v.m {
			if slices.Contains(used, d) {
				continue
			}
			for _, t := range texts {
				if containsWord(t, cache.FoldName(d.name)) {
					used = append(used, d)
					texts = append(texts, strings.ToLower(d.SQL))
					changed = true
					break
				}
			}
		}
	}
	v.mu.RUnlock()
	if len(used) == 0 {
		return nil
	}
	sort.Slice(used, func(i, j int) bool { return used[i].seq < used[j].seq })
	w := &ast.WithClause{}
	for _, d := range used {
		st, err := parseSQL(d.SQL)
		if err != nil {
			return &Error{Kind: ErrInvalid, Msg: "view " + d.name + " no longer parses", Err: err}
		}
		var q ast.ResultSetNode
		switch x := st.(type) {
		case *ast.SelectStmt:
			q = x
		case *ast.SetOprStmt: // a WITH over a set operation (cte_setop.go)
			q = x
		default:
			return &Error{Kind: ErrInvalid, Msg: "view " + d.name + " is not a query"}
		}
		cte := &ast.CommonTableExpression{Name: ast.NewCIStr(d.name), Query: &ast.SubqueryExpr{Query: q}}
		for _, c := range d.Columns {
			cte.ColNameList = append(cte.ColNameList, ast.NewCIStr(c))
		}
		w.CTEs = append(w.CTEs, cte)
	}
	return b.bindWith(w)
}

// containsWord reports whether word occurs in text as a whole word (not
// inside a longer name), so that a view named t is not planned for every
// statement that mentions a table named t1. A quoted name counts too.
func containsWord(text, word string) bool {
	for i := 0; ; {
		j := strings.Index(text[i:], word)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(word)
		if (start == 0 || !isWordByte(text[start-1])) && (end == len(text) || !isWordByte(text[end])) {
			return true
		}
		i = start + 1
	}
}

// Has reports whether a view named name (ignoring case) exists.
func (v *Views) Has(name string) bool { return v.get(name) != nil }

// createView makes or replaces a view, after planning its query (so a
// view that cannot run is refused when it is made).
func (n *changeNode) createView(s *ast.CreateViewStmt) error {
	if err := n.newName(s.ViewName); err != nil {
		return err
	}
	name := s.ViewName.Name.O
	if held, ok := n.e.c.Resolve(name); ok {
		return n.b.at(ErrInvalid, s.ViewName, "a table named %q exists", held)
	}
	if old := n.e.views.get(name); old != nil && !s.OrReplace {
		return n.b.at(ErrInvalid, s.ViewName, "view %q exists (CREATE OR REPLACE VIEW)", old.name)
	}
	var sel ast.Node
	switch x := s.Select.(type) {
	case *ast.SelectStmt:
		sel = x
	case *ast.SetOprStmt:
		sel = x
	default:
		return n.b.at(ErrUnsupported, s.Select, "a view over %T", s.Select)
	}
	if q := findQualify(n.b.sql, sel); q != nil {
		// The view is kept as SQL the parser writes back, which knows
		// QUALIFY only as the HAVING it was rewritten to (parse_qualify.go).
		return n.b.at(ErrUnsupported, q, "QUALIFY in a view (filter by the window in a subquery: SELECT … FROM (SELECT …, row_number() OVER (…) AS rn FROM t) WHERE rn = 1)")
	}
	text := pipesKeptSQL(sel) // a || b kept apart from concat(a, b) (build_concat.go)
	if text == "" {
		return n.b.at(ErrInvalid, s.Select, "the view's query cannot be written back as SQL")
	}
	if numberParams(sel, nil, false) > 0 {
		return n.b.at(ErrInvalid, s.Select, "a view's query cannot have ? parameters")
	}
	def := &View{Name: name, SQL: text}
	for _, c := range s.Cols {
		def.Columns = append(def.Columns, c.O)
	}
	// Plan it as a statement would name it.
	probe := "SELECT * FROM " + quoteIdent(name)
	b := &builder{ctx: n.b.ctx, sql: probe, c: n.e.c, opts: n.e.opts}
	tmp := &Views{}
	tmp.Load(append(n.e.views.listWithout(name), *def))
	if err := tmp.bind(b, probe); err != nil {
		return err
	}
	st, err := parseSQL(probe)
	if err != nil {
		return err
	}
	if _, err := b.buildSelect(st.(*ast.SelectStmt)); err != nil {
		return err
	}
	return n.e.views.set(name, def)
}

// listWithout is List less the view named name.
func (v *Views) listWithout(name string) []View {
	var out []View
	for _, x := range v.List() {
		if cache.FoldName(x.Name) != cache.FoldName(name) {
			out = append(out, x)
		}
	}
	return out
}

// dropView drops a view.
func (n *changeNode) dropView(tn *ast.TableName, ifExists bool) error {
	d := n.e.views.get(tn.Name.O)
	if d == nil {
		if held, ok := n.e.c.Resolve(tn.Name.O); ok {
			return n.b.at(ErrInvalid, tn, "%q is a table (DROP TABLE)", held)
		}
		if ifExists {
			return nil
		}
		return n.b.at(ErrNoTable, tn, "no view %q", tn.Name.O)
	}
	return n.e.views.set(d.name, nil)
}

// quoteIdent quotes a name for SQL text ("a""b").
func quoteIdent(name string) string {
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// findQualify returns the condition of a QUALIFY of a SELECT in n
// (sql is the user's text, which tells a QUALIFY from a HAVING:
// isQualify); nil when there is none.
func findQualify(sql string, n ast.Node) ast.ExprNode {
	v := &qualifyFinder{sql: sql}
	n.Accept(v)
	return v.found
}

type qualifyFinder struct {
	sql   string
	found ast.ExprNode
}

func (v *qualifyFinder) Enter(n ast.Node) (ast.Node, bool) {
	if s, ok := n.(*ast.SelectStmt); ok && s.Having != nil && v.found == nil && isQualify(v.sql, s.Having.Expr) {
		v.found = s.Having.Expr
	}
	return n, v.found != nil
}

func (v *qualifyFinder) Leave(n ast.Node) (ast.Node, bool) { return n, true }
