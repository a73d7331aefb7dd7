package csv

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/quiverdb/quiver/convert"
)

// chunk is a run of whole records: it starts at a record boundary and
// ends at one (or at the end of the input).
type chunk struct {
	seq  int
	buf  []byte // from the splitter's pool; released with put
	data []byte // the records: a window of buf
	line int64  // the line of data's first byte
	eof  bool   // the input ends with this chunk
}

// splitter cuts the input into chunks at record boundaries, so that
// chunks can be parsed in any order and on any goroutine and still give
// exactly what one sequential parse gives.
//
// A record ends at a newline preceded, since the record's start, by an
// even number of quote bytes. For input that follows RFC 4180 this is
// exactly where records end, since every quoted field holds an even
// number of quotes (the two around it and the doubled ones inside). The
// tokenizer makes it true of malformed records too: a record whose
// quotes are malformed runs to the next newline at even parity (see
// tokenize.go), so splitter and tokenizer always agree.
type splitter struct {
	r          io.Reader
	chunkBytes int
	maxRecord  int
	carry      []byte // the start of a record the last chunk could not hold
	line       int64
	seq        int
	eof        bool
	started    bool
	pending    []*chunk // chunks read ahead (header, inference), served first
	pool       sync.Pool

	readNanos atomic.Int64
	bytesRead atomic.Int64
}

func newSplitter(r io.Reader, chunkBytes, maxRecord int) *splitter {
	return &splitter{r: r, chunkBytes: chunkBytes, maxRecord: maxRecord, line: 1}
}

func (s *splitter) get(n int) []byte {
	if b, ok := s.pool.Get().(*[]byte); ok && cap(*b) >= n {
		return (*b)[:0]
	}
	return make([]byte, 0, n)
}

func (s *splitter) put(c *chunk) {
	if c != nil && c.buf != nil && cap(c.buf) <= 4*s.chunkBytes {
		b := c.buf
		s.pool.Put(&b)
	}
	if c != nil {
		c.buf, c.data = nil, nil
	}
}

var bom = []byte{0xef, 0xbb, 0xbf}

// next returns the next chunk, or io.EOF after the last. Errors are read
// errors and records longer than maxRecord.
func (s *splitter) next() (*chunk, error) {
	if len(s.pending) > 0 {
		c := s.pending[0]
		s.pending = s.pending[1:]
		return c, nil
	}
	return s.read()
}

// read cuts a new chunk from the input (next serves s.pending first).
func (s *splitter) read() (*chunk, error) {
	if s.eof && len(s.carry) == 0 {
		return nil, io.EOF
	}
	buf := s.get(s.chunkBytes + len(s.carry))
	buf = append(buf, s.carry...)
	s.carry = s.carry[:0]
	for {
		var err error
		// Double while no boundary is found, so that a long record costs
		// O(its length) to find, not O(length²/chunk).
		buf, err = s.fill(buf, max(s.chunkBytes, 2*len(buf)))
		if err != nil {
			return nil, err
		}
		if !s.started && (len(buf) >= len(bom) || s.eof) {
			s.started = true
			if bytes.HasPrefix(buf, bom) {
				buf = buf[:copy(buf, buf[len(bom):])]
			}
		}
		if !s.started {
			continue // a BOM needs its 3 bytes before anything is cut
		}
		if s.eof {
			return s.cut(buf, len(buf), true), nil
		}
		if end := lastRecordEnd(buf); end >= 0 {
			s.carry = append(s.carry, buf[end:]...)
			return s.cut(buf, end, false), nil
		}
		if len(buf) > s.maxRecord {
			return nil, &ParseError{Line: s.line, Err: fmt.Errorf("%w: record longer than %d bytes (MaxRecordBytes)", convert.ErrLimit, s.maxRecord)}
		}
	}
}

// fill reads into buf until it holds want bytes or the input ends.
func (s *splitter) fill(buf []byte, want int) ([]byte, error) {
	if cap(buf) < want {
		nb := make([]byte, len(buf), want)
		copy(nb, buf)
		buf = nb
	}
	t0 := time.Now()
	defer func() { s.readNanos.Add(int64(time.Since(t0))) }()
	for len(buf) < want && !s.eof {
		n, err := s.r.Read(buf[len(buf):want])
		buf = buf[:len(buf)+n]
		s.bytesRead.Add(int64(n))
		if errors.Is(err, io.EOF) {
			s.eof = true
		} else if err != nil {
			return nil, err
		}
	}
	return buf, nil
}

func (s *splitter) cut(buf []byte, end int, eof bool) *chunk {
	c := &chunk{seq: s.seq, buf: buf, data: buf[:end], line: s.line, eof: eof && len(s.carry) == 0}
	s.seq++
	s.line += int64(bytes.Count(c.data, []byte{'\n'}))
	return c
}

// lastRecordEnd is the index just past the last newline of b at which
// an even number of quotes precede it, or -1.
func lastRecordEnd(b []byte) int {
	q := bytes.IndexByte(b, '"')
	if q < 0 {
		if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
			return i + 1
		}
		return -1
	}
	last := bytes.LastIndexByte(b[:q], '\n')
	pos, odd := q, true
	for {
		nq := bytes.IndexByte(b[pos+1:], '"')
		if nq < 0 {
			if !odd {
				if i := bytes.LastIndexByte(b[pos+1:], '\n'); i >= 0 {
					last = pos + 1 + i
				}
			}
			break
		}
		nq += pos + 1
		if !odd {
			if i := bytes.LastIndexByte(b[pos+1:nq], '\n'); i >= 0 {
				last = pos + 1 + i
			}
		}
		odd = !odd
		pos = nq
	}
	if last < 0 {
		return -1
	}
	return last + 1
}

// recordEnd is where a record that is at odd quote parity at from
// (odd) ends: just past the first newline at even parity, or len(b) and
// false when b ends first.
func recordEnd(b []byte, from int, odd bool) (int, bool) {
	for i := from; i < len(b); i++ {
		switch b[i] {
		case '"':
			odd = !odd
		case '\n':
			if !odd {
				return i + 1, true
			}
		}
	}
	return len(b), !odd
}
