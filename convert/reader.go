package convert

import (
	"errors"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
)

// Source is input for a Reader: CSV text, a Parquet or IPC record
// reader, database rows. Fill appends input to c until c has a complete
// batch ready or the input ends, which it reports with io.EOF (the
// open batch is then flushed by the Reader).
type Source interface {
	// Schema is the schema of the input the source appends.
	Schema() *arrow.Schema
	Fill(c *Coalescer) error
	// Stats reports the source's side of the work: PullTime, its part
	// of ConvertTime (parsing), InputBytes, SkippedRows.
	Stats() Stats
	Release()
}

// Reader hands out the batches of a Source, Config.BatchRows rows each
// (the last may be short).
type Reader struct {
	src Source
	c   *Coalescer
	eof bool
	err error
}

// NewReader returns a reader of src's rows in batches as cfg says. The
// reader owns src: Release releases it.
func NewReader(src Source, cfg Config) (*Reader, error) {
	c, err := NewCoalescer(src.Schema(), cfg)
	if err != nil {
		src.Release()
		return nil, err
	}
	return &Reader{src: src, c: c}, nil
}

// Schema is the schema of the batches (dictionaries decoded).
func (r *Reader) Schema() *arrow.Schema { return r.c.Schema() }

// Next returns the next batch, or io.EOF after the last. The caller
// releases the batch. When the input fails, the rows before the failure
// come out first, then the error, which Next keeps returning.
func (r *Reader) Next() (arrow.RecordBatch, error) {
	for {
		if rec := r.c.Next(); rec != nil {
			return rec, nil
		}
		if r.err != nil {
			return nil, r.err
		}
		if r.eof {
			if r.c.Buffered() > 0 {
				r.c.Flush()
				continue
			}
			return nil, io.EOF
		}
		err := r.src.Fill(r.c)
		switch {
		case errors.Is(err, io.EOF):
			r.eof = true
		case err != nil:
			r.err = err
			r.c.Flush()
		}
	}
}

// Stats returns what the conversion has done so far.
func (r *Reader) Stats() Stats {
	s := r.c.Stats()
	s.add(r.src.Stats())
	return s
}

// Release frees the source and every batch not handed out.
func (r *Reader) Release() {
	r.c.Release()
	r.src.Release()
}
