package query

import (
	"context"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/internal/pull"
	"github.com/quiverdb/quiver/query/expr"
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
func (n *changeNode) createAs(ctx context.Context, s *ast.CreateTableStmt) (int64, error) {
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
	if _, err := n.e.opts.Tables.Put(ctx, s.Table.Name.O, r, cache.TableOptions{}); err != nil {
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

// coercer converts batches of a source schema to a table's columns.
type coercer struct {
	target *arrow.Schema
	from   []int       // per table column: the source column, or -1 (NULL)
	casts  []expr.Expr // per table column: the CAST of the source's engine value; nil: none needed
}

// newCoercer checks, per column, that the source type converts to the
// column's type, and prepares the CAST that does it.
func (n *changeNode) newCoercer(src, target *arrow.Schema, from []int, at ast.Node) (*coercer, error) {
	co := &coercer{target: target, from: from, casts: make([]expr.Expr, len(from))}
	for i, f := range target.Fields() {
		j := from[i]
		if j < 0 {
			if !f.Nullable {
				return nil, n.b.at(ErrInvalid, at, "column %q is NOT NULL and is given no value", f.Name)
			}
			continue
		}
		st := src.Field(j).Type
		if arrow.TypeEqual(st, f.Type) {
			continue
		}
		et, ok := expr.EngineType(f.Type)
		if !ok {
			return nil, n.b.at(ErrUnsupported, at, "column %q is %s: INSERT cannot convert %s values to it yet", f.Name, sqlTypeName(f.Type), sqlTypeName(st))
		}
		sEng, ok := expr.EngineType(st)
		if !ok {
			return nil, n.b.at(ErrUnsupported, at, "column %q: values of type %s cannot be converted to %s", f.Name, sqlTypeName(st), sqlTypeName(f.Type))
		}
		c, err := expr.Cast(expr.Column(0, f.Name, sEng), et)
		if err != nil {
			return nil, n.b.at(ErrInvalid, at, "column %q is %s and cannot take a %s value: %v", f.Name, sqlTypeName(f.Type), sqlTypeName(st), err)
		}
		co.casts[i] = c
	}
	return co, nil
}

// apply converts one source batch (not released) to the table's columns.
func (co *coercer) apply(ctx context.Context, mem memory.Allocator, rec arrow.RecordBatch) (out arrow.RecordBatch, err error) {
	rows := int(rec.NumRows())
	cols := make([]arrow.Array, 0, len(co.from))
	defer func() {
		for _, c := range cols {
			c.Release()
		}
	}()
	for i, f := range co.target.Fields() {
		col, err := co.column(ctx, mem, rec, i, rows)
		if err != nil {
			return nil, &Error{Kind: ErrExec, Msg: fmt.Sprintf("column %q", f.Name), Err: err}
		}
		cols = append(cols, col)
		if !f.Nullable && col.NullN() > 0 {
			return nil, &Error{Kind: ErrInvalid, Msg: fmt.Sprintf("NULL in column %q, which is NOT NULL", f.Name)}
		}
	}
	return array.NewRecordBatch(co.target, cols, int64(rows)), nil
}

func (co *coercer) column(ctx context.Context, mem memory.Allocator, rec arrow.RecordBatch, i, rows int) (arrow.Array, error) {
	f := co.target.Field(i)
	j := co.from[i]
	if j < 0 {
		return array.MakeArrayOfNull(mem, f.Type, rows), nil
	}
	src := rec.Column(j)
	if co.casts[i] == nil {
		src.Retain()
		return src, nil
	}
	eng, err := expr.ToEngine(ctx, mem, src)
	if err != nil {
		return nil, err
	}
	one := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: f.Name, Type: eng.DataType(), Nullable: true}}, nil), []arrow.Array{eng}, int64(rows))
	eng.Release()
	defer one.Release()
	v, err := co.casts[i].Eval(ctx, mem, one)
	if err != nil {
		return nil, err
	}
	defer v.Release()
	return expr.FromEngine(ctx, mem, v, f.Type)
}

// rebatch concatenates what next yields into batches of about
// SmallAppendRows rows: a VALUES list yields a batch per row, a query
// batches of any size, and each batch a table holds costs its chunk
// headers and statistics.
func rebatch(mem memory.Allocator, schema *arrow.Schema, next func() (arrow.RecordBatch, error)) func() (arrow.RecordBatch, error) {
	done := false
	return func() (arrow.RecordBatch, error) {
		if done {
			return nil, io.EOF
		}
		var held []arrow.RecordBatch
		defer func() {
			for _, r := range held {
				r.Release()
			}
		}()
		var rows int64
		for rows < SmallAppendRows {
			rec, err := next()
			if err == io.EOF {
				done = true
				break
			}
			if err != nil {
				return nil, err
			}
			held = append(held, rec)
			rows += rec.NumRows()
		}
		switch len(held) {
		case 0:
			return nil, io.EOF
		case 1:
			held[0].Retain()
			return held[0], nil
		}
		return concatBatches(mem, schema, held)
	}
}

// concatBatches joins batches of one schema into one.
func concatBatches(mem memory.Allocator, schema *arrow.Schema, recs []arrow.RecordBatch) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, schema.NumFields())
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	parts := make([]arrow.Array, len(recs))
	var rows int64
	for _, r := range recs {
		rows += r.NumRows()
	}
	for i := range cols {
		for k, r := range recs {
			parts[k] = r.Column(i)
		}
		c, err := array.Concatenate(parts, mem)
		if err != nil {
			return nil, &Error{Kind: ErrExec, Msg: "joining inserted rows", Err: err}
		}
		cols[i] = c
	}
	return array.NewRecordBatch(schema, cols, rows), nil
}

// readAll reads what next yields to the end.
func readAll(next func() (arrow.RecordBatch, error)) ([]arrow.RecordBatch, error) {
	var out []arrow.RecordBatch
	for {
		rec, err := next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, rec)
	}
}

// replay yields recs again, each retained for its reader.
func replay(recs []arrow.RecordBatch) func() (arrow.RecordBatch, error) {
	i := 0
	return func() (arrow.RecordBatch, error) {
		if i == len(recs) {
			return nil, io.EOF
		}
		i++
		recs[i-1].Retain()
		return recs[i-1], nil
	}
}
