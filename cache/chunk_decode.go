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
	"github.com/quiverdb/quiver/internal/bufs"
)

// chunkDecoder turns chunks back into arrays. Its scratch buffer is reused
// between calls, so each goroutine needs its own.
type chunkDecoder struct {
	mem     memory.Allocator
	scratch []byte    // a part's bytes after the codec
	wide    []byte    // a narrowed part's 64-bit values
	sel     []int32   // the row filter's selection
	narrows [][]int64 // narrowed decimal columns' values, one per column of a filtered batch
}

// chunk is a parsed chunk header; part i's stored bytes are payload[i].
type chunk struct {
	form    int
	kind    codec.Kind
	rows    int
	nulls   int
	specs   []partSpec
	payload [][]byte
}

func corrupt(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, args...))
}

// parseChunk checks a chunk's header and part table against its length and
// against limit, the most decoded bytes the caller expects, before anything
// is allocated.
func parseChunk(src []byte, limit int64) (chunk, error) {
	var c chunk
	if err := CheckChunk(src); err != nil {
		return c, err
	}
	src = src[:len(src)-4]
	c.form, c.kind = int(src[1]), codec.Kind(src[2])
	if c.form < formFixed || c.form > formIPC {
		return c, corrupt("unknown chunk form %d", c.form)
	}
	if c.kind > codec.Zstd {
		return c, corrupt("unknown codec %d", c.kind)
	}
	r := reader{b: src[3:]}
	c.rows, c.nulls = r.int(maxChunkRows), r.int(maxChunkRows)
	n := r.int(maxPartsIPC)
	if r.err == nil && c.nulls > c.rows {
		return c, corrupt("%d nulls in %d rows", c.nulls, c.rows)
	}
	if r.err == nil && c.form != formIPC && n != partsOf(c.form) {
		return c, corrupt("%d parts, form %d has %d", n, c.form, partsOf(c.form))
	}
	if r.err == nil && c.form == formIPC && (n == 0 || n%2 != 0) {
		return c, corrupt("%d parts, an IPC chunk has metadata and body pairs", n)
	}
	var total int64
	c.specs = make([]partSpec, 0, min(n, maxPartsIPC))
	for range n {
		if r.err != nil {
			break
		}
		var s partSpec
		s.flags = r.byte()
		s.final, s.inner, s.stored = r.int(1<<62), r.int(1<<62), r.int(len(src))
		if r.err != nil {
			break
		}
		if s.flags&^partFlags != 0 {
			return c, corrupt("part %d has unknown flags %#x", len(c.specs), s.flags)
		}
		if s.flags&partNarrowed != 0 && s.final%16 != 0 {
			return c, corrupt("part %d: narrowed part of %d bytes, not 16-byte values", len(c.specs), s.final)
		}
		if s.flags&partEncoded == 0 && s.inner != s.innerLen() {
			return c, corrupt("part %d: %d inner bytes for a %d-byte buffer", len(c.specs), s.inner, s.final)
		}
		if s.flags&partCompressed == 0 && s.stored != s.inner {
			return c, corrupt("part %d: %d bytes stored raw for %d", len(c.specs), s.stored, s.inner)
		}
		total += int64(s.final)
		// A formIPC chunk's parts are messages stored raw (bounded by the
		// chunk's length); the batch layer bounds what they decode to.
		if c.form != formIPC && total > limit {
			return c, corrupt("parts decode to more than the %d bytes recorded for the column", limit)
		}
		c.specs = append(c.specs, s)
	}
	if r.err != nil {
		return c, r.err
	}
	rest := r.b
	c.payload = make([][]byte, len(c.specs))
	for i, s := range c.specs {
		if s.stored > len(rest) {
			return c, corrupt("part %d: %d bytes stored, %d left in the chunk", i, s.stored, len(rest))
		}
		c.payload[i], rest = rest[:s.stored:s.stored], rest[s.stored:]
	}
	if len(rest) != 0 {
		return c, corrupt("%d bytes after the last part", len(rest))
	}
	return c, nil
}

// decode returns the array of type dt a chunk holds. limit is the decoded
// size recorded for the column; the chunk must decode to at most that.
func (d *chunkDecoder) decode(dt arrow.DataType, src []byte, limit int64) (arrow.Array, error) {
	c, err := parseChunk(src, limit)
	if err != nil {
		return nil, err
	}
	f := formOf(dt)
	if c.form != f.form {
		return nil, corrupt("chunk form %d for a %s column (form %d)", c.form, dt, f.form)
	}
	if c.form == formIPC {
		return d.ipc(dt, c, limit)
	}
	bufs := make([]*memory.Buffer, 1, 3)
	release := func() {
		for _, b := range bufs {
			if b != nil {
				b.Release()
			}
		}
	}
	if bufs[0], err = d.validity(c); err != nil {
		return nil, err
	}
	switch c.form {
	case formFixed:
		size := c.rows * f.width
		if f.width == 0 {
			size = bitmapLen(c.rows)
		}
		b, err := d.part(c, 1, size)
		bufs = append(bufs, b)
		if err != nil {
			release()
			return nil, err
		}
	case formVarBinary:
		offs, err := d.part(c, 1, (c.rows+1)*f.width)
		bufs = append(bufs, offs)
		if err != nil {
			release()
			return nil, err
		}
		if err := checkOffsets(offs.Bytes(), f.width, c.rows, c.specs[2].final); err != nil {
			release()
			return nil, err
		}
		data, err := d.part(c, 2, c.specs[2].final)
		bufs = append(bufs, data)
		if err != nil {
			release()
			return nil, err
		}
	}
	data := array.NewData(dt, c.rows, bufs, nil, c.nulls, 0)
	release()
	defer data.Release()
	return array.MakeFromData(data), nil
}

// validity returns the validity bitmap, nil for a column without nulls,
// after checking it holds exactly the recorded number of nulls.
func (d *chunkDecoder) validity(c chunk) (*memory.Buffer, error) {
	if c.nulls == 0 {
		if c.specs[0].final != 0 {
			return nil, corrupt("a validity bitmap in a column without nulls")
		}
		return nil, nil
	}
	b, err := d.part(c, 0, bitmapLen(c.rows))
	if err != nil {
		return nil, err
	}
	if set := bitutil.CountSetBits(b.Bytes(), 0, c.rows); c.rows-set != c.nulls {
		b.Release()
		return nil, corrupt("validity bitmap has %d nulls, the header %d", c.rows-set, c.nulls)
	}
	return b, nil
}

// part materializes part i, which must decode to exactly size bytes, in a
// buffer from the allocator.
func (d *chunkDecoder) part(c chunk, i, size int) (*memory.Buffer, error) {
	s := c.specs[i]
	if s.final != size {
		return nil, corrupt("part %d holds %d bytes, the column needs %d", i, s.final, size)
	}
	buf := d.partBuffer(size)
	out := buf.Bytes()
	var err error
	switch {
	case s.flags&partNarrowed != 0:
		err = d.narrowed(out, c, i)
	case s.flags&partEncoded == 0 && s.flags&partCompressed == 0:
		copy(out, c.payload[i])
	case s.flags&partEncoded == 0:
		err = d.decompress(out, c, i)
	default:
		var inner []byte
		if inner, err = d.inner(c, i, size); err != nil {
			break
		}
		err = decodeInto(out, inner, i)
	}
	if err != nil {
		buf.Release()
		return nil, err
	}
	return buf, nil
}

// partBuffer returns a buffer of size bytes for part to fill, with the
// slack after them that lets zstd decode with its fast copies
// (codec.DecodeSlack). From a DirtyAllocator (the default recycler) its
// bytes are not cleared: part writes every one or fails and frees the
// buffer.
func (d *chunkDecoder) partBuffer(size int) *memory.Buffer {
	return bufs.NewDirtyWithSlack(d.mem, size, codec.DecodeSlack)
}

// inner returns part i's bytes before the codec: the stored bytes, or
// their decompression into the decoder's scratch. limit bounds what an
// encoded part may claim.
func (d *chunkDecoder) inner(c chunk, i, limit int) ([]byte, error) {
	s := c.specs[i]
	if s.flags&partCompressed == 0 {
		return c.payload[i], nil
	}
	if s.inner > limit+64 {
		return nil, corrupt("part %d: %d encoded bytes for a %d-byte buffer", i, s.inner, limit)
	}
	d.scratch = resizeDiscarding(d.scratch, s.inner+codec.DecodeSlack)[:s.inner]
	if err := d.decompress(d.scratch, c, i); err != nil {
		return nil, err
	}
	return d.scratch, nil
}

// decodeInto colenc-decodes inner into exactly len(out) bytes.
func decodeInto(out, inner []byte, i int) error {
	got, err := colenc.Decode(out[:0:len(out)], inner, len(out))
	if err != nil {
		return corrupt("part %d: %v", i, err)
	}
	if len(got) != len(out) || (len(out) > 0 && &got[0] != &out[0]) { // every byte of out written
		return corrupt("part %d decodes to %d bytes, want %d", i, len(got), len(out))
	}
	return nil
}

// decompress decodes part i's stored bytes into out, exactly len(out) bytes.
func (d *chunkDecoder) decompress(out []byte, c chunk, i int) error {
	if c.kind == codec.None {
		return corrupt("part %d marked compressed in a chunk without a codec", i)
	}
	got, err := codec.DecompressSlack(decoders[c.kind], out[:0], c.payload[i], len(out))
	if err != nil {
		return corrupt("part %d: %v", i, err)
	}
	if len(got) != len(out) || (len(out) > 0 && &got[0] != &out[0]) {
		return corrupt("part %d decompressed to %d bytes, want %d", i, len(got), len(out))
	}
	return nil
}

// decoders are the codecs by kind; decoding does not depend on the level.
var decoders = [...]codec.Codec{
	codec.None: codec.MustNew(codec.SettingNone),
	codec.LZ4:  codec.MustNew(codec.SettingLZ4),
	codec.Zstd: codec.MustNew(codec.SettingZstd),
}

// checkOffsets checks that an offsets buffer of n+1 values starts at 0,
// never decreases and ends at dataLen, so no value reads outside the data.
func checkOffsets(b []byte, width, n, dataLen int) error {
	if width == 4 {
		return checkOffsetRun(arrow.Int32Traits.CastFromBytes(b)[:n+1], dataLen)
	}
	return checkOffsetRun(arrow.Int64Traits.CastFromBytes(b)[:n+1], dataLen)
}

func checkOffsetRun[T int32 | int64](offs []T, dataLen int) error {
	if offs[0] != 0 {
		return corrupt("offsets start at %d", offs[0])
	}
	// Count the decreases without branching on each value; find one only
	// to report it.
	bad := 0
	for i := 1; i < len(offs); i++ {
		if offs[i] < offs[i-1] {
			bad++
		}
	}
	if bad > 0 {
		for i := 1; i < len(offs); i++ {
			if offs[i] < offs[i-1] {
				return corrupt("offset %d (%d) below offset %d (%d)", i, offs[i], i-1, offs[i-1])
			}
		}
	}
	if last := int64(offs[len(offs)-1]); last != int64(dataLen) {
		return corrupt("offsets end at %d, data holds %d bytes", last, dataLen)
	}
	return nil
}

// ipc decodes a formIPC chunk through the batch layer, which checks every
// length and offset of the messages.
func (d *chunkDecoder) ipc(dt arrow.DataType, c chunk, limit int64) (arrow.Array, error) {
	limit = min(limit, 1<<40)
	dec, err := batch.NewDecoder(columnSchema(dt), batch.ReadOptions{
		Alloc: d.mem,
		// Put measured what the column decodes to; the slack covers the
		// batch layer counting dictionaries and padding its own way.
		Limits: batch.Limits{MaxMetadata: 1 << 26, MaxBody: 1 << 40, MaxUncompressed: 2*limit + 1<<20, MaxRatio: 1 << 30, RatioFloor: 2*limit + 1<<20},
	})
	if err != nil {
		return nil, err
	}
	defer dec.Release()
	var rec arrow.RecordBatch
	for i := 0; i < len(c.payload); i += 2 {
		if rec != nil {
			rec.Release()
			return nil, corrupt("IPC chunk: a message after the record batch")
		}
		rec, err = dec.Decode(batch.Message{Meta: c.payload[i], Body: c.payload[i+1]})
		if err != nil {
			// The cache wrote these messages: whatever the batch layer
			// refuses (an unknown version included) is damage.
			return nil, corrupt("IPC message %d: %v", i/2, err)
		}
	}
	if rec == nil {
		return nil, corrupt("IPC chunk without a record batch")
	}
	defer rec.Release()
	if rec.NumRows() != int64(c.rows) || rec.NumCols() != 1 || int64(rec.Column(0).NullN()) != int64(c.nulls) {
		return nil, corrupt("IPC chunk holds %d rows, %d nulls; header says %d, %d", rec.NumRows(), rec.Column(0).NullN(), c.rows, c.nulls)
	}
	col := rec.Column(0)
	col.Retain()
	return col, nil
}

// reader reads the uvarints of a chunk header; the first failure sticks.
type reader struct {
	b   []byte
	err error
}

func (r *reader) byte() uint8 {
	if r.err != nil {
		return 0
	}
	if len(r.b) == 0 {
		r.err = corrupt("chunk header cut off")
		return 0
	}
	v := r.b[0]
	r.b = r.b[1:]
	return v
}

// int reads a uvarint no larger than limit.
func (r *reader) int(limit int) int {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = corrupt("chunk header cut off or malformed")
		return 0
	}
	if v > uint64(limit) {
		r.err = corrupt("header field %d over its limit %d", v, limit)
		return 0
	}
	r.b = r.b[n:]
	return int(v)
}
