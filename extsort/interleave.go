package extsort

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// segment is n consecutive rows of source batch src, from row start.
type segment struct{ src, start, n int }

// Interleave is a k-way row interleave: it collects the rows of one output
// batch, in output order, from any number of source batches, and copies
// them column by column. It is how a sort puts its rows in order and a
// merge (extsort's, and GROUP BY's spill merge in package agg) puts its
// runs' rows together. Rows are held as segments of consecutive source
// rows: a sort of nearly sorted input, and a merge whose runs take turns
// rarely, hand over long stretches that are copied whole instead of row by
// row. The zero value is empty and ready; Reset reuses it.
type Interleave struct {
	segs []segment
	rows int
}

// Add appends row of source src, extending the last segment when it
// continues it.
func (g *Interleave) Add(src, row int) {
	if k := len(g.segs) - 1; k >= 0 && g.segs[k].src == src && g.segs[k].start+g.segs[k].n == row {
		g.segs[k].n++
	} else {
		g.segs = append(g.segs, segment{src, row, 1})
	}
	g.rows++
}

// AddRange appends rows [start, start+n) of source src.
func (g *Interleave) AddRange(src, start, n int) {
	if n <= 0 {
		return
	}
	if k := len(g.segs) - 1; k >= 0 && g.segs[k].src == src && g.segs[k].start+g.segs[k].n == start {
		g.segs[k].n += n
	} else {
		g.segs = append(g.segs, segment{src, start, n})
	}
	g.rows += n
}

// Len is the rows added since the last Reset.
func (g *Interleave) Len() int { return g.rows }

// Reset forgets the rows added, keeping the memory.
func (g *Interleave) Reset() {
	g.segs = g.segs[:0]
	g.rows = 0
}

// Record returns the batch of the rows added, of srcs, which all have
// schema, copying columns on up to workers goroutines (each column is
// independent; a batch of many rows in random order is worth splitting).
// It fails with ErrTooLarge when a string or binary column would pass its
// offsets' range.
func (g *Interleave) Record(mem memory.Allocator, schema *arrow.Schema, srcs []arrow.RecordBatch, workers int) (arrow.RecordBatch, error) {
	n := schema.NumFields()
	cols := make([]arrow.Array, n)
	errs := make([]error, n)
	one := func(i int) {
		parts := make([]arrow.Array, len(srcs))
		for k, s := range srcs {
			parts[k] = s.Column(i)
		}
		d, err := interleaveData(mem, schema.Field(i).Type, parts, g.segs, g.rows)
		if err != nil {
			errs[i] = fmt.Errorf("column %d (%s): %w", i, schema.Field(i).Name, err)
			return
		}
		cols[i] = array.MakeFromData(d)
		d.Release()
	}
	if workers = min(workers, n); workers <= 1 || g.rows < parallelRows {
		for i := range n {
			if one(i); errs[i] != nil {
				break
			}
		}
	} else {
		var next atomic.Int64
		var wg sync.WaitGroup
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
					one(i)
				}
			}()
		}
		wg.Wait()
	}
	if err := errors.Join(errs...); err != nil {
		releaseAll(cols)
		return nil, err
	}
	rec := array.NewRecordBatch(schema, cols, int64(g.rows))
	releaseAll(cols)
	return rec, nil
}

// Array returns the rows added of srcs, arrays of type dt, as one array.
func (g *Interleave) Array(mem memory.Allocator, dt arrow.DataType, srcs []arrow.Array) (arrow.Array, error) {
	d, err := interleaveData(mem, dt, srcs, g.segs, g.rows)
	if err != nil {
		return nil, err
	}
	defer d.Release()
	return array.MakeFromData(d), nil
}

// parallelRows is the batch size from which Record splits columns among
// goroutines: below it starting them costs more than they save.
const parallelRows = 1024

func releaseAll(as []arrow.Array) {
	for _, a := range as {
		if a != nil {
			a.Release()
		}
	}
}

// interleaveData copies the segments' rows of one column. The common layouts
// are copied buffer by buffer, dictionaries re-indexed into one; the rest
// (list views, run-end encoded, dictionaries of nested values)
// go through arrow-go's Concatenate of slices, which is slower but handles
// every type.
func interleaveData(mem memory.Allocator, dt arrow.DataType, srcs []arrow.Array, segs []segment, rows int) (arrow.ArrayData, error) {
	switch dt.ID() {
	case arrow.NULL:
		return array.NewData(dt, rows, []*memory.Buffer{nil}, nil, rows, 0), nil
	case arrow.BOOL:
		valid, nulls := interleaveValidity(mem, srcs, segs, rows)
		vals := interleaveBits(mem, srcs, segs, rows, 1)
		return releasing(array.NewData(dt, rows, []*memory.Buffer{valid, vals}, nil, nulls, 0), valid, vals), nil
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64,
		arrow.FLOAT16, arrow.FLOAT32, arrow.FLOAT64, arrow.DATE32, arrow.DATE64, arrow.TIME32, arrow.TIME64,
		arrow.TIMESTAMP, arrow.DURATION, arrow.DECIMAL32, arrow.DECIMAL64, arrow.DECIMAL128, arrow.DECIMAL256,
		arrow.INTERVAL_MONTHS, arrow.INTERVAL_DAY_TIME, arrow.INTERVAL_MONTH_DAY_NANO, arrow.FIXED_SIZE_BINARY:
		valid, nulls := interleaveValidity(mem, srcs, segs, rows)
		vals := interleaveFixed(mem, srcs, segs, rows, dt.(arrow.FixedWidthDataType).BitWidth()/8)
		return releasing(array.NewData(dt, rows, []*memory.Buffer{valid, vals}, nil, nulls, 0), valid, vals), nil
	case arrow.STRING, arrow.BINARY:
		return interleaveVarBinary(mem, dt, srcs, segs, rows, 4, arrow.Int32Traits.CastFromBytes, math.MaxInt32)
	case arrow.LARGE_STRING, arrow.LARGE_BINARY:
		return interleaveVarBinary(mem, dt, srcs, segs, rows, 8, arrow.Int64Traits.CastFromBytes, math.MaxInt64)
	case arrow.STRING_VIEW, arrow.BINARY_VIEW:
		return interleaveViews(mem, dt, srcs, segs, rows)
	case arrow.STRUCT:
		return interleaveStruct(mem, dt, srcs, segs, rows)
	case arrow.LIST:
		return interleaveList(mem, dt, dt.(*arrow.ListType).Elem(), srcs, segs, rows, 4, arrow.Int32Traits.CastFromBytes)
	case arrow.MAP:
		return interleaveList(mem, dt, dt.(*arrow.MapType).Elem(), srcs, segs, rows, 4, arrow.Int32Traits.CastFromBytes)
	case arrow.LARGE_LIST:
		return interleaveList(mem, dt, dt.(*arrow.LargeListType).Elem(), srcs, segs, rows, 8, arrow.Int64Traits.CastFromBytes)
	case arrow.FIXED_SIZE_LIST:
		return interleaveFixedSizeList(mem, dt, srcs, segs, rows)
	case arrow.SPARSE_UNION:
		return interleaveSparseUnion(mem, dt, srcs, segs, rows)
	case arrow.DENSE_UNION:
		return interleaveDenseUnion(mem, dt, srcs, segs, rows)
	case arrow.DICTIONARY:
		if d, ok := sharedDictionary(srcs, segs); ok {
			return interleaveDictionary(mem, dt, srcs, segs, rows, d)
		}
		if d, err := interleaveUnified(mem, dt, srcs, segs, rows); err == nil {
			return d, nil
		}
	}
	return interleaveConcat(mem, dt, srcs, segs)
}

// releasing drops the caller's references to bufs once d holds its own.
func releasing(d *array.Data, bufs ...*memory.Buffer) *array.Data {
	for _, b := range bufs {
		if b != nil {
			b.Release()
		}
	}
	return d
}

func newBuffer(mem memory.Allocator, n int) *memory.Buffer {
	b := memory.NewResizableBuffer(mem)
	b.Resize(n)
	return b
}

// interleaveValidity returns the validity bitmap of the gathered rows and
// their NULL count, or nil when no source row referenced is NULL.
func interleaveValidity(mem memory.Allocator, srcs []arrow.Array, segs []segment, rows int) (*memory.Buffer, int) {
	// Look each source up once: a sort hands over a segment per row.
	nulls := make([]bool, len(srcs))
	any := false
	for k, a := range srcs {
		nulls[k] = a.NullN() > 0
		any = any || nulls[k]
	}
	if !any {
		return nil, 0
	}
	referenced := false
	for _, s := range segs {
		if nulls[s.src] {
			referenced = true
			break
		}
	}
	if !referenced {
		return nil, 0
	}
	buf := newBuffer(mem, int(bitutil.BytesForBits(int64(rows))))
	out := buf.Bytes()
	at := 0
	for _, s := range segs {
		if !nulls[s.src] {
			bitutil.SetBitsTo(out, int64(at), int64(s.n), true)
		} else {
			d := srcs[s.src].Data()
			bitutil.CopyBitmap(d.Buffers()[0].Bytes(), d.Offset()+s.start, s.n, out, at)
		}
		at += s.n
	}
	return buf, rows - bitutil.CountSetBits(out, 0, rows)
}

// interleaveBits copies a bitmap buffer (booleans' values).
func interleaveBits(mem memory.Allocator, srcs []arrow.Array, segs []segment, rows, buffer int) *memory.Buffer {
	buf := newBuffer(mem, int(bitutil.BytesForBits(int64(rows))))
	at := 0
	for _, s := range segs {
		d := srcs[s.src].Data()
		bitutil.CopyBitmap(d.Buffers()[buffer].Bytes(), d.Offset()+s.start, s.n, buf.Bytes(), at)
		at += s.n
	}
	return buf
}

// interleaveFixed copies width bytes a row. A sort hands over mostly single
// rows, where a call to memmove per value costs more than the value, so
// the common widths move typed words and only long stretches use copy.
func interleaveFixed(mem memory.Allocator, srcs []arrow.Array, segs []segment, rows, width int) *memory.Buffer {
	buf := newBuffer(mem, rows*width)
	switch width {
	case 1:
		interleaveWords(buf.Bytes(), srcs, segs, 1, func(b []byte) []uint8 { return b })
	case 2:
		interleaveWords(buf.Bytes(), srcs, segs, 2, arrow.Uint16Traits.CastFromBytes)
	case 4:
		interleaveWords(buf.Bytes(), srcs, segs, 4, arrow.Uint32Traits.CastFromBytes)
	case 8:
		interleaveWords(buf.Bytes(), srcs, segs, 8, arrow.Uint64Traits.CastFromBytes)
	case 16:
		interleaveWords(buf.Bytes(), srcs, segs, 16, arrow.Decimal128Traits.CastFromBytes)
	default:
		out := buf.Bytes()
		at := 0
		for _, s := range segs {
			d := srcs[s.src].Data()
			src := d.Buffers()[1].Bytes()
			from := (d.Offset() + s.start) * width
			at += copy(out[at:], src[from:from+s.n*width])
		}
	}
	return buf
}

// shortRun is the stretch below which values are moved one by one.
const shortRun = 16

func interleaveWords[T any](out []byte, srcs []arrow.Array, segs []segment, width int, cast func([]byte) []T) {
	dst := cast(out)
	vals := make([][]T, len(srcs)) // each source's values, looked up once
	at := 0
	for _, s := range segs {
		src := vals[s.src]
		if src == nil {
			d := srcs[s.src].Data()
			src = cast(d.Buffers()[1].Bytes()[d.Offset()*width:])
			vals[s.src] = src
		}
		switch {
		case s.n == 1: // a sort's or a merge's usual segment
			dst[at] = src[s.start]
		case s.n < shortRun:
			for k := range s.n {
				dst[at+k] = src[s.start+k]
			}
		default:
			copy(dst[at:], src[s.start:s.start+s.n])
		}
		at += s.n
	}
}

// interleaveVarBinary copies offsets (rebased) and value bytes of strings and
// binaries.
func interleaveVarBinary[T int32 | int64](mem memory.Allocator, dt arrow.DataType, srcs []arrow.Array, segs []segment, rows, width int, cast func([]byte) []T, maxBytes int64) (arrow.ArrayData, error) {
	type source struct {
		offs []T
		data []byte
	}
	sources := make([]source, len(srcs)) // looked up once per source
	var total int64
	for _, s := range segs {
		src := &sources[s.src]
		if src.offs == nil {
			d := srcs[s.src].Data()
			src.offs = cast(d.Buffers()[1].Bytes())[d.Offset():]
			if b := d.Buffers()[2]; b != nil {
				src.data = b.Bytes()
			}
		}
		total += int64(src.offs[s.start+s.n] - src.offs[s.start])
	}
	if total > maxBytes {
		return nil, fmt.Errorf("%w: %d bytes of %s values in %d rows", ErrTooLarge, total, dt, rows)
	}
	offBuf := newBuffer(mem, (rows+1)*width)
	// wordSlack bytes past the end let short values be moved as whole
	// words (see below); the buffer's length stays total.
	dataBuf := memory.NewResizableBuffer(mem)
	dataBuf.Reserve(int(total) + wordSlack)
	dataBuf.ResizeNoShrink(int(total)) // Resize(0) would drop the reserve
	offs := cast(offBuf.Bytes())
	data := dataBuf.Buf()
	offs[0] = 0
	var pos T
	at := 0
	for _, s := range segs {
		src := &sources[s.src]
		if s.n == 1 { // the common case of a sort: one row
			lo, hi := src.offs[s.start], src.offs[s.start+1]
			moveShort(data, int(pos), src.data, int(lo), int(hi-lo))
			pos += hi - lo
			at++
			offs[at] = pos
			continue
		}
		o := src.offs[s.start : s.start+s.n+1]
		base := o[0]
		for k := 1; k <= s.n; k++ {
			offs[at+k] = o[k] - base + pos
		}
		if n := o[s.n] - base; n > 0 {
			copy(data[pos:], src.data[base:base+n])
			pos += n
		}
		at += s.n
	}
	valid, nulls := interleaveValidity(mem, srcs, segs, rows)
	return releasing(array.NewData(dt, rows, []*memory.Buffer{valid, offBuf, dataBuf}, nil, nulls, 0), valid, offBuf, dataBuf), nil
}

// wordSlack is the spare room moveShort needs past a buffer's end.
const wordSlack = 32

// moveShort copies n bytes from src[from:] to dst[to:]. A sort moves one
// short string at a time, where a call to memmove costs more than the
// bytes: values of up to 32 bytes are moved as one 16- or 32-byte array
// (two or four machine moves) when both sides have the room, which dst
// always has (wordSlack) and src has unless the value ends its buffer.
func moveShort(dst []byte, to int, src []byte, from, n int) {
	switch {
	case n <= 16 && from+16 <= len(src):
		*(*[16]byte)(dst[to : to+16]) = [16]byte(src[from : from+16])
	case n <= 32 && from+32 <= len(src):
		*(*[32]byte)(dst[to : to+32]) = [32]byte(src[from : from+32])
	default:
		copy(dst[to:to+n], src[from:from+n])
	}
}

// interleaveViews rebuilds string and binary views compactly: inline values
// copied with their header, longer ones appended to one new data buffer,
// so the output never keeps a source's buffers alive.
func interleaveViews(mem memory.Allocator, dt arrow.DataType, srcs []arrow.Array, segs []segment, rows int) (arrow.ArrayData, error) {
	viewsOf := func(a arrow.Array) []arrow.ViewHeader {
		d := a.Data()
		return arrow.ViewHeaderTraits.CastFromBytes(d.Buffers()[1].Bytes())[d.Offset():]
	}
	var total int64
	for _, s := range segs {
		for _, h := range viewsOf(srcs[s.src])[s.start : s.start+s.n] {
			if !h.IsInline() {
				total += int64(h.Len())
			}
		}
	}
	if total > math.MaxInt32 {
		return nil, fmt.Errorf("%w: %d bytes of %s values in %d rows", ErrTooLarge, total, dt, rows)
	}
	viewBuf := newBuffer(mem, rows*arrow.ViewHeaderSizeBytes)
	dataBuf := newBuffer(mem, int(total))
	out := arrow.ViewHeaderTraits.CastFromBytes(viewBuf.Bytes())
	data := dataBuf.Bytes()
	pos := 0
	at := 0
	for _, s := range segs {
		a := srcs[s.src]
		bufs := a.Data().Buffers()[2:]
		for k, h := range viewsOf(a)[s.start : s.start+s.n] {
			if h.IsInline() {
				out[at+k] = h
				continue
			}
			v := bufs[h.BufferIndex()].Bytes()[h.BufferOffset() : int(h.BufferOffset())+h.Len()]
			out[at+k].SetBytes(v)
			out[at+k].SetIndexOffset(0, int32(pos))
			pos += copy(data[pos:], v)
		}
		at += s.n
	}
	valid, nulls := interleaveValidity(mem, srcs, segs, rows)
	d := array.NewData(dt, rows, []*memory.Buffer{valid, viewBuf, dataBuf}, nil, nulls, 0)
	return releasing(d, valid, viewBuf, dataBuf), nil
}

// interleaveStruct gathers each field, and the struct's own validity.
func interleaveStruct(mem memory.Allocator, dt arrow.DataType, srcs []arrow.Array, segs []segment, rows int) (arrow.ArrayData, error) {
	st := dt.(*arrow.StructType)
	children := make([]arrow.ArrayData, st.NumFields())
	fields := make([]arrow.Array, len(srcs))
	for i := range children {
		for k, a := range srcs {
			fields[k] = a.(*array.Struct).Field(i)
		}
		c, err := interleaveData(mem, st.Field(i).Type, fields, segs, rows)
		if err != nil {
			releaseData(children[:i])
			return nil, err
		}
		children[i] = c
	}
	valid, nulls := interleaveValidity(mem, srcs, segs, rows)
	d := array.NewData(dt, rows, []*memory.Buffer{valid}, children, nulls, 0)
	releaseData(children)
	return releasing(d, valid), nil
}

// interleaveConcat is the path for every other type: arrow-go's Concatenate
// of a slice per segment.
func interleaveConcat(mem memory.Allocator, dt arrow.DataType, srcs []arrow.Array, segs []segment) (arrow.ArrayData, error) {
	if len(segs) == 0 {
		a := array.MakeArrayOfNull(mem, dt, 0)
		defer a.Release()
		d := a.Data()
		d.Retain()
		return d, nil
	}
	parts := make([]arrow.Array, len(segs))
	for i, s := range segs {
		parts[i] = array.NewSlice(srcs[s.src], int64(s.start), int64(s.start+s.n))
	}
	defer releaseAll(parts)
	out, err := array.Concatenate(parts, mem)
	if err != nil {
		return nil, err
	}
	defer out.Release()
	d := out.Data()
	d.Retain()
	return d, nil
}
