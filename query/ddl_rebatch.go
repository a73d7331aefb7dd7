package query

import (
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// rebatch concatenates what next yields into batches of about
// SmallAppendRows rows: a VALUES list yields a batch per row, a query
// batches of any size, and each batch a table holds costs its chunk
// headers and statistics.
func rebatch(mem memory.Allocator, schema *arrow.Schema, next func() (arrow.RecordBatch, error)) func() (arrow.RecordBatch, error) {
	done := false
	return func() (arrow.RecordBatch, error) {
		if done {
			return nil, io.EOF
		}
		var held []arrow.RecordBatch
		defer func() {
			for _, r := range held {
				r.Release()
			}
		}()
		var rows int64
		for rows < SmallAppendRows {
			rec, err := next()
			if err == io.EOF {
				done = true
				break
			}
			if err != nil {
				return nil, err
			}
			held = append(held, rec)
			rows += rec.NumRows()
		}
		switch len(held) {
		case 0:
			return nil, io.EOF
		case 1:
			held[0].Retain()
			return held[0], nil
		}
		return concatBatches(mem, schema, held)
	}
}

// concatBatches joins batches of one schema into one.
func concatBatches(mem memory.Allocator, schema *arrow.Schema, recs []arrow.RecordBatch) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, schema.NumFields())
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	parts := make([]arrow.Array, len(recs))
	var rows int64
	for _, r := range recs {
		rows += r.NumRows()
	}
	for i := range cols {
		for k, r := range recs {
			parts[k] = r.Column(i)
		}
		c, err := array.Concatenate(parts, mem)
		if err != nil {
			return nil, &Error{Kind: ErrExec, Msg: "joining inserted rows", Err: err}
		}
		cols[i] = c
	}
	return array.NewRecordBatch(schema, cols, rows), nil
}

// readAll reads what next yields to the end.
func readAll(next func() (arrow.RecordBatch, error)) ([]arrow.RecordBatch, error) {
	var out []arrow.RecordBatch
	for {
		rec, err := next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, rec)
	}
}

// replay yields recs again, each retained for its reader.
func replay(recs []arrow.RecordBatch) func() (arrow.RecordBatch, error) {
	i := 0
	return func() (arrow.RecordBatch, error) {
		if i == len(recs) {
			return nil, io.EOF
		}
		i++
		recs[i-1].Retain()
		return recs[i-1], nil
	}
}
