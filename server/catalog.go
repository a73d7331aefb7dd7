package server

import (
	"context"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql/schema_ref"

	"github.com/quiverdb/quiver/query"
)

// quiver shows its tables as catalog "quiver", schema "main". Queries may
// qualify a table by the schema (main.lineitem); see query/names.go.
const (
	catalogName = query.CatalogName
	schemaName  = query.SchemaName
	tableType   = "TABLE"
	viewType    = "VIEW"
)

// commandInfo is the FlightInfo of a catalog command: the ticket is the
// command, which the Flight SQL layer dispatches to the DoGet methods
// below.
func (q *sqlServer) commandInfo(desc *flight.FlightDescriptor, schema *arrow.Schema) (*flight.FlightInfo, error) {
	return q.flightInfo(desc, schema, desc.Cmd), nil
}

func (q *sqlServer) GetFlightInfoCatalogs(ctx context.Context, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	return q.commandInfo(desc, schema_ref.Catalogs)
}

func (q *sqlServer) DoGetCatalogs(ctx context.Context) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	return q.stringRows(schema_ref.Catalogs, [][]string{{catalogName}})
}

func (q *sqlServer) GetFlightInfoSchemas(ctx context.Context, cmd flightsql.GetDBSchemas, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	return q.commandInfo(desc, schema_ref.DBSchemas)
}

func (q *sqlServer) DoGetDBSchemas(ctx context.Context, cmd flightsql.GetDBSchemas) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	var rows [][]string
	if catalogMatches(cmd.GetCatalog()) && patternMatches(cmd.GetDBSchemaFilterPattern(), schemaName) {
		rows = append(rows, []string{catalogName, schemaName})
	}
	return q.stringRows(schema_ref.DBSchemas, rows)
}

func (q *sqlServer) GetFlightInfoTableTypes(ctx context.Context, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	return q.commandInfo(desc, schema_ref.TableTypes)
}

func (q *sqlServer) DoGetTableTypes(ctx context.Context) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	return q.stringRows(schema_ref.TableTypes, [][]string{{tableType}, {viewType}})
}

func (q *sqlServer) GetFlightInfoTables(ctx context.Context, cmd flightsql.GetTables, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	if cmd.GetIncludeSchema() {
		return q.commandInfo(desc, schema_ref.TablesWithIncludedSchema)
	}
	return q.commandInfo(desc, schema_ref.Tables)
}

// DoGetTables lists the cached tables and the views (CREATE VIEW)
// matching the filters, by name, with their Arrow schemas when asked (a
// view's is its query's, planned now; a view that no longer plans is
// left out when schemas are asked).
func (q *sqlServer) DoGetTables(ctx context.Context, cmd flightsql.GetTables) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	schema := schema_ref.Tables
	if cmd.GetIncludeSchema() {
		schema = schema_ref.TablesWithIncludedSchema
	}
	type listed struct {
		name, kind string
		schema     *arrow.Schema
	}
	var all []listed
	if catalogMatches(cmd.GetCatalog()) && patternMatches(cmd.GetDBSchemaFilterPattern(), schemaName) {
		types := cmd.GetTableTypes()
		if len(types) == 0 || slices.Contains(types, tableType) {
			for _, name := range q.s.cache.Tables() {
				if info, err := q.s.cache.Info(name); err == nil { // else dropped since Tables
					all = append(all, listed{name, tableType, info.Schema})
				}
			}
		}
		if len(types) == 0 || slices.Contains(types, viewType) {
			for _, v := range q.s.views.List() {
				l := listed{name: v.Name, kind: viewType}
				if cmd.GetIncludeSchema() {
					sch, err := q.s.engine.SchemaContext(ctx, "SELECT * FROM "+quoteName(v.Name))
					if err != nil {
						continue // it reads a table dropped since
					}
					l.schema = sch
				}
				all = append(all, l)
			}
		}
	}
	slices.SortFunc(all, func(a, b listed) int { return strings.Compare(a.name, b.name) })
	b := array.NewRecordBuilder(q.s.mem, schema)
	defer b.Release()
	for _, t := range all {
		if !patternMatches(cmd.GetTableNameFilterPattern(), t.name) {
			continue
		}
		for i, v := range []string{catalogName, schemaName, t.name, t.kind} {
			b.Field(i).(*array.StringBuilder).Append(v)
		}
		if cmd.GetIncludeSchema() {
			b.Field(4).(*array.BinaryBuilder).Append(flight.SerializeSchema(t.schema, q.s.mem))
		}
	}
	return oneBatch(schema, b.NewRecordBatch())
}

// quoteName quotes a name for SQL text.
func quoteName(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }

// stringRows returns a result of string columns.
func (q *sqlServer) stringRows(schema *arrow.Schema, rows [][]string) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	b := array.NewRecordBuilder(q.s.mem, schema)
	defer b.Release()
	for _, row := range rows {
		for i, v := range row {
			b.Field(i).(*array.StringBuilder).Append(v)
		}
	}
	return oneBatch(schema, b.NewRecordBatch())
}

func oneBatch(schema *arrow.Schema, rec arrow.RecordBatch) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	ch := make(chan flight.StreamChunk, 1)
	ch <- flight.StreamChunk{Data: rec}
	close(ch)
	return schema, ch, nil
}

func catalogMatches(c *string) bool { return c == nil || *c == "" || *c == catalogName }

// patternMatches applies a Flight SQL filter pattern: nil matches all; %
// matches any run of characters and _ any one character.
func patternMatches(pattern *string, s string) bool {
	if pattern == nil {
		return true
	}
	return like([]rune(*pattern), []rune(s))
}

// like is the greedy wildcard match with one backtrack point (the last
// %), O(len(p) × len(s)) at worst: patterns come from clients, and the
// naive recursion is exponential on patterns such as "%a%a%a%a%b".
func like(p, s []rune) bool {
	pi, si := 0, 0
	star, mark := -1, 0
	for si < len(s) {
		switch {
		case pi < len(p) && (p[pi] == '_' || p[pi] == s[si]):
			pi++
			si++
		case pi < len(p) && p[pi] == '%':
			star, mark = pi, si
			pi++
		case star >= 0:
			pi = star + 1
			mark++
			si = mark
		default:
			return false
		}
	}
	for pi < len(p) && p[pi] == '%' {
		pi++
	}
	return pi == len(p)
}
