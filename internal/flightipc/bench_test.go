package flightipc

import (
	"errors"
	"io"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/batch"
	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/internal/arrowsize"
)

type replayStream struct{ fds []*flight.FlightData }

func (r *replayStream) Recv() (*flight.FlightData, error) {
	if len(r.fds) == 0 {
		return nil, io.EOF
	}
	fd := r.fds[0]
	r.fds = r.fds[1:]
	return fd, nil
}

// BenchmarkResultDecode answers: what does the client's checked decoding
// of a result (Reader into quiver's stream reader, every length
// checked, prefetch as quiver query uses it) cost next to arrow-go's
// Flight reader, which trusts the lengths? The same FlightData messages
// (1M rows of an int64, a float64 and a utf8 column in 64K-row batches, as
// a quiver server sends them) are
// replayed from memory, so only decoding is measured, not gRPC.
//
//	go test -run '^$' -bench BenchmarkResultDecode -benchtime 20x ./internal/flightipc
func BenchmarkResultDecode(b *testing.B) {
	recs := benchRecords(16, 64<<10)
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	var raw int64
	for _, r := range recs {
		raw += arrowsize.Record(r)
	}
	for _, s := range []codec.Setting{codec.SettingNone, codec.SettingLZ4, {Kind: codec.Zstd, Level: 1}} {
		fds := flightMessages(b, s, recs...)
		var wire int64
		for _, fd := range fds {
			wire += Bytes(fd)
		}
		readers := map[string]func(fds []*flight.FlightData) (int64, error){
			"quiver": func(fds []*flight.FlightData) (int64, error) {
				rd, err := batch.NewStreamReader(NewReader((&replayStream{fds}).Recv, batch.Limits{}), batch.ReadOptions{Prefetch: 2})
				if err != nil {
					return 0, err
				}
				defer rd.Release()
				var rows int64
				for {
					rec, err := rd.Next()
					if errors.Is(err, io.EOF) {
						return rows, nil
					}
					if err != nil {
						return rows, err
					}
					rows += rec.NumRows()
					rec.Release()
				}
			},
			"arrowgo": func(fds []*flight.FlightData) (int64, error) {
				rd, err := flight.NewRecordReader(&replayStream{fds}, ipc.WithAllocator(memory.DefaultAllocator))
				if err != nil {
					return 0, err
				}
				defer rd.Release()
				var rows int64
				for rd.Next() {
					rows += rd.RecordBatch().NumRows()
				}
				return rows, rd.Err()
			},
		}
		for _, name := range []string{"quiver", "arrowgo"} {
			read := readers[name]
			b.Run("codec="+s.String()+"/reader="+name, func(b *testing.B) {
				b.SetBytes(raw)
				b.ReportAllocs()
				var rows int64
				for b.Loop() {
					n, err := read(fds)
					if err != nil {
						b.Fatal(err)
					}
					rows += n
				}
				b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
				b.ReportMetric(float64(raw)/float64(wire), "ratio")
			})
		}
	}
}

// benchRecords makes n batches of rows rows: id int64, x float64, s utf8.
func benchRecords(n, rows int) []arrow.RecordBatch {
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "x", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	var recs []arrow.RecordBatch
	for b := range n {
		rb := array.NewRecordBuilder(memory.DefaultAllocator, schema)
		for i := range rows {
			id := int64(b*rows + i)
			rb.Field(0).(*array.Int64Builder).Append(id)
			rb.Field(1).(*array.Float64Builder).Append(float64(id%1000) / 8)
			rb.Field(2).(*array.StringBuilder).Append("value " + strconv.FormatInt(id%5000, 10))
		}
		recs = append(recs, rb.NewRecordBatch())
		rb.Release()
	}
	return recs
}
