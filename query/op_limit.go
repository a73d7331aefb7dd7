package query

import (
	"context"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
)

// limitOp skips offset rows and passes at most limit (negative: all),
// slicing the batch it ends in. Once it has passed limit rows it stops
// pulling, and closes its input, so the scan below stops decoding.
type limitOp struct {
	in            operator
	limit, offset int64
	passed        int64
}

func (o *limitOp) Schema() *arrow.Schema { return o.in.Schema() }

func (o *limitOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	for {
		if o.limit >= 0 && o.passed >= o.limit {
			o.in.Close()
			return nil, io.EOF
		}
		rec, err := o.in.Next(ctx)
		if err != nil {
			return nil, err
		}
		n := rec.NumRows()
		if o.offset >= n {
			o.offset -= n
			rec.Release()
			continue
		}
		start, end := o.offset, n
		o.offset = 0
		if o.limit >= 0 {
			end = min(end, start+o.limit-o.passed)
		}
		o.passed += end - start
		if start == 0 && end == n {
			return rec, nil
		}
		out := rec.NewSlice(start, end)
		rec.Release()
		return out, nil
	}
}

func (o *limitOp) Close() { o.in.Close() }
