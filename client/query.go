package client

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
)

// Query runs sql and returns its result, read as it streams. The result
// holds the fetch open until it is read to the end or released;
// cancelling ctx ends it on the server.
func (c *Client) Query(ctx context.Context, sql string) (*Result, error) {
	info, err := c.fs.Execute(ctx, sql)
	if err != nil {
		return nil, c.explain(err, "invalid SQL")
	}
	return c.fetch(ctx, info, "invalid SQL")
}

// Exec runs sql, a statement that changes tables (CREATE TABLE [AS
// SELECT], INSERT, CREATE VIEW, DROP, TRUNCATE), with Flight SQL's
// ExecuteUpdate, and returns the rows it inserted or removed. The server
// refuses a query sent this way (use Query).
func (c *Client) Exec(ctx context.Context, sql string) (int64, error) {
	n, err := c.fs.ExecuteUpdate(ctx, sql)
	if err != nil {
		return 0, c.explain(err, "invalid SQL")
	}
	return n, nil
}

// Stmt is a prepared statement on the server, with parameters bound by
// Query. It is not safe for concurrent use; Close frees it on the server.
type Stmt struct {
	c  *Client
	ps *flightsql.PreparedStatement
}

// Prepare plans sql on the server once; ? marks its parameters.
func (c *Client) Prepare(ctx context.Context, sql string) (*Stmt, error) {
	ps, err := c.fs.Prepare(ctx, sql)
	if err != nil {
		return nil, c.explain(err, "invalid SQL")
	}
	return &Stmt{c: c, ps: ps}, nil
}

// ParameterSchema is the schema of the parameters the server expects
// (nil if it did not say).
func (s *Stmt) ParameterSchema() *arrow.Schema { return s.ps.ParameterSchema() }

// Schema is the schema of the statement's result (nil if the server did
// not say).
func (s *Stmt) Schema() *arrow.Schema { return s.ps.DatasetSchema() }

// Query runs the statement with params, one row of parameter values
// (column i is parameter i+1; nil for a statement without parameters),
// and returns its result as Client.Query does. The statement keeps a
// reference to params until the next Query or Close.
func (s *Stmt) Query(ctx context.Context, params arrow.RecordBatch) (*Result, error) {
	if params != nil {
		s.ps.SetParameters(params)
	}
	info, err := s.ps.Execute(ctx)
	if err != nil {
		return nil, s.c.explain(err, "invalid parameters")
	}
	return s.c.fetch(ctx, info, "invalid parameters")
}

// Close frees the statement on the server and its parameters here.
func (s *Stmt) Close(ctx context.Context) error {
	return s.c.explain(s.ps.Close(ctx), "invalid request")
}
