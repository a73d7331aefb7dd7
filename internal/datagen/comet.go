package datagen

import (
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// The relation of the Comet cache benchmark. Row i (counted across
// batches from 0) holds:
//
//	id  int64  i                     null when i%8 == 0
//	k   int64  i % 1000              null when i%8 == 1
//	v   int64  i + 1                 null when i%8 == 2
//	s1  utf8   "str_a_" + i%100000   null when i%8 == 3
//	s2  utf8   "str_b_" + i%7919     null when i%8 == 4
//	s3  utf8   "str_c_" + i          null when i%8 == 5
//
// A null slot holds 0 (ints) or the empty string, as Arrow builders write.
const (
	DefaultCometRows  = 5_000_000
	DefaultCometBatch = 8192
)

// CometSchema is the schema of CometRecords.
var CometSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "k", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "v", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "s1", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "s2", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "s3", Type: arrow.BinaryTypes.String, Nullable: true},
}, nil)

// CometRecords returns rows rows of the Comet relation in batches of
// batchRows (the last may be shorter), allocated from mem (nil means
// memory.DefaultAllocator). The caller releases every record.
//
// Buffers are filled directly rather than through builders: builders
// cost 13-30 ns a value (reference/arrow-go.md §3), about 4 s for 5M rows
// of six columns, and their power-of-two capacities would make the
// buffers, our MB/s numerator, larger than the data.
func CometRecords(mem memory.Allocator, rows, batchRows int) []arrow.RecordBatch {
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	if batchRows <= 0 {
		batchRows = DefaultCometBatch
	}
	recs := make([]arrow.RecordBatch, 0, (max(rows, 0)+batchRows-1)/batchRows)
	for start := 0; start < rows; start += batchRows {
		recs = append(recs, cometBatch(mem, start, min(batchRows, rows-start)))
	}
	return recs
}

func cometBatch(mem memory.Allocator, start, n int) arrow.RecordBatch {
	cols := [...]arrow.Array{
		int64Column(mem, start, n, nullMod8(0), func(i int) int64 { return int64(i) }),
		int64Column(mem, start, n, nullMod8(1), func(i int) int64 { return int64(i % 1000) }),
		int64Column(mem, start, n, nullMod8(2), func(i int) int64 { return int64(i + 1) }),
		stringColumn(mem, start, n, nullMod8(3), "str_a_", 100000),
		stringColumn(mem, start, n, nullMod8(4), "str_b_", 7919),
		stringColumn(mem, start, n, nullMod8(5), "str_c_", 0),
	}
	rec := array.NewRecordBatch(CometSchema, cols[:], int64(n))
	for _, c := range cols {
		c.Release()
	}
	return rec
}

// nullMod8 is the Comet null pattern of the column with this phase: row
// i is null when i%8 == phase.
func nullMod8(phase int) func(row int) bool {
	return func(row int) bool { return row%8 == phase }
}

// newBuffer returns an exactly sized buffer from mem.
func newBuffer(mem memory.Allocator, size int) *memory.Buffer {
	b := memory.NewResizableBuffer(mem)
	b.Resize(size)
	return b
}

// patternValidity returns the bitmap of rows start..start+n-1, null where
// null(row), and the null count. Trailing bits are zero.
func patternValidity(mem memory.Allocator, start, n int, null func(row int) bool) (*memory.Buffer, int) {
	buf := newBuffer(mem, (n+7)/8)
	bits := buf.Bytes()
	nulls := 0
	for j := 0; j < n; j += 8 {
		var b byte
		for k := 0; k < 8 && j+k < n; k++ {
			if !null(start + j + k) {
				b |= 1 << k
			} else {
				nulls++
			}
		}
		bits[j/8] = b
	}
	return buf, nulls
}

// int64Column fills value(row) for valid rows and 0 for null ones.
func int64Column(mem memory.Allocator, start, n int, null func(row int) bool, value func(row int) int64) arrow.Array {
	valid, nulls := patternValidity(mem, start, n, null)
	vals := newBuffer(mem, n*8)
	v := arrow.Int64Traits.CastFromBytes(vals.Bytes())
	for j := range n {
		if row := start + j; !null(row) {
			v[j] = value(row)
		} else {
			v[j] = 0
		}
	}
	return makeArray(arrow.PrimitiveTypes.Int64, n, nulls, valid, vals)
}

// stringColumn writes prefix + decimal(row % mod) (mod 0: row) for valid
// rows. It sizes the data buffer in a first pass so it is exact.
func stringColumn(mem memory.Allocator, start, n int, null func(row int) bool, prefix string, mod int) arrow.Array {
	value := func(row int) int {
		if mod > 0 {
			return row % mod
		}
		return row
	}
	size := 0
	for j := range n {
		if row := start + j; !null(row) {
			size += len(prefix) + decimalLen(value(row))
		}
	}
	valid, nulls := patternValidity(mem, start, n, null)
	offsets := newBuffer(mem, (n+1)*4)
	data := newBuffer(mem, size)
	off := arrow.Int32Traits.CastFromBytes(offsets.Bytes())
	b := data.Bytes()[:0] // appends stay within the exact capacity
	for j := range n {
		off[j] = int32(len(b))
		if row := start + j; !null(row) {
			b = strconv.AppendInt(append(b, prefix...), int64(value(row)), 10)
		}
	}
	off[n] = int32(len(b))
	if len(b) != size {
		panic("bench: string column sized " + strconv.Itoa(size) + " but wrote " + strconv.Itoa(len(b)))
	}
	return makeArray(arrow.BinaryTypes.String, n, nulls, valid, offsets, data)
}

func decimalLen(v int) int {
	n := 1
	for v >= 10 {
		v /= 10
		n++
	}
	return n
}

// makeArray wraps buffers the caller hands over (their references move to
// the array).
func makeArray(t arrow.DataType, n, nulls int, bufs ...*memory.Buffer) arrow.Array {
	data := array.NewData(t, n, bufs, nil, nulls, 0)
	for _, b := range bufs {
		b.Release()
	}
	defer data.Release()
	return array.MakeFromData(data)
}
