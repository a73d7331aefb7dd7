package column

import (
	"errors"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Errors of this package; package convert re-exports them.
var (
	// ErrUnsupported: a type no builder handles.
	ErrUnsupported = errors.New("unsupported type")
	// ErrRange: a value that does not fit its column's type (a decimal
	// past its precision, an integer past its width).
	ErrRange = errors.New("value out of range")
	// ErrCorrupt: input arrays that contradict themselves (a dictionary
	// id past the dictionary's end).
	ErrCorrupt = errors.New("corrupt input")
	// ErrOffsets: appending would push an int32 offset past MaxOffset.
	// The coalescer avoids it by closing the batch first.
	ErrOffsets = errors.New("int32 offsets would overflow")
)

// MaxOffset is the largest int32 offset a builder writes: the data of a
// String or Binary column, and the child count of a List, stay within
// it. A variable only so that tests can lower it.
var MaxOffset int64 = math.MaxInt32

// Builder builds one output column of record batches. It is filled by
// whole slices of Arrow arrays (AppendArray, the bulk path) or value by
// value through the typed methods of the concrete builders, and emptied
// by Finish, after which it is ready for the next batch.
type Builder interface {
	// Type is the output type (dictionaries decoded).
	Type() arrow.DataType
	// Len is the number of rows appended since the last Finish.
	Len() int
	// Bytes is the size of the buffers written so far.
	Bytes() int64
	// AppendArray appends rows [start, start+n) of arr, whose type is
	// Type() or a dictionary of it, with each row's validity ANDed with
	// mask's. On error nothing is appended.
	AppendArray(arr arrow.Array, start, n int, mask Mask) error
	// Measure returns the bytes AppendArray(arr, start, n) would add and
	// whether they fit within MaxOffset.
	Measure(arr arrow.Array, start, n int) (bytes int64, fits bool)
	// AppendNulls appends n null rows.
	AppendNulls(n int)
	// Truncate drops the rows past n (n ≤ Len()).
	Truncate(n int)
	// Finish hands over the rows appended as array data and empties the
	// builder. The caller releases the data.
	Finish() arrow.ArrayData
	// Snapshot returns the rows appended as array data that shares the
	// builder's buffers; the builder keeps them. The data must be
	// released before the builder is written again (reuse mode: scratch
	// columns, such as a CSV chunk's, reused chunk after chunk).
	Snapshot() arrow.ArrayData
	// Reset empties the builder and keeps its memory (reuse mode).
	Reset()
	// Release frees the builder's memory.
	Release()
}

// New returns a builder for columns of type dt (a dictionary type builds
// its value type). capRows is the rows a batch is expected to hold:
// fixed-width buffers are sized for it on first use. Tests pass 1 so
// that every buffer has to grow.
func New(dt arrow.DataType, mem memory.Allocator, capRows int) (Builder, error) {
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	capRows = max(capRows, 1)
	dt = OutputType(dt)
	switch t := dt.(type) {
	case *arrow.NullType:
		return &Null{dt: t}, nil
	case *arrow.BooleanType:
		return newBool(mem, capRows), nil
	case *arrow.StringType, *arrow.BinaryType:
		return newBinary[int32](dt, mem, capRows), nil
	case *arrow.LargeStringType, *arrow.LargeBinaryType:
		return newBinary[int64](dt, mem, capRows), nil
	case *arrow.ListType:
		return newList[int32](dt, t.Elem(), mem, capRows)
	case *arrow.LargeListType:
		return newList[int64](dt, t.Elem(), mem, capRows)
	case *arrow.MapType:
		return newList[int32](dt, t.Elem(), mem, capRows)
	case *arrow.FixedSizeListType:
		return newFixedList(t, mem, capRows)
	case *arrow.StructType:
		return newStruct(t, mem, capRows)
	}
	if w := fixedWidth(dt); w > 0 {
		return newFixed(dt, w, mem, capRows), nil
	}
	return nil, fmt.Errorf("%w: %s", ErrUnsupported, dt)
}

// fixedWidth is the byte width of a fixed-width primitive type, or 0.
func fixedWidth(dt arrow.DataType) int {
	switch dt.ID() {
	case arrow.INT8, arrow.UINT8:
		return 1
	case arrow.INT16, arrow.UINT16, arrow.FLOAT16:
		return 2
	case arrow.INT32, arrow.UINT32, arrow.FLOAT32, arrow.DATE32, arrow.TIME32,
		arrow.INTERVAL_MONTHS, arrow.DECIMAL32:
		return 4
	case arrow.INT64, arrow.UINT64, arrow.FLOAT64, arrow.DATE64, arrow.TIME64,
		arrow.TIMESTAMP, arrow.DURATION, arrow.INTERVAL_DAY_TIME, arrow.DECIMAL64:
		return 8
	case arrow.INTERVAL_MONTH_DAY_NANO, arrow.DECIMAL128:
		return 16
	case arrow.DECIMAL256:
		return 32
	case arrow.FIXED_SIZE_BINARY:
		return dt.(*arrow.FixedSizeBinaryType).ByteWidth
	}
	return 0
}

// OutputType is dt with every dictionary replaced by its value type: the
// converter decodes dictionaries.
func OutputType(dt arrow.DataType) arrow.DataType {
	switch t := dt.(type) {
	case *arrow.DictionaryType:
		return OutputType(t.ValueType)
	case *arrow.ListType:
		if e := OutputType(t.Elem()); e != t.Elem() {
			return arrow.ListOfField(withType(t.ElemField(), e))
		}
	case *arrow.LargeListType:
		if e := OutputType(t.Elem()); e != t.Elem() {
			return arrow.LargeListOfField(withType(t.ElemField(), e))
		}
	case *arrow.FixedSizeListType:
		if e := OutputType(t.Elem()); e != t.Elem() {
			return arrow.FixedSizeListOfField(t.Len(), withType(t.ElemField(), e))
		}
	case *arrow.MapType:
		k, v := OutputType(t.KeyType()), OutputType(t.ItemType())
		if k != t.KeyType() || v != t.ItemType() {
			m := arrow.MapOfFields(withType(t.KeyField(), k), withType(t.ItemField(), v))
			m.KeysSorted = t.KeysSorted
			return m
		}
	case *arrow.StructType:
		fs := t.Fields()
		changed := false
		for i, f := range fs {
			if o := OutputType(f.Type); o != f.Type {
				fs[i].Type, changed = o, true
			}
		}
		if changed {
			return arrow.StructOf(fs...)
		}
	}
	return dt
}

func withType(f arrow.Field, dt arrow.DataType) arrow.Field { f.Type = dt; return f }

// OutputSchema is s with OutputType applied to every field.
func OutputSchema(s *arrow.Schema) *arrow.Schema {
	fs := s.Fields()
	changed := false
	for i, f := range fs {
		if o := OutputType(f.Type); o != f.Type {
			fs[i].Type, changed = o, true
		}
	}
	if !changed {
		return s
	}
	md := s.Metadata()
	return arrow.NewSchema(fs, &md)
}

// dictionary returns arr as a dictionary array, or nil.
func dictionary(arr arrow.Array) *array.Dictionary {
	d, _ := arr.(*array.Dictionary)
	return d
}

func finishData(dt arrow.DataType, n int, bufs []*memory.Buffer, children []arrow.ArrayData, nulls int) arrow.ArrayData {
	data := array.NewData(dt, n, bufs, children, nulls, 0)
	for _, b := range bufs {
		if b != nil {
			b.Release()
		}
	}
	for _, c := range children {
		c.Release()
	}
	return data
}
