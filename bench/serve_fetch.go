package bench

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// The client side of `bench serve`, the same for both servers: one DoGet
// read to the end with arrow-go's Flight reader, which decodes body
// compression from each batch's metadata as any Flight client would.

// openFunc starts one DoGet of a result.
type openFunc func(ctx context.Context) (flight.FlightService_DoGetClient, error)

// fetched is what one fetch saw.
type fetched struct {
	Rows     int64
	Batches  int
	IPCBytes int64 // FlightData header and body bytes received
	Elapsed  time.Duration
	Schema   *arrow.Schema
}

// countingStream counts the bytes of the FlightData messages read through
// it: the Arrow IPC bytes of the stream, before gRPC's framing.
type countingStream struct {
	flight.FlightService_DoGetClient
	bytes int64
}

func (c *countingStream) Recv() (*flight.FlightData, error) {
	fd, err := c.FlightService_DoGetClient.Recv()
	if fd != nil {
		c.bytes += int64(len(fd.DataHeader) + len(fd.DataBody) + len(fd.AppMetadata))
	}
	return fd, err
}

// fetch reads one result to the end, timing from the DoGet call to the
// last batch decoded. With d set it also digests every batch (slow: the
// warm-up pass only).
func fetch(ctx context.Context, open openFunc, mem memory.Allocator, d *resultDigest) (fetched, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // ends the stream on the server if we stop early
	var f fetched
	start := time.Now()
	stream, err := open(ctx)
	if err != nil {
		return f, err
	}
	cs := &countingStream{FlightService_DoGetClient: stream}
	rdr, err := flight.NewRecordReader(cs, ipc.WithAllocator(mem))
	if err != nil {
		return f, err
	}
	defer rdr.Release()
	f.Schema = rdr.Schema()
	for rdr.Next() {
		rec := rdr.RecordBatch()
		f.Rows += rec.NumRows()
		f.Batches++
		if d != nil {
			if err := d.add(rec); err != nil {
				return f, err
			}
		}
	}
	if err := rdr.Err(); err != nil {
		return f, err
	}
	f.Elapsed, f.IPCBytes = time.Since(start), cs.bytes
	return f, nil
}

// resultDigest sums a result independently of how it is cut into
// batches: per column an order-sensitive hash of its values, NULLs as a
// marker whatever lies beneath them.
type resultDigest struct {
	Rows int64
	Cols []uint64
}

func digestOf(recs []arrow.RecordBatch) (resultDigest, error) {
	var d resultDigest
	for _, r := range recs {
		if err := d.add(r); err != nil {
			return d, err
		}
	}
	return d, nil
}

func (d *resultDigest) add(rec arrow.RecordBatch) error {
	if d.Cols == nil {
		d.Cols = make([]uint64, rec.NumCols())
	}
	if int(rec.NumCols()) != len(d.Cols) {
		return fmt.Errorf("bench: a batch of %d columns in a result of %d", rec.NumCols(), len(d.Cols))
	}
	for j, col := range rec.Columns() {
		h := d.Cols[j]
		switch a := col.(type) {
		case *array.Int32:
			for i := range a.Len() {
				h = mixValue(h, a.IsNull(i), uint64(a.Value(i)))
			}
		case *array.Int64:
			for i := range a.Len() {
				h = mixValue(h, a.IsNull(i), uint64(a.Value(i)))
			}
		case *array.Decimal128:
			for i := range a.Len() {
				v := a.Value(i)
				h = mixValue(mixValue(h, a.IsNull(i), v.LowBits()), a.IsNull(i), uint64(v.HighBits()))
			}
		default:
			return fmt.Errorf("bench: no digest for %s", col.DataType())
		}
		d.Cols[j] = h
	}
	d.Rows += rec.NumRows()
	return nil
}

func mixValue(h uint64, null bool, v uint64) uint64 {
	if null {
		v = 0x9e3779b97f4a7c15
	}
	h = (h ^ v) * 0xff51afd7ed558ccd
	return h ^ h>>32
}

func (d resultDigest) equal(o resultDigest) bool {
	if d.Rows != o.Rows || len(d.Cols) != len(o.Cols) {
		return false
	}
	for i := range d.Cols {
		if d.Cols[i] != o.Cols[i] {
			return false
		}
	}
	return true
}

// schemaDiff says how got differs from want, in a line for the report:
// which types changed (how many columns, the first few names) and which
// NOT NULL columns came back nullable; "" when they are equal.
func schemaDiff(want, got *arrow.Schema) string {
	if got.Equal(want) {
		return ""
	}
	if got.NumFields() != want.NumFields() {
		return fmt.Sprintf("%d columns, want %d", got.NumFields(), want.NumFields())
	}
	var parts []string
	changed := map[string][]string{}
	var order []string
	var nullable, renamed []string
	for i, w := range want.Fields() {
		g := got.Field(i)
		if g.Name != w.Name {
			renamed = append(renamed, w.Name+" as "+g.Name)
		}
		if !arrow.TypeEqual(g.Type, w.Type) {
			k := w.Type.String() + " → " + g.Type.String()
			if changed[k] == nil {
				order = append(order, k)
			}
			changed[k] = append(changed[k], w.Name)
		}
		if g.Nullable && !w.Nullable {
			nullable = append(nullable, w.Name)
		}
	}
	for _, k := range order {
		names := changed[k]
		list := strings.Join(names[:min(3, len(names))], ", ")
		if len(names) > 3 {
			list += ", …"
		}
		parts = append(parts, fmt.Sprintf("%s on %d column(s) (%s)", k, len(names), list))
	}
	if len(nullable) > 0 {
		parts = append(parts, "NOT NULL dropped on "+strings.Join(nullable, ", "))
	}
	if len(renamed) > 0 {
		parts = append(parts, "renamed: "+strings.Join(renamed, ", "))
	}
	return strings.Join(parts, "; ")
}
