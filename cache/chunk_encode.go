package cache

import (
	"encoding/binary"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/batch"
	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/colenc"
)

// chunkEncoder turns columns into chunks with one codec. It keeps scratch
// buffers between calls, so each goroutine needs its own.
type chunkEncoder struct {
	setting   codec.Setting
	codec     codec.Codec
	kind      codec.Kind
	encodings bool // colenc before the codec
	mem       memory.Allocator

	specs    []partSpec
	payload  []byte // stored bytes of the parts, in order
	inner    []byte // a part's bytes before the codec
	fill     []byte // values with null slots filled, before colenc
	bits     []byte // a bitmap re-aligned to offset 0
	offs     []byte // offsets rebased to start at 0
	narrowed []byte // decimal128 values cut to 64 bits
	blob     []byte // a batch's chunks, reused by encodeRecord
}

// use makes the encoder compress with s.
func (e *chunkEncoder) use(s codec.Setting) {
	if e.codec != nil && e.setting == s {
		return
	}
	e.setting, e.codec, e.kind = s, codec.MustNew(s), s.Kind
}

// encoded is what encoding one column produced besides the bytes.
type encoded struct {
	decoded  int64           // bytes of the Arrow buffers decoding yields (formIPC: measured by the caller)
	encoding colenc.Encoding // of the values (formFixed) or offsets (formVarBinary)
	ipc      bool
	narrowed bool // decimal128 values stored as 64-bit integers
}

// encode appends the chunk of arr to dst.
func (e *chunkEncoder) encode(dst []byte, arr arrow.Array) ([]byte, encoded, error) {
	e.specs, e.payload = e.specs[:0], e.payload[:0]
	f := formOf(arr.DataType())
	var info encoded
	var err error
	switch f.form {
	case formFixed:
		info = e.fixed(arr, f)
	case formVarBinary:
		info = e.varBinary(arr, f)
	default:
		info, err = e.ipc(arr)
		if err != nil {
			return dst, info, err
		}
	}
	start := len(dst)
	dst = append(dst, chunkVersion, byte(f.form), byte(e.kind))
	dst = appendUvarint(dst, arr.Len())
	dst = appendUvarint(dst, arr.NullN())
	dst = appendUvarint(dst, len(e.specs))
	for _, s := range e.specs {
		dst = append(dst, s.flags)
		dst = appendUvarint(dst, s.final)
		dst = appendUvarint(dst, s.inner)
		dst = appendUvarint(dst, s.stored)
	}
	dst = append(dst, e.payload...)
	return appendCRC(dst, start), info, nil
}

// addPart stores one part: inner through the codec (kept raw when that
// does not shrink it), final being the decoded Arrow buffer's length.
func (e *chunkEncoder) addPart(inner []byte, final int, encodedPart bool) {
	e.storePart(inner, final, encodedPart, e.kind != codec.None)
}

func (e *chunkEncoder) storePart(inner []byte, final int, encodedPart, compress bool) {
	var flags uint8
	if encodedPart {
		flags |= partEncoded
	}
	e.storePartFlags(inner, final, flags, compress)
}

func (e *chunkEncoder) storePartFlags(inner []byte, final int, flags uint8, compress bool) {
	s := partSpec{final: final, inner: len(inner), flags: flags}
	start := len(e.payload)
	if compress && len(inner) > 0 {
		e.payload = e.codec.Compress(e.payload, inner)
		if len(e.payload)-start < len(inner) {
			s.flags |= partCompressed
		} else {
			e.payload = e.payload[:start]
		}
	}
	if s.flags&partCompressed == 0 {
		e.payload = append(e.payload, inner...)
	}
	s.stored = len(e.payload) - start
	e.specs = append(e.specs, s)
}

// validity adds the validity part: empty when the column has no nulls,
// else the bitmap re-aligned to start at bit 0.
func (e *chunkEncoder) validity(arr arrow.Array) int64 {
	if arr.NullN() == 0 {
		e.addPart(nil, 0, false)
		return 0
	}
	bm := e.bitmap(arr.NullBitmapBytes(), arr.Data().Offset(), arr.Len())
	e.addPart(bm, len(bm), false)
	return int64(len(bm))
}

// bitmap returns n bits of src from bit off, starting at bit 0 of the
// result, with the bits past n clear.
func (e *chunkEncoder) bitmap(src []byte, off, n int) []byte {
	size := bitmapLen(n)
	if off%8 == 0 && n%8 == 0 {
		return src[off/8 : off/8+size]
	}
	e.bits = resizeDiscarding(e.bits, size)
	clear(e.bits)
	bitutil.CopyBitmap(src, off, n, e.bits, 0)
	return e.bits
}

func (e *chunkEncoder) fixed(arr arrow.Array, f columnForm) encoded {
	d := arr.Data()
	n, off := d.Len(), d.Offset()
	info := encoded{decoded: e.validity(arr)}
	var values []byte
	if buf := d.Buffers()[1]; buf != nil {
		values = buf.Bytes()
	}
	if f.width == 0 { // booleans
		bm := e.bitmap(values, off, n)
		e.addPart(bm, len(bm), false)
		info.decoded += int64(len(bm))
		return info
	}
	values = values[off*f.width : (off+n)*f.width]
	info.decoded += int64(len(values))
	if f.narrow && e.encodings && n > 0 {
		if arr.NullN() > 0 {
			values = e.fillNulls(values, arr, f.width)
		}
		if enc, ok := e.narrow(values); ok {
			info.encoding, info.narrowed = enc, true
			return info
		}
	}
	if !e.encodings || !f.encode || n == 0 {
		e.addPart(values, len(values), false)
		return info
	}
	if arr.NullN() > 0 {
		values = e.fillNulls(values, arr, f.width)
	}
	info.encoding = colenc.Choose(f.width, values)
	if info.encoding == colenc.Plain {
		e.addPart(values, len(values), false)
		return info
	}
	e.inner = colenc.Encode(e.inner[:0], values, f.width, info.encoding)
	e.addPart(e.inner, len(values), true)
	return info
}

// narrow stores 16-byte integer values as their low 8 bytes when every
// value fits in 64 bits (decimal128 columns of up to 18 digits, as TPC-H's
// prices): a part of half the size that colenc can then encode as int64s.
// It reports false, storing nothing, when a value does not fit.
func (e *chunkEncoder) narrow(values []byte) (colenc.Encoding, bool) {
	n := len(values) / 16
	e.narrowed = resizeDiscarding(e.narrowed, 8*n)
	for i := range n {
		lo := binary.LittleEndian.Uint64(values[16*i:])
		hi := binary.LittleEndian.Uint64(values[16*i+8:])
		if hi != uint64(int64(lo)>>63) {
			return colenc.Plain, false
		}
		binary.LittleEndian.PutUint64(e.narrowed[8*i:], lo)
	}
	narrow, flags := e.narrowed, uint8(partNarrowed)
	enc := colenc.Choose(8, narrow)
	if enc != colenc.Plain {
		e.inner = colenc.Encode(e.inner[:0], narrow, 8, enc)
		narrow, flags = e.inner, flags|partEncoded
	}
	e.storePartFlags(narrow, len(values), flags, e.kind != codec.None)
	return enc, true
}

// fillNulls returns a copy of values in which every null slot holds the
// previous valid value (the first valid value for leading nulls). A null
// slot's value is undefined in Arrow; builders write 0, which breaks a run
// of small deltas twice. Filled, id with every eighth row null encodes as
// deltas of 0 and 1.
func (e *chunkEncoder) fillNulls(values []byte, arr arrow.Array, width int) []byte {
	e.fill = resizeDiscarding(e.fill, len(values))
	copy(e.fill, values)
	n := arr.Len()
	first := 0
	for first < n && arr.IsNull(first) {
		first++
	}
	if first == n {
		return e.fill
	}
	prev := e.fill[first*width : (first+1)*width]
	for i := range first {
		copy(e.fill[i*width:], prev)
	}
	bits, off := arr.NullBitmapBytes(), arr.Data().Offset()
	for i := first + 1; i < n; i++ {
		if bitutil.BitIsSet(bits, off+i) {
			prev = e.fill[i*width : (i+1)*width]
		} else {
			copy(e.fill[i*width:], prev)
		}
	}
	return e.fill
}

func (e *chunkEncoder) varBinary(arr arrow.Array, f columnForm) encoded {
	d := arr.Data()
	n, off := d.Len(), d.Offset()
	info := encoded{decoded: e.validity(arr)}
	var offBytes, data []byte
	if buf := d.Buffers()[1]; buf != nil {
		offBytes = buf.Bytes()
	}
	if buf := d.Buffers()[2]; buf != nil {
		data = buf.Bytes()
	}
	var first, last int64
	if n > 0 {
		offBytes = offBytes[off*f.width : (off+n+1)*f.width]
		first, last = readOffset(offBytes, f.width, 0), readOffset(offBytes, f.width, n)
		if first != 0 {
			offBytes = e.rebase(offBytes, f.width, first)
		}
		data = data[first:last]
	} else {
		// An empty column decodes to the single offset 0.
		e.offs = resizeDiscarding(e.offs, f.width)
		clear(e.offs)
		offBytes, data = e.offs, nil
	}
	info.decoded += int64(len(offBytes) + len(data))
	if e.encodings {
		info.encoding = colenc.Lengths
		e.inner = colenc.Encode(e.inner[:0], offBytes, f.width, colenc.Lengths)
		e.addPart(e.inner, len(offBytes), true)
	} else {
		e.addPart(offBytes, len(offBytes), false)
	}
	e.addPart(data, len(data), false)
	return info
}

// rebase returns offs minus first, in scratch.
func (e *chunkEncoder) rebase(offs []byte, width int, first int64) []byte {
	e.offs = resizeDiscarding(e.offs, len(offs))
	for i := range len(offs) / width {
		writeOffset(e.offs, width, i, readOffset(offs, width, i)-first)
	}
	return e.offs
}

// ipc stores the column as the batch layer's Arrow IPC messages (the
// dictionary batches it needs, then the record batch), each compressed by
// the batch layer with the chunk's codec.
func (e *chunkEncoder) ipc(arr arrow.Array) (encoded, error) {
	schema := columnSchema(arr.DataType())
	enc, err := batch.NewEncoder(schema, batch.WriteOptions{Codec: e.setting, Concurrency: 1, Alloc: e.mem})
	if err != nil {
		return encoded{}, err
	}
	defer enc.Release()
	rec := array.NewRecordBatch(schema, []arrow.Array{arr}, int64(arr.Len()))
	defer rec.Release()
	msgs, err := enc.Encode(rec)
	if err != nil {
		return encoded{}, fmt.Errorf("cache: storing a %s column: %w", arr.DataType(), err)
	}
	// The batch layer compressed the bodies' buffers with the chunk's
	// codec already, so the parts are stored raw.
	for _, m := range msgs {
		e.storePart(m.Meta, len(m.Meta), false, false)
		e.storePart(m.Body, len(m.Body), false, false)
	}
	return encoded{ipc: true}, nil
}

// columnSchema is the one-field schema a formIPC chunk's messages use.
func columnSchema(dt arrow.DataType) *arrow.Schema {
	return arrow.NewSchema([]arrow.Field{{Name: "c", Type: dt, Nullable: true}}, nil)
}

func readOffset(b []byte, width, i int) int64 {
	if width == 4 {
		return int64(int32(binary.LittleEndian.Uint32(b[4*i:])))
	}
	return int64(binary.LittleEndian.Uint64(b[8*i:]))
}

func writeOffset(b []byte, width, i int, v int64) {
	if width == 4 {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(v))
		return
	}
	binary.LittleEndian.PutUint64(b[8*i:], uint64(v))
}

// resizeDiscarding returns b with length n, reusing its capacity; its
// contents are not kept when it must grow (batch's resizeKeeping keeps them).
func resizeDiscarding(b []byte, n int) []byte {
	if cap(b) >= n {
		return b[:n]
	}
	return make([]byte, n)
}
