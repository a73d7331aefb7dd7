package convert

import (
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/quiverdb/quiver/convert/internal/column"
)

// Coalescer turns input of any shape into record batches of
// Config.BatchRows rows: record batches of any size, whose rows it
// appends by slices through the bulk paths of package column (never
// value by value), and rows or column slices from Go (AppendRow,
// AppendColumns). Completed batches queue until Next takes them.
//
// A Coalescer is not safe for concurrent use.
type Coalescer struct {
	cfg     Config
	in, out *arrow.Schema
	cols    []column.Builder
	rows    int // rows in the open batch
	ready   []arrow.RecordBatch
	stats   Stats
	checked *arrow.Schema // the last input schema found to match
	hasDict bool
	scratch []arrow.Array
}

// NewCoalescer returns a coalescer for input of schema in. Dictionary
// columns are decoded: the output schema (Schema) has their value types.
func NewCoalescer(in *arrow.Schema, cfg Config) (*Coalescer, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	c := &Coalescer{cfg: cfg, in: in, out: column.OutputSchema(in), checked: in}
	c.hasDict = c.out != in
	for i, f := range c.out.Fields() {
		b, err := column.New(f.Type, cfg.Alloc, cfg.BatchRows)
		if err != nil {
			c.Release()
			return nil, fmt.Errorf("convert: column %d (%s): %w", i+1, f.Name, err)
		}
		c.cols = append(c.cols, b)
	}
	return c, nil
}

// Schema is the schema of the output batches.
func (c *Coalescer) Schema() *arrow.Schema { return c.out }

// Buffered is the number of rows in the open (not yet complete) batch.
func (c *Coalescer) Buffered() int { return c.rows }

// Ready is the number of complete batches waiting for Next.
func (c *Coalescer) Ready() int { return len(c.ready) }

// Next returns the oldest complete batch, or nil. The caller releases it.
func (c *Coalescer) Next() arrow.RecordBatch {
	if len(c.ready) == 0 {
		return nil
	}
	rec := c.ready[0]
	c.ready[0] = nil
	c.ready = c.ready[1:]
	return rec
}

// Flush completes the open batch, if it has rows, even though it is
// short: the end of the input.
func (c *Coalescer) Flush() {
	if c.rows > 0 {
		c.complete()
	}
}

// Stats returns what the coalescer has done so far.
func (c *Coalescer) Stats() Stats { return c.stats }

// Append appends every row of rec.
func (c *Coalescer) Append(rec arrow.RecordBatch) error {
	return c.AppendSlice(rec, 0, int(rec.NumRows()))
}

// AppendSlice appends rows [start, start+n) of rec, whose schema must
// have the input schema's types (dictionary index types may differ). On
// error the rows of the failing slice are not appended; batches
// completed before it stay ready.
func (c *Coalescer) AppendSlice(rec arrow.RecordBatch, start, n int) error {
	t0 := time.Now()
	defer func() { c.stats.ConvertTime += time.Since(t0) }()
	if start < 0 || n < 0 || start+n > int(rec.NumRows()) {
		return fmt.Errorf("convert: slice [%d, %d) of a batch of %d rows", start, start+n, rec.NumRows())
	}
	if err := c.checkSchema(rec.Schema()); err != nil {
		return err
	}
	c.stats.InputBatches++
	c.stats.InputRows += int64(n)
	if c.passThrough(rec, start, n) {
		return nil
	}
	cols := c.columns(rec)
	for n > 0 {
		k, err := c.fit(cols, start, min(n, c.cfg.BatchRows-c.rows))
		if err != nil {
			return err
		}
		if k == 0 {
			c.complete()
			continue
		}
		for i, b := range c.cols {
			if err := b.AppendArray(cols[i], start, k, column.Mask{}); err != nil {
				for _, d := range c.cols[:i] {
					d.Truncate(c.rows)
				}
				return &RowError{Row: c.stats.Rows + int64(c.rows), Column: i, Name: c.out.Field(i).Name, Err: err}
			}
		}
		c.rows += k
		start += k
		n -= k
		if c.rows == c.cfg.BatchRows || n > 0 {
			c.complete() // full, or closed early by the byte cap
		}
	}
	return nil
}

func (c *Coalescer) columns(rec arrow.RecordBatch) []arrow.Array {
	c.scratch = c.scratch[:0]
	for i := range c.cols {
		c.scratch = append(c.scratch, rec.Column(i))
	}
	return c.scratch
}

func (c *Coalescer) checkSchema(s *arrow.Schema) error {
	if s == c.checked {
		return nil
	}
	if s.NumFields() != c.in.NumFields() {
		return fmt.Errorf("convert: %w: %d columns, want %d", ErrSchema, s.NumFields(), c.in.NumFields())
	}
	for i, f := range s.Fields() {
		if !arrow.TypeEqual(column.OutputType(f.Type), c.out.Field(i).Type) {
			return fmt.Errorf("convert: %w: column %d (%s) is %s, want %s", ErrSchema, i+1, f.Name, f.Type, c.in.Field(i).Type)
		}
	}
	c.checked = s
	return nil
}

// passThrough hands on a whole input batch of exactly the target size,
// without dictionaries, when no batch is open and it fits the byte cap.
// Its arrays go out as they came (a null struct's fields keep whatever
// values the input gave them, which Arrow leaves unspecified).
func (c *Coalescer) passThrough(rec arrow.RecordBatch, start, n int) bool {
	if c.rows != 0 || start != 0 || n != c.cfg.BatchRows || int(rec.NumRows()) != n || c.hasDict {
		return false
	}
	cols := c.columns(rec)
	var bytes int64
	for i, b := range c.cols {
		m, fits := b.Measure(cols[i], 0, n)
		if !fits {
			return false
		}
		bytes += m
	}
	if bytes > c.cfg.MaxBytes {
		return false
	}
	if rec.Schema() != c.out {
		rec = array.NewRecordBatch(c.out, cols, int64(n))
	} else {
		rec.Retain()
	}
	c.ready = append(c.ready, rec)
	c.stats.Batches++
	c.stats.Rows += int64(n)
	c.stats.PassedThrough++
	return true
}

// fit is how many of the n rows from start can join the open batch
// within the byte cap and the int32 offset limit: n, or fewer found by
// binary search. 0 means the open batch must be completed first; an
// empty batch always takes at least one row, unless even one row passes
// the offset limit.
func (c *Coalescer) fit(cols []arrow.Array, start, n int) (int, error) {
	var have int64
	for _, b := range c.cols {
		have += b.Bytes()
	}
	fits := func(k int) (bool, bool) {
		total, offsets := have, true
		for i, b := range c.cols {
			m, ok := b.Measure(cols[i], start, k)
			total += m
			offsets = offsets && ok
		}
		return total <= c.cfg.MaxBytes && offsets, offsets
	}
	if ok, _ := fits(n); ok {
		return n, nil
	}
	lo, hi := 0, n // fits(lo), !fits(hi)
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if ok, _ := fits(mid); ok {
			lo = mid
		} else {
			hi = mid
		}
	}
	if lo == 0 && c.rows == 0 {
		if _, offsets := fits(1); !offsets {
			return 0, &RowError{Row: c.stats.Rows, Column: -1,
				Err: fmt.Errorf("%w: one row holds more than %d bytes of int32-offset data", ErrLimit, column.MaxOffset)}
		}
		return 1, nil
	}
	return lo, nil
}

// complete finishes the open batch and queues it.
func (c *Coalescer) complete() {
	arrs := make([]arrow.Array, len(c.cols))
	for i, b := range c.cols {
		data := b.Finish()
		arrs[i] = array.MakeFromData(data)
		data.Release()
	}
	rec := array.NewRecordBatch(c.out, arrs, int64(c.rows))
	for _, a := range arrs {
		a.Release()
	}
	c.ready = append(c.ready, rec)
	c.stats.Batches++
	c.stats.Rows += int64(c.rows)
	c.rows = 0
}

// Release frees the open batch and every batch not taken by Next.
func (c *Coalescer) Release() {
	for _, b := range c.cols {
		b.Release()
	}
	c.cols = nil
	for _, r := range c.ready {
		r.Release()
	}
	c.ready = nil
	c.rows = 0
}
