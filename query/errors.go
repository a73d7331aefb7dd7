package query

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Error kinds; every error a query returns matches one with errors.Is, so a
// server can map it to a status (the Flight SQL server maps ErrSyntax,
// ErrUnsupported and ErrInvalid to InvalidArgument, ErrNoTable to
// NotFound, ErrMemory to ResourceExhausted).
var (
	ErrSyntax      = errors.New("syntax error")
	ErrUnsupported = errors.New("not supported")
	ErrInvalid     = errors.New("invalid query")       // unknown column, type mismatch, misplaced aggregate
	ErrNoTable     = errors.New("no such table")       // FROM names a table the cache does not hold
	ErrExec        = errors.New("execution error")     // overflow, division by zero, bad cast at run time
	ErrMemory      = errors.New("memory limit passed") // the query's memory limit
)

// Error is a query error with the position of the construct it is about,
// when known (1-based line and column of the SQL text).
type Error struct {
	Kind      error
	Line, Col int
	Msg       string
	Err       error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("query: ")
	b.WriteString(e.Kind.Error())
	if e.Line > 0 {
		fmt.Fprintf(&b, " at line %d, column %d", e.Line, e.Col)
	}
	if e.Msg != "" {
		b.WriteString(": ")
		b.WriteString(e.Msg)
	}
	if e.Err != nil {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

func (e *Error) Is(target error) bool { return target == e.Kind }
func (e *Error) Unwrap() error        { return e.Err }

// position converts a byte offset of text to a 1-based line and column.
func position(text string, off int) (line, col int) {
	if off < 0 || off > len(text) {
		return 0, 0
	}
	line = 1 + strings.Count(text[:off], "\n")
	col = off - strings.LastIndexByte(text[:off], '\n')
	return line, col
}

// cancelled is the error of a query whose context ended: ErrExec, and
// errors.Is(err, context.Canceled) (or DeadlineExceeded) holds.
func cancelled(ctx error) error {
	return &Error{Kind: ErrExec, Msg: "query cancelled", Err: ctx}
}

// maxMsg bounds the text of a plan-time error message: it quotes the
// expression it is about, which may be megabytes of SQL.
const maxMsg = 1000

// maxName bounds the name of a computed column, which is its SQL text: a
// 5 MiB literal would otherwise be a 5 MiB field name in every schema sent.
const maxName = 256

// clipName cuts a computed column's name to about maxName bytes.
func clipName(name string) string {
	if len(name) <= maxName {
		return name
	}
	return cutAt(name, maxName) + "…"
}

// cutAt returns s cut to at most n bytes, at a character boundary.
func cutAt(s string, n int) string {
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// clip cuts msg to about maxMsg bytes, at a character boundary.
func clip(msg string) string {
	if len(msg) <= maxMsg {
		return msg
	}
	cut := cutAt(msg, maxMsg)
	return fmt.Sprintf("%s… (%d bytes cut)", cut, len(msg)-len(cut))
}
