package query

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/quiverdb/quiver/cache"
)

// information_schema.tables and information_schema.columns, so that
// generic SQL tools can look around: tables computed when a statement
// names them, from the cache's tables and the engine's views, and read
// like any derived table (joined, filtered, sorted).
//
//	tables:  table_catalog, table_schema, table_name, table_type
//	         ('BASE TABLE' or 'VIEW')
//	columns: table_catalog, table_schema, table_name, column_name,
//	         ordinal_position (from 1), is_nullable ('YES' or 'NO'),
//	         data_type (DuckDB's name: INTEGER, VARCHAR, DECIMAL(15,2) …)
//
// SHOW TABLES and DESCRIBE t are queries over them (show.go).

// infoSchemaName is the schema of the catalog tables.
const infoSchemaName = "information_schema"

// isInfoSchema reports whether a table name's schema is
// information_schema.
func isInfoSchema(tn *ast.TableName) bool {
	return strings.EqualFold(tn.Schema.O, infoSchemaName)
}

// infoRelation is the relation of information_schema.<table> in FROM;
// ok is false for a name of another schema.
func (b *builder) infoRelation(tn *ast.TableName, src *ast.TableSource) (*relation, bool, error) {
	if !isInfoSchema(tn) {
		return nil, false, nil
	}
	var t *constTable
	switch strings.ToLower(tn.Name.O) {
	case "tables":
		t = b.infoTables()
	case "columns":
		t = b.infoColumns()
	default:
		return nil, true, b.at(ErrNoTable, tn, "no table %s.%s (it has tables, columns)", infoSchemaName, tn.Name.O)
	}
	name := tn.Name.O
	if src.AsName.O != "" {
		name = src.AsName.O
	}
	return planRelation(t, name, src), true, nil
}

// catalogTable is one table or view as information_schema shows it.
type catalogTable struct {
	name   string
	view   bool
	schema *arrow.Schema // nil when a view does not plan now
}

// catalogTables lists the tables and views, by name.
func (b *builder) catalogTables(withSchemas bool) []catalogTable {
	var out []catalogTable
	for _, name := range b.c.Tables() {
		t := catalogTable{name: name}
		if withSchemas {
			if info, err := b.c.Info(name); err == nil {
				t.schema = info.Schema
			}
		}
		out = append(out, t)
	}
	if b.opts.Views != nil {
		for _, v := range b.opts.Views.List() {
			t := catalogTable{name: v.Name, view: true}
			if withSchemas {
				t.schema = b.viewSchema(v.Name)
			}
			out = append(out, t)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// viewSchema plans SELECT * FROM the view for its columns; nil when
// it no longer plans (a table it reads was dropped).
func (b *builder) viewSchema(name string) *arrow.Schema {
	sql := "SELECT * FROM " + quoteIdent(name)
	vb := &builder{ctx: b.ctx, sql: sql, c: b.c, opts: b.opts}
	if err := b.opts.Views.bind(vb, sql); err != nil {
		return nil
	}
	st, err := parseSQL(sql)
	if err != nil {
		return nil
	}
	p, err := vb.buildSelect(st.(*ast.SelectStmt))
	if err != nil {
		return nil
	}
	return p.schema()
}

func (b *builder) infoTables() *constTable {
	t := newConstTable("table_catalog", "table_schema", "table_name", "table_type")
	for _, c := range b.catalogTables(false) {
		kind := "BASE TABLE"
		if c.view {
			kind = "VIEW"
		}
		t.add(CatalogName, SchemaName, c.name, kind)
	}
	return t
}

func (b *builder) infoColumns() *constTable {
	t := newConstTable("table_catalog", "table_schema", "table_name", "column_name", "ordinal_position", "is_nullable", "data_type")
	t.ints[4] = true
	for _, c := range b.catalogTables(true) {
		if c.schema == nil {
			continue
		}
		for i, f := range c.schema.Fields() {
			null := "YES"
			if !f.Nullable {
				null = "NO"
			}
			t.add(CatalogName, SchemaName, c.name, f.Name, int64(i+1), null, sqlTypeName(f.Type))
		}
	}
	return t
}

// constTable is a small table of strings and int64s made at plan time,
// as Go values; its Arrow arrays are built when it is opened, so a plan
// that never runs holds no Arrow memory.
type constTable struct {
	names []string
	ints  []bool // column i holds int64s (else strings)
	rows  [][]any
}

func newConstTable(names ...string) *constTable {
	return &constTable{names: names, ints: make([]bool, len(names))}
}

func (t *constTable) add(vals ...any) { t.rows = append(t.rows, vals) }

func (t *constTable) schema() *arrow.Schema {
	fields := make([]arrow.Field, len(t.names))
	for i, n := range t.names {
		fields[i] = arrow.Field{Name: n, Type: arrow.BinaryTypes.String}
		if t.ints[i] {
			fields[i].Type = arrow.PrimitiveTypes.Int64
		}
	}
	return arrow.NewSchema(fields, nil)
}

func (t *constTable) explain(sb *strings.Builder, depth int) {
	indent(sb, depth)
	fmt.Fprintf(sb, "Catalog: %d rows\n", len(t.rows))
}

func (t *constTable) open(ctx context.Context, rt *runtime, c *cache.Cache) (operator, error) {
	return &constOp{t: t, mem: rt.mem}, nil
}

// constOp yields a constTable's rows as one batch.
type constOp struct {
	t    *constTable
	mem  memory.Allocator
	done bool
}

func (o *constOp) Schema() *arrow.Schema { return o.t.schema() }
func (o *constOp) Close()                {}

func (o *constOp) Next(context.Context) (arrow.RecordBatch, error) {
	if o.done {
		return nil, io.EOF
	}
	o.done = true
	schema := o.t.schema()
	rb := array.NewRecordBuilder(o.mem, schema)
	defer rb.Release()
	for _, row := range o.t.rows {
		for i, v := range row {
			switch x := v.(type) {
			case string:
				rb.Field(i).(*array.StringBuilder).Append(x)
			case int64:
				rb.Field(i).(*array.Int64Builder).Append(x)
			}
		}
	}
	return rb.NewRecordBatch(), nil
}
