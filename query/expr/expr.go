package expr

import (
	"context"
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Expr is a typed scalar expression over the columns of a record batch.
type Expr interface {
	// Type is the engine type of the result (see EngineType); arrow.Null
	// only for an untyped NULL. Only output columns have stored types: a
	// Column passed through, AsStored.
	Type() arrow.DataType
	// Eval returns an array of batch.NumRows() rows (caller releases).
	// Columns in batch are already engine types.
	Eval(ctx context.Context, mem memory.Allocator, batch arrow.RecordBatch) (arrow.Array, error)
	// String is SQL-like text, used by EXPLAIN.
	String() string
}

// Errors returned by this package match one of these with errors.Is.
var (
	// ErrType: an expression cannot be built because its operand types do
	// not fit the operator (returned by the constructors, at plan time).
	ErrType = errors.New("type error")
	// ErrOverflow: an integer or decimal result, or a numeric cast, does
	// not fit its type.
	ErrOverflow = errors.New("overflow")
	// ErrDivisionByZero: a division or modulo by zero, for every type.
	ErrDivisionByZero = errors.New("division by zero")
	// ErrInvalidCast: a value cannot be converted (a string that does not
	// parse, NaN to an integer).
	ErrInvalidCast = errors.New("invalid cast")
	// ErrInvalid: a malformed argument (a bad LIKE pattern, a column index
	// outside the batch, a column of the wrong type).
	ErrInvalid = errors.New("invalid expression")
)

// Error is the error type of this package: a message complete on its own
// and a Kind, one of the sentinels above, that errors.Is matches.
type Error struct {
	Kind error
	Msg  string
}

func (e *Error) Error() string { return e.Msg }
func (e *Error) Unwrap() error { return e.Kind }

func errorf(kind error, format string, args ...any) error {
	return &Error{Kind: kind, Msg: fmt.Sprintf(format, args...)}
}

// node is implemented by every expression of this package.
type node interface {
	Expr
	// children returns the operands, in order.
	children() []Expr
}

// childrenOf returns e's operands, or nil for a leaf or a foreign Expr.
func childrenOf(e Expr) []Expr {
	if n, ok := e.(node); ok {
		return n.children()
	}
	return nil
}

// paren returns e's text, parenthesized unless it is a leaf or reads as a
// single term (a function call, CAST, CASE).
func paren(e Expr) string {
	if isTerm(e) {
		return e.String()
	}
	return "(" + e.String() + ")"
}

// isTerm reports whether e's text reads as a single term.
func isTerm(e Expr) bool {
	if c, ok := e.(*callExpr); ok {
		return !c.infix
	}
	switch e.(type) {
	case *column, *literal, *castExpr, *caseExpr, *coalesceExpr, *extractExpr, *substringExpr, *callExpr,
		*listElementExpr, *structFieldExpr, *listLengthExpr, *listContainsExpr, *nestedKeyExpr, *nestedValueExpr, *unionTagExpr, *unionExtractExpr, *mapPartExpr:
		return true
	}
	return false
}
