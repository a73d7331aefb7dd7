package server

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/batch"
	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/internal/flightipc"
)

// TestDictionaryResultsDecodeRight streams batches whose dictionaries
// change, grow (deltas) and come back, and reads them with arrow-go's IPC
// reader as a Flight client does: every value must be the one sent.
func TestDictionaryResultsDecodeRight(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dt := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int16, ValueType: arrow.BinaryTypes.String}
	schema := arrow.NewSchema([]arrow.Field{{Name: "d", Type: dt}}, nil)
	dicts := [][]string{{"a", "b"}, {"x", "y", "z"}, {"a", "b"}, {"a", "b", "c"}, {"x", "y", "z"}, {"a", "b"}}
	var recs []arrow.RecordBatch
	var want []string
	for i, words := range dicts {
		sb := array.NewStringBuilder(mem)
		sb.AppendValues(words, nil)
		dict := sb.NewArray()
		sb.Release()
		ib := array.NewInt16Builder(mem)
		for j := range 7 {
			k := (i + j) % len(words)
			ib.Append(int16(k))
			want = append(want, words[k])
		}
		idx := ib.NewArray()
		ib.Release()
		col := array.NewDictionaryArray(dt, idx, dict)
		idx.Release()
		dict.Release()
		recs = append(recs, array.NewRecordBatch(schema, []arrow.Array{col}, 7))
		col.Release()
	}
	rr, _ := array.NewRecordReader(schema, recs)
	defer rr.Release()
	for _, r := range recs {
		r.Release()
	}

	var stream bytes.Buffer
	var msgs []*flight.FlightData
	// One piece per batch: two encoders taking turns would each skip a
	// dictionary it sent last while the client holds the other one.
	w := &resultWriter{setting: codec.SettingLZ4, maxRows: 100, maxBytes: 1 << 20, mem: mem,
		send: func(fd *flight.FlightData) error {
			msgs = append(msgs, &flight.FlightData{DataHeader: bytes.Clone(fd.DataHeader), DataBody: bytes.Clone(fd.DataBody)})
			return nil
		}}
	if _, err := w.write(context.Background(), rr); err != nil {
		t.Fatal(err)
	}
	rd := flightipc.NewReader(func() (*flight.FlightData, error) {
		if len(msgs) == 0 {
			return nil, io.EOF
		}
		fd := msgs[0]
		msgs = msgs[1:]
		return fd, nil
	}, batch.Limits{})
	io.Copy(&stream, rd)
	r, err := ipc.NewReader(&stream, ipc.WithAllocator(mem))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	var got []string
	for r.Next() {
		col := r.RecordBatch().Column(0).(*array.Dictionary)
		words := col.Dictionary().(*array.String)
		for i := range col.Len() {
			got = append(got, words.Value(col.GetValueIndex(i)))
		}
	}
	if r.Err() != nil {
		t.Fatal(r.Err())
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got  %v\nwant %v", got, want)
	}
}
