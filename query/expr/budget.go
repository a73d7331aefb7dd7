package expr

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Reserver is implemented by an allocator that bounds what evaluation
// allocates. Before an allocation whose size does not follow from the
// batch alone — a constant repeated on every row: a 5 MiB string literal
// over a batch of 8,192 rows is 40 GiB — Eval asks the allocator it was
// given, and fails with the Reserver's error when it says no, instead of
// allocating. Allocators that are not Reservers are never asked.
type Reserver interface {
	// Reserve returns nil when n more bytes may be allocated for what
	// (the expression; its text is for the error), or the error to fail
	// evaluation with.
	Reserve(n int64, what fmt.Stringer) error
}

// reserve asks mem, when it is a Reserver, for n bytes for e.
func reserve(mem memory.Allocator, n int64, e Expr) error {
	r, ok := mem.(Reserver)
	if !ok {
		return nil
	}
	return r.Reserve(n, e)
}

// repeatedSize is the bytes of an array of n copies of l.
func (l *literal) repeatedSize(n int) int64 {
	rows := int64(n)
	switch {
	case l.null:
		return rows / 8
	case l.typ.ID() == arrow.STRING:
		return rows * (int64(len(l.s)) + 4)
	case l.typ.ID() == arrow.DECIMAL128:
		return rows * 16
	}
	return rows * 8
}
