package csv

import (
	"bytes"
	"fmt"

	"github.com/quiverdb/quiver/convert"
)

// The tokenizer finds the fields of every record of a chunk and records
// where each lies, unquoting quoted fields in place (a quoted field only
// shrinks: its quotes go and each doubled quote becomes one), so that
// every field is a window of the chunk and no field is copied or
// allocated before its column's parser reads it.
//
// Grammar (RFC 4180, with LF or CRLF line ends): a record is fields
// separated by the delimiter and ended by a newline or the end of the
// input; a field is either raw bytes without delimiter, newline or
// quote, or a quote, any bytes with quotes doubled, and a quote. Blank
// lines are skipped. A CR right before the newline belongs to the line
// end, not to the field.
//
// Malformed quoting (a quote inside a raw field, anything but a
// delimiter or line end after a closing quote) makes the record
// malformed; it then runs to the next newline preceded by an even number
// of quotes since the record began, the rule the splitter cuts by.

// fields is the tokenizer's output for one chunk.
type fields struct {
	ncols int
	rows  int
	pos   []uint32 // start, end of each field, row-major: 2*ncols per row
	lines []int64  // the line each row starts on
	// errs are the malformed records (all of them when skipping, else
	// the first, after which tokenizing stopped).
	errs []rowError
}

// rowError is a malformed record or field; row is the index of the row
// it would have been (rows before it are kept).
type rowError struct {
	row int
	err *ParseError
}

func (f *fields) reset(ncols int) {
	f.ncols, f.rows = ncols, 0
	f.pos, f.lines, f.errs = f.pos[:0], f.lines[:0], f.errs[:0]
}

func (f *fields) field(row, col int) (uint32, uint32) {
	i := 2 * (row*f.ncols + col)
	return f.pos[i], f.pos[i+1]
}

// special marks the bytes that end a raw field, per delimiter.
type special [256]bool

func newSpecial(comma byte) *special {
	var s special
	s[comma], s['\n'], s['"'] = true, true, true
	return &s
}

type tokenizer struct {
	comma   byte
	special *special
	names   []string
	skip    bool // keep going after a malformed record
}

func (t *tokenizer) errorf(line int64, col int, format string, args ...any) *ParseError {
	e := &ParseError{Line: line, Column: col, Err: fmt.Errorf("%w: "+format, append([]any{convert.ErrMalformed}, args...)...)}
	if col > 0 && col <= len(t.names) {
		e.Name = t.names[col-1]
	}
	return e
}

// tokenize finds the records of data (which starts on line line0) into
// f. eof says data ends the input: an unterminated quoted field there is
// an error, where otherwise it cannot happen (the splitter cuts at
// record ends).
func (t *tokenizer) tokenize(data []byte, line0 int64, f *fields) {
	p, line := 0, line0
	for p < len(data) {
		if data[p] == '\n' {
			p, line = p+1, line+1
			continue
		}
		if data[p] == '\r' && p+1 < len(data) && data[p+1] == '\n' {
			p, line = p+2, line+1
			continue
		}
		recLine := line
		base := len(f.pos)
		var perr *ParseError
		p, line, perr = t.record(data, p, line, f)
		if perr == nil && (len(f.pos)-base)/2 != f.ncols {
			n := (len(f.pos) - base) / 2
			if n == f.ncols+1 { // record() stops storing past ncols+1
				n = -1
			}
			perr = t.ragged(recLine, n, f.ncols)
		}
		if perr != nil {
			f.pos = f.pos[:base]
			f.errs = append(f.errs, rowError{row: f.rows, err: perr})
			if !t.skip {
				return
			}
			continue
		}
		f.rows++
		f.lines = append(f.lines, recLine)
	}
}

func (t *tokenizer) ragged(line int64, n, want int) *ParseError {
	if n < 0 {
		return t.errorf(line, 0, "more than %d fields, want %d", want, want)
	}
	return t.errorf(line, 0, "%d fields, want %d", n, want)
}

// record tokenizes one record starting at p; it returns where the next
// record starts, the line there, and the record's error if malformed. It
// stores at most ncols+1 fields (enough to tell a long record).
func (t *tokenizer) record(data []byte, p int, line int64, f *fields) (int, int64, *ParseError) {
	recLine := line
	nf := 0
	for {
		var s, e int
		if p < len(data) && data[p] == '"' {
			var perr *ParseError
			s, e, p, line, perr = t.quoted(data, p, line, recLine, nf+1)
			if perr != nil {
				return p, line, perr
			}
		} else {
			s = p
			for p < len(data) && !t.special[data[p]] {
				p++
			}
			if p < len(data) && data[p] == '"' {
				err := t.errorf(recLine, nf+1, "bare quote in an unquoted field")
				end, ok := recordEnd(data, p+1, true)
				line += int64(bytes.Count(data[p:end], []byte{'\n'}))
				if !ok {
					err = t.errorf(recLine, nf+1, "bare quote in an unquoted field, and the quotes never balance before the end of the input")
				}
				return end, line, err
			}
			e = p
			if e > s && data[e-1] == '\r' && (p == len(data) || data[p] == '\n') {
				e--
			}
		}
		if nf <= f.ncols {
			f.pos = append(f.pos, uint32(s), uint32(e))
		}
		nf++
		if p >= len(data) {
			return p, line, nil
		}
		if data[p] == t.comma {
			p++
			if p == len(data) { // a trailing delimiter ends with an empty field
				if nf <= f.ncols {
					f.pos = append(f.pos, uint32(p), uint32(p))
				}
				return p, line, nil
			}
			continue
		}
		// data[p] is the newline (quoted() consumed a CR before it).
		return p + 1, line + 1, nil
	}
}

// quoted reads a quoted field at p (data[p] == '"'), unquoting it in
// place. It returns the field's window, where the data after it starts,
// and the line there.
func (t *tokenizer) quoted(data []byte, p int, line, recLine int64, col int) (s, e, next int, nline int64, perr *ParseError) {
	s = p + 1
	w, r := s, s
	for {
		i := bytes.IndexByte(data[r:], '"')
		if i < 0 {
			line += int64(bytes.Count(data[r:], []byte{'\n'}))
			return 0, 0, len(data), line, t.errorf(recLine, col, "quoted field not closed before the end of the input")
		}
		seg := data[r : r+i]
		line += int64(bytes.Count(seg, []byte{'\n'}))
		if w != r {
			copy(data[w:], seg)
		}
		w += i
		r += i + 1
		if r < len(data) && data[r] == '"' { // a doubled quote
			data[w] = '"'
			w, r = w+1, r+1
			continue
		}
		break
	}
	// After the closing quote: a delimiter, a line end or the end.
	switch {
	case r == len(data) || data[r] == t.comma || data[r] == '\n':
	case data[r] == '\r' && (r+1 == len(data) || data[r+1] == '\n'):
		r++
	default:
		err := t.errorf(recLine, col, "%q after a closing quote", data[r])
		end, ok := recordEnd(data, r, false)
		line += int64(bytes.Count(data[r:end], []byte{'\n'}))
		if !ok {
			err = t.errorf(recLine, col, "%q after a closing quote, and the quotes never balance before the end of the input", data[r])
		}
		return 0, 0, end, line, err
	}
	return s, w, r, line, nil
}
