package convert

import (
	"errors"
	"fmt"

	"github.com/quiverdb/quiver/convert/internal/column"
)

// Every error the converter returns matches one of these with errors.Is
// and names where the trouble is: the line and column for text input,
// the row and column for rows and arrays.
var (
	// ErrMalformed: input bytes that do not parse (CSV syntax, a field
	// that is not a number of its column's type).
	ErrMalformed = errors.New("malformed input")
	// ErrRange: a value that does not fit its column's type (a decimal
	// past its precision, an integer past its width).
	ErrRange = column.ErrRange
	// ErrCorrupt: input arrays that contradict themselves (a dictionary
	// id outside its dictionary).
	ErrCorrupt = column.ErrCorrupt
	// ErrUnsupported: a type the converter does not handle.
	ErrUnsupported = column.ErrUnsupported
	// ErrSchema: input whose schema differs from the one the converter
	// was built for, or values of the wrong Go type.
	ErrSchema = errors.New("schema mismatch")
	// ErrLimit: input past a configured limit (a record or field longer
	// than allowed, too many columns, a value too big for int32 offsets).
	ErrLimit = errors.New("limit exceeded")
)

// RowError is an error at one row (counted from 0 over all the rows a
// Coalescer has taken in) and column.
type RowError struct {
	Row    int64
	Column int    // 0-based; -1 when the whole row is at fault
	Name   string // the column's name
	Err    error
}

func (e *RowError) Error() string {
	if e.Column < 0 {
		return fmt.Sprintf("row %d: %v", e.Row, e.Err)
	}
	return fmt.Sprintf("row %d, column %d (%s): %v", e.Row, e.Column+1, e.Name, e.Err)
}

func (e *RowError) Unwrap() error { return e.Err }
