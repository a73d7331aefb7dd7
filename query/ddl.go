package query

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/quiverdb/quiver/cache"
)

// Statements that change tables and views: CREATE [OR REPLACE] TABLE
// (with column types, ddl_types.go, or AS SELECT; OR REPLACE as DuckDB
// has it, ddl_parse.go), INSERT INTO … VALUES / SELECT
// (ddl_insert.go), CREATE [OR REPLACE] VIEW (views.go), DROP TABLE / VIEW
// [IF EXISTS], TRUNCATE. They plan to a changeNode whose result is one
// row, {count: rows inserted or removed}, so that Query runs them like
// a SELECT (a Flight SQL client that sends DDL through Execute gets that
// row); Exec runs one and returns the count.
//
// Tables change through Options.Tables (the cache, or a durable store),
// each change atomic: a reader sees a table before a change or after it,
// never part of it. Changes are serialized by the engine (one at a
// time), so an INSERT … SELECT reads the table as it was and appends
// without a conflict.

// countSchema is the result of a change: the rows it inserted or removed.
var countSchema = arrow.NewSchema([]arrow.Field{{Name: "count", Type: arrow.PrimitiveTypes.Int64}}, nil)

// IsChange reports whether sql is a statement that changes tables or
// views (Exec's kind) rather than a query; false when it does not parse.
func IsChange(sql string) bool {
	stmt, err := parseSQL(sql)
	if err != nil {
		return false
	}
	return isChangeStmt(stmt)
}

func isChangeStmt(stmt ast.StmtNode) bool {
	switch stmt.(type) {
	case *ast.CreateTableStmt, *ast.InsertStmt, *ast.CreateViewStmt, *ast.DropTableStmt, *ast.TruncateTableStmt,
		*ast.CreateIndexStmt, *ast.SetStmt:
		return true
	}
	return false
}

// Exec runs a statement that changes tables or views and returns the
// rows it inserted (INSERT, CREATE TABLE … AS SELECT) or removed
// (TRUNCATE); 0 for the others. A query is refused: use Query.
func (e *Engine) Exec(ctx context.Context, sql string, params ...any) (int64, error) {
	p, _, err := e.plan(ctx, sql, params)
	if err != nil {
		return 0, err
	}
	ch, ok := p.(*changeNode)
	if !ok {
		return 0, &Error{Kind: ErrInvalid, Msg: "Exec runs statements that change tables (CREATE, INSERT, DROP, TRUNCATE); this one is a query: use Query"}
	}
	return ch.run(ctx)
}

// changeNode is a planned change; it runs when its result is first read.
type changeNode struct {
	e      *Engine
	b      *builder
	stmt   ast.StmtNode
	params []any
}

func (n *changeNode) schema() *arrow.Schema { return countSchema }

func (n *changeNode) explain(sb *strings.Builder, depth int) {
	indent(sb, depth)
	fmt.Fprintf(sb, "Change: %s\n", statementName(n.stmt))
}

func (n *changeNode) open(ctx context.Context, rt *runtime, c *cache.Cache) (operator, error) {
	return &changeOp{n: n, mem: rt.mem}, nil
}

// changeOp runs the change at its first Next and returns the count.
type changeOp struct {
	n    *changeNode
	mem  memory.Allocator
	done bool
}

func (o *changeOp) Schema() *arrow.Schema { return countSchema }
func (o *changeOp) Close()                {}

func (o *changeOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	if o.done {
		return nil, io.EOF
	}
	o.done = true
	n, err := o.n.run(ctx)
	if err != nil {
		return nil, err
	}
	bld := array.NewInt64Builder(o.mem)
	defer bld.Release()
	bld.Append(n)
	col := bld.NewArray()
	defer col.Release()
	return array.NewRecordBatch(countSchema, []arrow.Array{col}, 1), nil
}

// run makes the change, one at a time per engine.
func (n *changeNode) run(ctx context.Context) (int64, error) {
	e := n.e
	e.changes.Lock()
	defer e.changes.Unlock()
	if err := ctx.Err(); err != nil {
		return 0, cancelled(err)
	}
	var rows int64
	var err error
	switch s := n.stmt.(type) {
	case *ast.CreateTableStmt:
		rows, err = n.createTable(ctx, s)
	case *ast.InsertStmt:
		rows, err = n.insert(ctx, s) // ddl_insert.go
	case *ast.CreateViewStmt:
		err = n.createView(s) // views.go
	case *ast.DropTableStmt:
		err = n.drop(s)
	case *ast.TruncateTableStmt:
		rows, err = n.truncate(ctx, s)
	case *ast.CreateIndexStmt:
		err = n.createIndex(s) // ddl_keys.go
	case *ast.SetStmt:
		err = n.set(ctx, s) // timezone.go
	default:
		err = n.b.at(ErrUnsupported, s, "%s statements", statementName(s))
	}
	return rows, n.wrap(err)
}

// wrap returns the engine's own errors as they are (an *Error the
// cache's read of the new rows wrapped is unwrapped), a cancellation as
// one, and the TableWriter's errors unchanged (a store's full disk, a
// name clash, the cache's budget: the caller maps them as it maps them
// for bulk ingest).
func (n *changeNode) wrap(err error) error {
	var qe *Error
	switch {
	case err == nil:
		return nil
	case errors.As(err, &qe):
		return qe
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return cancelled(err)
	}
	return err
}

// planChange plans a change statement; ok is false for any other.
func (e *Engine) planChange(b *builder, stmt ast.StmtNode, params []any) (planNode, bool, error) {
	if !isChangeStmt(stmt) {
		return nil, false, nil
	}
	if e.opts.Tables == nil {
		return nil, true, b.at(ErrUnsupported, stmt, "%s: this engine has no TableWriter (Options.Tables)", statementName(stmt))
	}
	return &changeNode{e: e, b: b, stmt: stmt, params: params}, true, nil
}

// checkSchemaName refuses a table name qualified by another schema than
// main.
func (n *changeNode) checkSchemaName(tn *ast.TableName) error {
	if tn.Schema.O != "" && cache.FoldName(tn.Schema.O) != SchemaName {
		return n.b.at(ErrNoTable, tn, "no schema %q: tables are made in schema %s", tn.Schema.O, SchemaName)
	}
	return nil
}

// heldTable resolves the name of an existing table (unquoted or not,
// ignoring case: a change names its table once, as written).
func (n *changeNode) heldTable(tn *ast.TableName) (string, bool, error) {
	if err := n.checkSchemaName(tn); err != nil {
		return "", false, err
	}
	held, ok := n.e.c.Resolve(tn.Name.O)
	return held, ok, nil
}

// noTable is the error of a change naming a table that does not exist.
func (n *changeNode) noTable(tn *ast.TableName) error {
	if v := n.e.views.get(tn.Name.O); v != nil {
		return n.b.at(ErrInvalid, tn, "%q is a view, not a table", v.name)
	}
	return n.b.at(ErrNoTable, tn, "%q (tables: %s)", tn.Name.O, strings.Join(n.e.c.Tables(), ", "))
}

// newName checks that a table or view may be made under tn's name: no
// table or view has it, ignoring case (unless replace allows the same
// kind to be replaced).
func (n *changeNode) newName(tn *ast.TableName) error {
	if err := n.checkSchemaName(tn); err != nil {
		return err
	}
	if tn.Name.O == "" || len(tn.Name.O) > maxTableName {
		return n.b.at(ErrInvalid, tn, "a table or view name of %d bytes; 1 to %d", len(tn.Name.O), maxTableName)
	}
	if strings.HasPrefix(cache.FoldName(tn.Name.O), sentinelPrefix) {
		return n.b.at(ErrInvalid, tn, "names starting with %q are reserved", sentinelPrefix)
	}
	return nil
}

// maxTableName bounds a table or view name made by SQL, as the server
// bounds one made by ingest.
const maxTableName = 128

// createTable makes a table from column definitions (empty) or from a
// query (CREATE TABLE … AS SELECT: its rows).
func (n *changeNode) createTable(ctx context.Context, s *ast.CreateTableStmt) (int64, error) {
	switch {
	case s.ReferTable != nil:
		return 0, n.b.at(ErrUnsupported, s, "CREATE TABLE … LIKE")
	case s.TemporaryKeyword != ast.TemporaryNone:
		return 0, n.b.at(ErrUnsupported, s, "temporary tables")
	case s.Partition != nil:
		return 0, n.b.at(ErrUnsupported, s, "partitioned tables")
	}
	if err := n.newName(s.Table); err != nil {
		return 0, err
	}
	name := s.Table.Name.O
	if held, ok := n.e.c.Resolve(name); ok {
		switch {
		case replacesTable(n.b.sql): // ddl_parse.go
			name = held // replaced under the name it has
		case s.IfNotExists:
			return 0, nil
		default:
			return 0, n.b.at(ErrInvalid, s.Table, "table %q exists (DROP it first, CREATE TABLE IF NOT EXISTS, or CREATE OR REPLACE TABLE)", held)
		}
	}
	if v := n.e.views.get(s.Table.Name.O); v != nil {
		if s.IfNotExists {
			return 0, nil
		}
		return 0, n.b.at(ErrInvalid, s.Table, "a view named %q exists", v.name)
	}
	if s.Select != nil {
		if len(s.Cols) > 0 {
			return 0, n.b.at(ErrUnsupported, s, "CREATE TABLE with both columns and AS SELECT")
		}
		return n.createAs(ctx, s, name)
	}
	if len(s.Cols) == 0 {
		return 0, n.b.at(ErrInvalid, s, "CREATE TABLE %s without columns", s.Table.Name.O)
	}
	fields := make([]arrow.Field, len(s.Cols))
	seen := map[string]bool{}
	for i, c := range s.Cols {
		name := c.Name.Name.O
		if seen[cache.FoldName(name)] {
			return 0, n.b.at(ErrInvalid, c, "column %q is defined twice", name)
		}
		seen[cache.FoldName(name)] = true
		dt, err := arrowType(c.Tp)
		if err != nil {
			return 0, n.b.at(ErrUnsupported, c, "column %s: %v", name, err)
		}
		nullable, key := true, ""
		for _, o := range c.Options {
			switch o.Tp {
			case ast.ColumnOptionNotNull:
				nullable = false
			case ast.ColumnOptionNull:
				nullable = true
			case ast.ColumnOptionPrimaryKey:
				key = "primary"
			case ast.ColumnOptionUniqKey:
				key = "unique"
			default:
				return 0, n.b.at(ErrUnsupported, c, "column %s: %s (quiver columns take NULL, NOT NULL, PRIMARY KEY and UNIQUE; no defaults or other constraints)", name, columnOptionName(o.Tp))
			}
		}
		fields[i] = arrow.Field{Name: name, Type: dt, Nullable: nullable}
		if key != "" {
			fields[i] = withKey(fields[i], key)
		}
	}
	if err := n.tableKeys(s, fields); err != nil { // ddl_keys.go
		return 0, err
	}
	schema := arrow.NewSchema(fields, nil)
	_, err := n.e.opts.Tables.Put(ctx, name, emptyReader(schema), cache.TableOptions{})
	return 0, err
}

func columnOptionName(t ast.ColumnOptionType) string {
	switch t {
	case ast.ColumnOptionPrimaryKey:
		return "PRIMARY KEY"
	case ast.ColumnOptionUniqKey:
		return "UNIQUE"
	case ast.ColumnOptionDefaultValue:
		return "DEFAULT"
	case ast.ColumnOptionAutoIncrement:
		return "AUTO_INCREMENT"
	case ast.ColumnOptionCheck:
		return "CHECK"
	case ast.ColumnOptionReference:
		return "REFERENCES"
	case ast.ColumnOptionGenerated:
		return "a generated column"
	case ast.ColumnOptionComment:
		return "COMMENT"
	case ast.ColumnOptionCollate:
		return "COLLATE"
	}
	return fmt.Sprintf("column option %d", t)
}

// emptyReader reads no batches of schema: a table with no rows.
func emptyReader(schema *arrow.Schema) array.RecordReader {
	r, _ := array.NewRecordReader(schema, nil)
	return r
}

// drop drops tables or views.
func (n *changeNode) drop(s *ast.DropTableStmt) error {
	if s.TemporaryKeyword != ast.TemporaryNone {
		return n.b.at(ErrUnsupported, s, "temporary tables")
	}
	for _, tn := range s.Tables {
		if err := n.checkSchemaName(tn); err != nil {
			return err
		}
		if s.IsView {
			if err := n.dropView(tn, s.IfExists); err != nil {
				return err
			}
			continue
		}
		held, ok := n.e.c.Resolve(tn.Name.O)
		if !ok {
			if v := n.e.views.get(tn.Name.O); v != nil {
				return n.b.at(ErrInvalid, tn, "%q is a view (DROP VIEW)", v.name)
			}
			if s.IfExists {
				continue
			}
			return n.noTable(tn)
		}
		if _, err := n.e.opts.Tables.Drop(held); err != nil {
			return err
		}
	}
	return nil
}

// truncate empties a table, keeping its columns; it returns the rows
// removed.
func (n *changeNode) truncate(ctx context.Context, s *ast.TruncateTableStmt) (int64, error) {
	held, ok, err := n.heldTable(s.Table)
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, n.noTable(s.Table)
	}
	info, err := n.e.c.Info(held)
	if err != nil {
		return 0, err
	}
	if _, err := n.e.opts.Tables.Put(ctx, held, emptyReader(info.Schema), cache.TableOptions{Codec: info.Codec}); err != nil {
		return 0, err
	}
	return info.Rows, nil
}
