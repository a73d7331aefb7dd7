package csv

import (
	"fmt"
)

// ParseError is a malformed record or field: the line it starts on
// (1-based, counting every line of the input including the header) and
// the column (1-based; 0 when the record as a whole is at fault, such as
// a wrong number of fields). It wraps convert.ErrMalformed,
// convert.ErrRange or convert.ErrLimit.
type ParseError struct {
	Line   int64
	Column int
	Name   string // the column's name, when Column > 0
	Err    error
}

func (e *ParseError) Error() string {
	if e.Column == 0 {
		return fmt.Sprintf("csv: line %d: %v", e.Line, e.Err)
	}
	return fmt.Sprintf("csv: line %d, column %d (%s): %v", e.Line, e.Column, e.Name, e.Err)
}

func (e *ParseError) Unwrap() error { return e.Err }

// quote shows a field in an error, cut short if long.
func quote(b []byte) string {
	const max = 40
	if len(b) > max {
		return fmt.Sprintf("%q… (%d bytes)", b[:max], len(b))
	}
	return fmt.Sprintf("%q", b)
}
