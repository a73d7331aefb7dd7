package client

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"

	"github.com/quiverdb/quiver/batch"
)

// Table is one table the server lists.
type Table struct {
	Catalog, Schema, Name, Type string
	// Columns is the table's Arrow schema, with TablesOptions.Columns.
	Columns *arrow.Schema
}

// TablesOptions filter Tables. Patterns are SQL LIKE patterns (% and _);
// empty matches every name.
type TablesOptions struct {
	Catalog       string
	SchemaPattern string
	TablePattern  string
	Columns       bool // fetch each table's Arrow schema too
}

// Tables lists the server's tables (Flight SQL GetTables).
func (c *Client) Tables(ctx context.Context, opts TablesOptions) ([]Table, error) {
	req := &flightsql.GetTablesOpts{IncludeSchema: opts.Columns}
	if opts.Catalog != "" {
		req.Catalog = &opts.Catalog
	}
	if opts.SchemaPattern != "" {
		req.DbSchemaFilterPattern = &opts.SchemaPattern
	}
	if opts.TablePattern != "" {
		req.TableNameFilterPattern = &opts.TablePattern
	}
	info, err := c.fs.GetTables(ctx, req)
	if err != nil {
		return nil, c.explain(err, "invalid request")
	}
	var out []Table
	err = c.eachRow(ctx, info, func(rec arrow.RecordBatch, i int) error {
		t := Table{Catalog: cell(rec, 0, i), Schema: cell(rec, 1, i), Name: cell(rec, 2, i), Type: cell(rec, 3, i)}
		if opts.Columns && rec.NumCols() > 4 {
			b, ok := rec.Column(4).(*array.Binary)
			if !ok {
				return fmt.Errorf("%w: GetTables table_schema is %s, not binary", batch.ErrCorrupt, rec.Column(4).DataType())
			}
			s, err := flight.DeserializeSchema(b.Value(i), c.opts.Alloc)
			if err != nil {
				return fmt.Errorf("%w: the schema of table %s: %v", batch.ErrCorrupt, t.Name, err)
			}
			t.Columns = s
		}
		out = append(out, t)
		return nil
	})
	return out, err
}

// Schema is one database schema the server lists.
type Schema struct {
	Catalog, Name string
}

// Schemas lists the server's database schemas (Flight SQL GetDbSchemas).
func (c *Client) Schemas(ctx context.Context) ([]Schema, error) {
	info, err := c.fs.GetDBSchemas(ctx, &flightsql.GetDBSchemasOpts{})
	if err != nil {
		return nil, c.explain(err, "invalid request")
	}
	var out []Schema
	err = c.eachRow(ctx, info, func(rec arrow.RecordBatch, i int) error {
		out = append(out, Schema{Catalog: cell(rec, 0, i), Name: cell(rec, 1, i)})
		return nil
	})
	return out, err
}

// eachRow fetches info and calls f on every row.
func (c *Client) eachRow(ctx context.Context, info *flight.FlightInfo, f func(rec arrow.RecordBatch, i int) error) error {
	rs, err := c.fetch(ctx, info, "invalid request")
	if err != nil {
		return err
	}
	defer rs.Release()
	for rs.Next() {
		rec := rs.RecordBatch()
		for i := range int(rec.NumRows()) {
			if err := f(rec, i); err != nil {
				return err
			}
		}
	}
	return rs.Err()
}

// cell is column col of row i as text; "" for NULL or a missing column.
func cell(rec arrow.RecordBatch, col, i int) string {
	if col >= int(rec.NumCols()) || rec.Column(col).IsNull(i) {
		return ""
	}
	if s, ok := rec.Column(col).(*array.String); ok {
		return s.Value(i)
	}
	return rec.Column(col).ValueStr(i)
}
