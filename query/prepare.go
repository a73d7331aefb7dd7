package query

import (
	"context"
	"errors"

	"github.com/apache/arrow-go/v18/arrow"
)

// Prepared describes a statement checked without running it, for
// clients that prepare statements before binding their parameters.
type Prepared struct {
	SQL string
	// NumParams counts the ? placeholders.
	NumParams int
	// Schema is the result's schema. It is nil when the statement has
	// parameters: their types, and so the result's, are known only once
	// they are bound.
	Schema *arrow.Schema
}

// Prepare parses and plans sql. A statement without parameters is planned
// completely (every error Query would report at plan time is reported
// here); one with parameters is planned with every parameter NULL (or ” where only a string
// fits), and
// only errors that no binding could fix (syntax, unsupported constructs,
// unknown tables) are reported; the rest surface when it runs.
func (e *Engine) Prepare(sql string) (*Prepared, error) {
	return e.PrepareContext(context.Background(), sql)
}

// PrepareContext is Prepare, stopped when ctx is cancelled.
func (e *Engine) PrepareContext(ctx context.Context, sql string) (*Prepared, error) {
	stmt, err := parseSQL(sql)
	if err != nil {
		return nil, err
	}
	n := numberParams(stmt, nil, false)
	if n == 0 {
		schema, err := e.SchemaContext(ctx, sql)
		if err != nil {
			return nil, err
		}
		return &Prepared{SQL: sql, Schema: schema}, nil
	}
	_, _, err = e.planStmt(ctx, sql, nil, true)
	var qe *Error
	if err != nil && !(errors.As(err, &qe) && qe.Kind == ErrInvalid) {
		return nil, err
	}
	return &Prepared{SQL: sql, NumParams: n}, nil
}

// Schema plans sql with params bound and returns the schema its result
// will have, without running it.
func (e *Engine) Schema(sql string, params ...any) (*arrow.Schema, error) {
	return e.SchemaContext(context.Background(), sql, params...)
}

// SchemaContext is Schema, stopped when ctx is cancelled.
func (e *Engine) SchemaContext(ctx context.Context, sql string, params ...any) (*arrow.Schema, error) {
	p, explain, err := e.plan(ctx, sql, params)
	if err != nil {
		return nil, err
	}
	if explain {
		return explainSchema, nil
	}
	return p.schema(), nil
}
