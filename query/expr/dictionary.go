package expr

import (
	"context"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Dictionary-encoded columns (issue 15). The cache keeps a dictionary
// column as dictionaries when that is smaller (cache/decide.go); the
// engine reads one as its values: its engine type is its value type's,
// and ToEngine decodes it, a row at a time through its indices (a NULL
// index, or an index to a NULL entry, is NULL). The scan's row filter
// tests such a column without decoding it (cache/rowfilter_dict.go):
// once per dictionary entry, then per row by its index, so a WHERE that
// is the column's only use never decodes it.

// dictionaryToEngine decodes d into its values, then converts them to
// their engine type. A dictionary of utf8 values — the common case —
// decodes in two loops of our own (decodeStrings), about 1.5 times as
// fast as arrow-go's take (BenchmarkDictionaryToEngine); others go
// through take.
func dictionaryToEngine(ctx context.Context, mem memory.Allocator, d *array.Dictionary) (arrow.Array, error) {
	if s, ok := d.Dictionary().(*array.String); ok {
		if out, err, done := decodeStrings(mem, d, s); done {
			return out, err
		}
	}
	dense, err := compute.TakeArray(compute.WithAllocator(ctx, mem), d.Dictionary(), d.Indices())
	if err != nil {
		return nil, errorf(ErrInvalid, "decoding a dictionary column: %v", err)
	}
	defer dense.Release()
	return ToEngine(ctx, mem, dense)
}

// decodeStrings decodes a dictionary of utf8 values. done is false when
// the values pass int32 offsets (take then decodes them, or says why not).
func decodeStrings(mem memory.Allocator, d *array.Dictionary, dict *array.String) (_ arrow.Array, _ error, done bool) {
	idx := d.Indices()
	switch a := idx.(type) {
	case *array.Int8:
		return decodeCodes(mem, a.Int8Values(), idx, dict)
	case *array.Int16:
		return decodeCodes(mem, a.Int16Values(), idx, dict)
	case *array.Int32:
		return decodeCodes(mem, a.Int32Values(), idx, dict)
	case *array.Int64:
		return decodeCodes(mem, a.Int64Values(), idx, dict)
	case *array.Uint8:
		return decodeCodes(mem, a.Uint8Values(), idx, dict)
	case *array.Uint16:
		return decodeCodes(mem, a.Uint16Values(), idx, dict)
	case *array.Uint32:
		return decodeCodes(mem, a.Uint32Values(), idx, dict)
	case *array.Uint64:
		return decodeCodes(mem, a.Uint64Values(), idx, dict)
	}
	return nil, nil, false
}

// decodeCodes is decodeStrings for one index type: a pass that checks
// the codes and sizes the output, then one that copies the values.
func decodeCodes[T int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64](mem memory.Allocator, codes []T, idx arrow.Array, dict *array.String) (_ arrow.Array, _ error, done bool) {
	n, m := len(codes), uint64(dict.Len())
	voffs := dict.ValueOffsets() // m+1, at the slice's offset
	vdata := dict.ValueBytes()   // from voffs[0]
	base := voffs[0]
	isNull := func(i int, c T) bool { return false }
	if idx.NullN() > 0 || dict.NullN() > 0 {
		isNull = func(i int, c T) bool { return idx.IsNull(i) || dict.IsNull(int(c)) }
	}
	total, nulls := 0, 0
	for i, c := range codes {
		if uint64(c) >= m && !idx.IsNull(i) {
			return nil, errorf(ErrInvalid, "decoding a dictionary column: index %d outside its %d values", int64(c), m), true
		}
		if isNull(i, c) {
			nulls++
			continue
		}
		total += int(voffs[uint64(c)+1] - voffs[c])
	}
	if total > math.MaxInt32 {
		return nil, nil, false
	}
	offBuf, offs := newValues[int32](mem, n+1)
	dataBuf := memory.NewResizableBuffer(mem)
	dataBuf.Resize(total)
	data := dataBuf.Bytes()
	var valid *memory.Buffer
	var bits []byte
	if nulls > 0 {
		valid = newBits(mem, n)
		bits = valid.Bytes()
	}
	at := int32(0)
	for i, c := range codes {
		offs[i] = at
		if nulls > 0 {
			if isNull(i, c) {
				continue
			}
			bitutil.SetBit(bits, i)
		}
		at += int32(copy(data[at:], vdata[voffs[c]-base:voffs[uint64(c)+1]-base]))
	}
	offs[n] = at
	return makeArray(typString, n, valid, nulls, offBuf, dataBuf), nil, true
}

// dictionaryFromEngine stores arr (of dt's value engine type) as a
// dictionary array of type dt: an INSERT into a column kept as
// dictionaries. More distinct values than dt's indices can number is
// ErrOverflow; a value type arrow-go's dictionary builder lacks (a
// large_utf8…) is ErrType.
func dictionaryFromEngine(ctx context.Context, mem memory.Allocator, arr arrow.Array, dt *arrow.DictionaryType) (arrow.Array, error) {
	switch dt.ValueType.ID() { // what arrow-go's dictionary builder takes without panicking
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64,
		arrow.FLOAT32, arrow.FLOAT64, arrow.DATE32, arrow.DATE64, arrow.STRING, arrow.BINARY:
	default:
		return nil, errorf(ErrType, "cannot store values into a column of %s: only dictionaries of integers, floats, dates, utf8 and binary", dt)
	}
	vals, err := FromEngine(ctx, mem, arr, dt.ValueType)
	if err != nil {
		return nil, err
	}
	defer vals.Release()
	b := array.NewDictionaryBuilder(mem, dt)
	defer b.Release()
	if err := b.AppendArray(vals); err != nil {
		return nil, errorf(ErrInvalid, "encoding %s: %v", dt, err)
	}
	if limit := maxIndex(dt.IndexType); uint64(b.DictionarySize()) > limit+1 {
		return nil, errorf(ErrOverflow, "%d distinct values do not fit %s (indices up to %d)", b.DictionarySize(), dt, limit)
	}
	return b.NewArray(), nil
}

// maxIndex is the largest value of an index type.
func maxIndex(it arrow.DataType) uint64 {
	switch it.ID() {
	case arrow.INT8:
		return math.MaxInt8
	case arrow.UINT8:
		return math.MaxUint8
	case arrow.INT16:
		return math.MaxInt16
	case arrow.UINT16:
		return math.MaxUint16
	case arrow.INT32:
		return math.MaxInt32
	case arrow.UINT32:
		return math.MaxUint32
	}
	return math.MaxInt64
}
