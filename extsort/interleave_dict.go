package extsort

import (
	"encoding/binary"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// sharedDictionary returns the dictionary every referenced source uses,
// if they share one (the same array data, as batches of one stream
// usually do).
func sharedDictionary(srcs []arrow.Array, segs []segment) (arrow.Array, bool) {
	var dict arrow.Array
	for _, s := range segs {
		d := srcs[s.src].(*array.Dictionary).Dictionary()
		if dict == nil {
			dict = d
			continue
		}
		if d.Data() != dict.Data() && !array.Equal(d, dict) {
			return nil, false
		}
	}
	return dict, dict != nil
}

// interleaveDictionary gathers the indices and keeps the shared dictionary.
func interleaveDictionary(mem memory.Allocator, dt arrow.DataType, srcs []arrow.Array, segs []segment, rows int, dict arrow.Array) (arrow.ArrayData, error) {
	idx := make([]arrow.Array, len(srcs))
	for k, a := range srcs {
		idx[k] = a.(*array.Dictionary).Indices()
	}
	it := dt.(*arrow.DictionaryType).IndexType
	valid, nulls := interleaveValidity(mem, idx, segs, rows)
	vals := interleaveFixed(mem, idx, segs, rows, it.(arrow.FixedWidthDataType).BitWidth()/8)
	d := array.NewDataWithDictionary(dt, rows, []*memory.Buffer{valid, vals}, nulls, 0, dict.Data().(*array.Data))
	return releasing(d, valid, vals), nil
}

// interleaveUnified gathers dictionary rows whose sources have different
// dictionaries (batches of different runs, each with its own): the
// referenced dictionaries are unified into one and each row's index is
// transposed into it. It fails for value types arrow-go cannot unify
// (nested ones), and when the unified dictionary does not fit the index
// type; the caller then concatenates.
func interleaveUnified(mem memory.Allocator, dt arrow.DataType, srcs []arrow.Array, segs []segment, rows int) (arrow.ArrayData, error) {
	t := dt.(*arrow.DictionaryType)
	u, err := array.NewDictionaryUnifier(mem, t.ValueType)
	if err != nil {
		return nil, err
	}
	defer u.Release()
	maps := make([][]int32, len(srcs))
	var bufs []*memory.Buffer
	defer func() {
		for _, b := range bufs {
			b.Release()
		}
	}()
	for _, s := range segs {
		if maps[s.src] != nil {
			continue
		}
		b, err := u.UnifyAndTranspose(srcs[s.src].(*array.Dictionary).Dictionary())
		if err != nil {
			return nil, err
		}
		bufs = append(bufs, b)
		maps[s.src] = arrow.Int32Traits.CastFromBytes(b.Bytes())
		if maps[s.src] == nil {
			maps[s.src] = []int32{} // an empty dictionary: no index may refer to it
		}
	}
	dict, err := u.GetResultWithIndexType(t.IndexType)
	if err != nil {
		return nil, err
	}
	defer dict.Release()

	width := t.IndexType.(arrow.FixedWidthDataType).BitWidth() / 8
	idxBuf := newBuffer(mem, rows*width)
	out := idxBuf.Bytes()
	at := 0
	for _, s := range segs {
		a := srcs[s.src].(*array.Dictionary)
		m := maps[s.src]
		for i := s.start; i < s.start+s.n; i++ {
			var v int32
			if a.IsValid(i) {
				k := a.GetValueIndex(i)
				if k < 0 || k >= len(m) {
					idxBuf.Release()
					return nil, fmt.Errorf("%w: dictionary index %d of %d values", ErrInput, k, len(m))
				}
				v = m[k]
			}
			putIndex(out[at*width:], width, v)
			at++
		}
	}
	idx := make([]arrow.Array, len(srcs))
	for k, a := range srcs {
		idx[k] = a.(*array.Dictionary).Indices()
	}
	valid, nulls := interleaveValidity(mem, idx, segs, rows)
	d := array.NewDataWithDictionary(dt, rows, []*memory.Buffer{valid, idxBuf}, nulls, 0, dict.Data().(*array.Data))
	return releasing(d, valid, idxBuf), nil
}

// putIndex writes a dictionary index of width bytes (signed or unsigned:
// the unified dictionary fits the index type, so v does too).
func putIndex(b []byte, width int, v int32) {
	switch width {
	case 1:
		b[0] = byte(v)
	case 2:
		binary.LittleEndian.PutUint16(b, uint16(v))
	case 4:
		binary.LittleEndian.PutUint32(b, uint32(v))
	default:
		binary.LittleEndian.PutUint64(b, uint64(int64(v)))
	}
}
