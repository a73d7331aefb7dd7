package query

import (
	"context"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/internal/pull"
)

// INSERT INTO t [(cols)] VALUES (…), (…) | SELECT …, and CREATE TABLE …
// AS SELECT. Each row of VALUES is planned as a SELECT without FROM (so
// a value may be any expression a SELECT list takes), then every value is
// converted to its column's type as CAST would (coerce): an integer into
// a DOUBLE or DECIMAL column, a string into a DATE or number column, as
// DuckDB does; what CAST refuses is refused, naming the column and both
// types. Columns the list leaves out are NULL; a NULL in a NOT NULL
// column is refused. The new rows go to the table in batches of at most
// SmallAppendRows rows (rebatched: a query's small result batches are
// concatenated), in one Append (or Put, for CREATE TABLE … AS SELECT):
// readers see all of them or none. An INSERT of fewer rows coalesces
// with the table's trailing small batches (cache.TableOptions.Coalesce:
// the cache re-encodes them with the new rows as one batch, so n
// single-row INSERTs leave at most log2(SmallAppendRows) small batches,
// not n; with a store, their chunk files are replaced too).

// SmallAppendRows is the rows of the batches a change stores, and the
// size under which an append coalesces with the table's trailing small
// batches (cache.TableOptions.Coalesce): the server's bulk ingest appends
// with it too.
const SmallAppendRows = 65536

// insert runs INSERT and returns the rows inserted.
func (n *changeNode) insert(ctx context.Context, s *ast.InsertStmt) (int64, error) {
	switch {
	case s.IsReplace:
		return 0, n.b.at(ErrUnsupported, s, "REPLACE INTO (quiver has no keys)")
	case len(s.OnDuplicate) > 0:
		return 0, n.b.at(ErrUnsupported, s, "ON DUPLICATE KEY UPDATE (quiver has no keys)")
	case s.Setlist:
		return 0, n.b.at(ErrUnsupported, s, "INSERT … SET (use INSERT INTO t (cols) VALUES (…))")
	case s.IgnoreErr:
		return 0, n.b.at(ErrUnsupported, s, "INSERT IGNORE")
	}
	tn, ok := insertTarget(s)
	if !ok {
		return 0, n.b.at(ErrUnsupported, s, "INSERT into %s", restore(s.Table))
	}
	held, ok, err := n.heldTable(tn)
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, n.noTable(tn)
	}
	info, err := n.e.c.Info(held)
	if err != nil {
		return 0, err
	}
	target := info.Schema
	from, err := n.insertColumns(s, target)
	if err != nil {
		return 0, err
	}
	for i, f := range target.Fields() {
		if from[i] < 0 && !f.Nullable {
			return 0, n.b.at(ErrInvalid, s, "column %q is NOT NULL and is given no value", f.Name)
		}
	}
	var src func() (arrow.RecordBatch, error)
	var release func()
	if s.Lists != nil {
		src, err = n.valuesSource(ctx, s, target, from)
		release = func() {}
	} else {
		src, release, err = n.selectSource(ctx, s.Select, target, from, len(s.Columns) > 0)
	}
	if err != nil {
		return 0, err
	}
	defer release()
	next := rebatch(n.e.opts.Alloc, target, src)
	if hasKeys(target) { // ddl_keys.go: every new row is checked before any is stored
		recs, err := readAll(next)
		defer releaseRecs(recs)
		if err != nil {
			return 0, err
		}
		if err := n.checkKeys(ctx, held, recs); err != nil {
			return 0, err
		}
		next = replay(recs)
	}
	r := pull.Records(target, next)
	defer r.Release()
	if _, err := n.e.opts.Tables.Append(ctx, held, r, cache.TableOptions{Coalesce: SmallAppendRows}); err != nil {
		return 0, err
	}
	return r.Rows(), nil
}

// insertTarget is the table INSERT names.
func insertTarget(s *ast.InsertStmt) (*ast.TableName, bool) {
	if s.Table == nil || s.Table.TableRefs == nil || s.Table.TableRefs.Right != nil {
		return nil, false
	}
	src, ok := s.Table.TableRefs.Left.(*ast.TableSource)
	if !ok {
		return nil, false
	}
	tn, ok := src.Source.(*ast.TableName)
	return tn, ok
}

// insertColumns maps each column of the table to the position of its
// value in a row of the statement (-1: not given, NULL).
func (n *changeNode) insertColumns(s *ast.InsertStmt, target *arrow.Schema) ([]int, error) {
	from := make([]int, target.NumFields())
	if len(s.Columns) == 0 {
		for i := range from {
			from[i] = i
		}
		return from, nil
	}
	for i := range from {
		from[i] = -1
	}
	for k, c := range s.Columns {
		i := fieldIndexFold(target, c.Name.O)
		switch {
		case i < 0:
			return nil, n.b.at(ErrInvalid, c, "table has no column %q (columns: %s)", c.Name.O, fieldNames(target))
		case from[i] >= 0:
			return nil, n.b.at(ErrInvalid, c, "column %q is named twice", c.Name.O)
		}
		from[i] = k
	}
	return from, nil
}

// fieldIndexFold finds a column by name, ignoring case.
func fieldIndexFold(s *arrow.Schema, name string) int {
	for i, f := range s.Fields() {
		if cache.FoldName(f.Name) == cache.FoldName(name) {
			return i
		}
	}
	return -1
}

func fieldNames(s *arrow.Schema) string {
	var out string
	for i, f := range s.Fields() {
		if i > 0 {
			out += ", "
		}
		out += f.Name
	}
	return out
}

// valuesSource plans and runs each row of VALUES as a SELECT without
// FROM, coerced to the table's columns; the source yields each row as a
// batch of one row.
func (n *changeNode) valuesSource(ctx context.Context, s *ast.InsertStmt, target *arrow.Schema, from []int) (func() (arrow.RecordBatch, error), error) {
	want := len(s.Columns)
	if want == 0 {
		want = target.NumFields()
	}
	for i, row := range s.Lists {
		if len(row) != want {
			return nil, n.b.at(ErrInvalid, s, "row %d of VALUES has %d values for %d columns", i+1, len(row), want)
		}
	}
	i := 0
	return func() (arrow.RecordBatch, error) {
		if i == len(s.Lists) {
			return nil, io.EOF
		}
		row := s.Lists[i]
		i++
		sel := &ast.SelectStmt{Kind: ast.SelectStmtKindSelect, Fields: &ast.FieldList{}}
		for _, v := range row {
			if _, isDefault := v.(*ast.DefaultExpr); isDefault {
				return nil, n.b.at(ErrUnsupported, v, "DEFAULT (quiver columns have no defaults; leave the column out for NULL)")
			}
			sel.Fields.Fields = append(sel.Fields.Fields, &ast.SelectField{Expr: v})
		}
		p, err := n.b.child().buildSelect(sel)
		if err != nil {
			return nil, err
		}
		co, err := n.newCoercer(p.schema(), target, from, s)
		if err != nil {
			return nil, err
		}
		res, err := n.e.run(ctx, p)
		if err != nil {
			return nil, err
		}
		defer res.Release()
		if !res.Next() {
			if err := res.Err(); err != nil {
				return nil, err
			}
			return nil, n.b.at(ErrExec, s, "row %d of VALUES gave no row", i)
		}
		return co.apply(ctx, n.e.opts.Alloc, res.RecordBatch())
	}, nil
}

// selectSource plans and runs the query of INSERT … SELECT or CREATE
// TABLE … AS SELECT, its batches coerced to target.
func (n *changeNode) selectSource(ctx context.Context, q ast.Node, target *arrow.Schema, from []int, named bool) (func() (arrow.RecordBatch, error), func(), error) {
	p, err := n.planQuery(q)
	if err != nil {
		return nil, nil, err
	}
	got := p.schema().NumFields()
	want := target.NumFields()
	if named {
		want = 0
		for _, j := range from {
			if j >= 0 {
				want++
			}
		}
	}
	if got != want {
		return nil, nil, n.b.at(ErrInvalid, q, "the query returns %d columns for %d", got, want)
	}
	return n.selectSourcePlanned(ctx, p, target, from, q)
}

// planQuery plans the query of a change, with the views it names.
func (n *changeNode) planQuery(q ast.Node) (planNode, error) {
	b := n.b.child()
	if err := n.e.views.bind(b, n.b.sql); err != nil {
		return nil, err
	}
	switch s := q.(type) {
	case *ast.SelectStmt:
		return b.buildSelect(s)
	case *ast.SetOprStmt:
		return b.buildSetOpr(s)
	}
	return nil, n.b.at(ErrUnsupported, q, "%s as the source of rows", restore(q))
}

// createAs runs CREATE TABLE … AS SELECT: the table gets the query's
// column names and types (a computed column's engine type: int32 + 1 is
// BIGINT), and its rows.
func (n *changeNode) createAs(ctx context.Context, s *ast.CreateTableStmt, name string) (int64, error) {
	p, err := n.planQuery(s.Select)
	if err != nil {
		return 0, err
	}
	src := p.schema()
	fields := make([]arrow.Field, src.NumFields())
	from := make([]int, len(fields))
	seen := map[string]bool{}
	for i, f := range src.Fields() {
		if seen[cache.FoldName(f.Name)] {
			return 0, n.b.at(ErrInvalid, s.Select, "the query has two columns named %q (name them with AS)", f.Name)
		}
		seen[cache.FoldName(f.Name)] = true
		if f.Type.ID() == arrow.NULL {
			return 0, n.b.at(ErrInvalid, s.Select, "column %q is a bare NULL, of no type (CAST it to one)", f.Name)
		}
		fields[i] = arrow.Field{Name: f.Name, Type: f.Type, Nullable: true}
		from[i] = i
	}
	target := arrow.NewSchema(fields, nil)
	next, release, err := n.selectSourcePlanned(ctx, p, target, from, s.Select)
	if err != nil {
		return 0, err
	}
	defer release()
	r := pull.Records(target, rebatch(n.e.opts.Alloc, target, next))
	defer r.Release()
	if _, err := n.e.opts.Tables.Put(ctx, name, r, cache.TableOptions{}); err != nil {
		return 0, err
	}
	return r.Rows(), nil
}

// selectSourcePlanned runs a planned query as selectSource does.
func (n *changeNode) selectSourcePlanned(ctx context.Context, p planNode, target *arrow.Schema, from []int, at ast.Node) (func() (arrow.RecordBatch, error), func(), error) {
	co, err := n.newCoercer(p.schema(), target, from, at)
	if err != nil {
		return nil, nil, err
	}
	res, err := n.e.run(ctx, p)
	if err != nil {
		return nil, nil, err
	}
	next := func() (arrow.RecordBatch, error) {
		for res.Next() {
			if rec := res.RecordBatch(); rec.NumRows() > 0 {
				return co.apply(ctx, n.e.opts.Alloc, rec)
			}
		}
		if err := res.Err(); err != nil {
			return nil, err
		}
		return nil, io.EOF
	}
	return next, res.Release, nil
}
