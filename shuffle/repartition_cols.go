package shuffle

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/internal/bufs"
)

// colKind is how a Repartitioner gathers a column: by the width of its
// values, as bits, or as offsets and bytes.
type colKind uint8

const (
	kindOther colKind = iota // not gathered: the schema goes to Split
	kind1
	kind2
	kind4
	kind8
	kind16
	kindBool
	kindVar32 // utf8, binary
	kindVar64 // large utf8, large binary
)

// kindOf returns how a column of type dt is gathered.
func kindOf(dt arrow.DataType) colKind {
	switch dt.ID() {
	case arrow.INT8, arrow.UINT8:
		return kind1
	case arrow.INT16, arrow.UINT16, arrow.FLOAT16:
		return kind2
	case arrow.INT32, arrow.UINT32, arrow.FLOAT32, arrow.DATE32, arrow.TIME32, arrow.DECIMAL32, arrow.INTERVAL_MONTHS:
		return kind4
	case arrow.INT64, arrow.UINT64, arrow.FLOAT64, arrow.DATE64, arrow.TIME64, arrow.TIMESTAMP,
		arrow.DURATION, arrow.DECIMAL64, arrow.INTERVAL_DAY_TIME:
		return kind8
	case arrow.DECIMAL128, arrow.INTERVAL_MONTH_DAY_NANO:
		return kind16
	case arrow.BOOL:
		return kindBool
	case arrow.STRING, arrow.BINARY:
		return kindVar32
	case arrow.LARGE_STRING, arrow.LARGE_BINARY:
		return kindVar64
	}
	return kindOther
}

// width returns the bytes a value takes in the values buffer (offsets
// for strings; booleans round up to one).
func (k colKind) width() int {
	switch k {
	case kind1, kindBool:
		return 1
	case kind2:
		return 2
	case kind4, kindVar32:
		return 4
	case kind8, kindVar64:
		return 8
	case kind16:
		return 16
	}
	return 0
}

// colBuf is one column of a partition's batch being gathered: its
// buffers are allocated at the partition's first row, for BatchRows rows
// (the bytes of strings grow by doubling).
type colBuf struct {
	valid *memory.Buffer // nil while every row is valid
	vals  *memory.Buffer // values, bits or offsets
	data  *memory.Buffer // strings' bytes
	dlen  int64          // bytes used in data
	bytes int64          // allocated, for Buffered
}

func (b *colBuf) release() {
	for _, x := range []*memory.Buffer{b.valid, b.vals, b.data} {
		if x != nil {
			x.Release()
		}
	}
	*b = colBuf{}
}

// finish returns the first n rows gathered as an array of type dt and
// gives up the buffers (the caller resets b).
func (b *colBuf) finish(dt arrow.DataType, k colKind, n int) arrow.Array {
	nulls := 0
	if b.valid != nil {
		b.valid.ResizeNoShrink(int(bitutil.BytesForBits(int64(n))))
		nulls = n - bitutil.CountSetBits(b.valid.Bytes(), 0, n)
	}
	bs := []*memory.Buffer{b.valid, b.vals}
	switch k {
	case kindBool:
		b.vals.ResizeNoShrink(int(bitutil.BytesForBits(int64(n))))
	case kindVar32, kindVar64:
		b.vals.ResizeNoShrink((n + 1) * k.width())
		b.data.ResizeNoShrink(int(b.dlen))
		bs = append(bs, b.data)
	default:
		b.vals.ResizeNoShrink(n * k.width())
	}
	d := array.NewData(dt, n, bs, nil, nulls, 0)
	out := array.MakeFromData(d)
	d.Release()
	for _, x := range bs {
		if x != nil {
			x.Release()
		}
	}
	return out
}

// gather appends the rows of column c of the chunk (ids, the rows from
// start of arr) to their partitions' buffers, each partition's from its
// rows so far.
func (r *Repartitioner) gather(c int, k colKind, arr arrow.Array, ids []uint16, start int) {
	// Buffers for every partition the chunk reaches.
	for p := range r.parts {
		pb := &r.parts[p]
		if r.fill[p] == pb.rows {
			continue
		}
		if pb.cols == nil {
			pb.cols = make([]colBuf, len(r.kinds))
		}
		if cb := &pb.cols[c]; cb.vals == nil {
			r.alloc(cb, k)
		}
	}
	d := arr.Data()
	off := d.Offset() + start
	switch k {
	case kind1:
		gatherFixed(r, c, arrow.GetData[uint8](d.Buffers()[1].Bytes())[off:])
	case kind2:
		gatherFixed(r, c, arrow.GetData[uint16](d.Buffers()[1].Bytes())[off:])
	case kind4:
		gatherFixed(r, c, arrow.GetData[uint32](d.Buffers()[1].Bytes())[off:])
	case kind8:
		gatherFixed(r, c, arrow.GetData[uint64](d.Buffers()[1].Bytes())[off:])
	case kind16:
		gatherFixed(r, c, arrow.GetData[decimal128.Num](d.Buffers()[1].Bytes())[off:])
	case kindBool:
		r.gatherBits(c, d.Buffers()[1].Bytes(), off, false)
	case kindVar32:
		gatherVar[int32](r, c, arr, off)
	case kindVar64:
		gatherVar[int64](r, c, arr, off)
	}
	nulls := arr.NullN() > 0
	if !nulls {
		for p := range r.parts {
			if r.fill[p] != r.parts[p].rows && r.parts[p].cols[c].valid != nil {
				nulls = true // a partition with NULLs before: its bits for these rows
				break
			}
		}
	}
	if !nulls {
		return
	}
	var src []byte
	if arr.NullN() > 0 {
		src = arr.NullBitmapBytes()
		for p := range r.parts {
			pb := &r.parts[p]
			if r.fill[p] != pb.rows && pb.cols[c].valid == nil {
				cb := &pb.cols[c]
				cb.valid = r.bitmap(cb)
				bitutil.SetBitsTo(cb.valid.Bytes(), 0, int64(pb.rows), true)
			}
		}
	}
	r.gatherBits(c, src, off, true)
}

// alloc gives cb the buffers of BatchRows rows of kind k.
func (r *Repartitioner) alloc(cb *colBuf, k colKind) {
	n := r.cfg.BatchRows
	switch k {
	case kindBool:
		cb.vals = r.bitmap(cb)
		return
	case kindVar32, kindVar64:
		cb.vals = bufs.NewDirty(r.mem, (n+1)*k.width())
		clear(cb.vals.Bytes()[:k.width()]) // the first offset
		cb.data = memory.NewResizableBuffer(r.mem)
		cb.bytes += int64(cb.vals.Len())
		r.held += int64(cb.vals.Len())
		return
	}
	cb.vals = bufs.NewDirty(r.mem, n*k.width())
	cb.bytes += int64(cb.vals.Len())
	r.held += int64(cb.vals.Len())
}

// bitmap returns a cleared bitmap of BatchRows bits, counted in cb.
func (r *Repartitioner) bitmap(cb *colBuf) *memory.Buffer {
	b := memory.NewResizableBuffer(r.mem)
	b.Resize(int(bitutil.BytesForBits(int64(r.cfg.BatchRows))))
	cb.bytes += int64(b.Len())
	r.held += int64(b.Len())
	return b
}

// order groups the chunk's rows by partition (a counting sort, from the
// counts chunk left in r.fill): partition p's rows, relative to the
// chunk, are r.sel[r.at[p]:r.at[p+1]], in order. Each column's loop then
// writes one partition's buffer after the other, sequentially, rather
// than 64 at once.
func (r *Repartitioner) order(ids []uint16) {
	fanout := r.cfg.Fanout
	r.at = resized(r.at, fanout+1)
	r.at[0] = 0
	for p := range r.parts {
		r.at[p+1] = r.at[p] + r.fill[p] - r.parts[p].rows
	}
	r.sel = resized(r.sel, int(r.at[fanout]))
	r.pos = append(r.pos[:0], r.at[:fanout]...)
	for i, p := range ids {
		if int(p) < fanout {
			r.sel[r.pos[p]] = int32(i)
			r.pos[p]++
		}
	}
}

// touched calls fn with each partition the chunk reaches, its rows
// before the chunk and the chunk's rows of it.
func (r *Repartitioner) touched(fn func(p int, before int32, rows []int32)) {
	for p := range r.parts {
		if a, z := r.at[p], r.at[p+1]; z > a {
			fn(p, r.parts[p].rows, r.sel[a:z])
		}
	}
}

// gatherFixed is the loop of a column of fixed-width values T: one load
// and one store per row.
func gatherFixed[T uint8 | uint16 | uint32 | uint64 | decimal128.Num](r *Repartitioner, c int, src []T) {
	r.touched(func(p int, before int32, rows []int32) {
		dst := arrow.GetData[T](r.parts[p].cols[c].vals.Bytes())[before:]
		dst = dst[:len(rows)]
		for k, i := range rows {
			dst[k] = src[i]
		}
	})
}

// gatherBits sets the bits of the chunk's rows (bit off+i of src; nil:
// all set) in each partition's values (valid false) or validity bitmap
// (valid true; partitions without one are skipped: all their rows are
// valid).
func (r *Repartitioner) gatherBits(c int, src []byte, off int, valid bool) {
	r.touched(func(p int, before int32, rows []int32) {
		b := r.parts[p].cols[c].vals
		if valid {
			b = r.parts[p].cols[c].valid
		}
		if b == nil {
			return
		}
		dst := b.Bytes()
		for k, i := range rows {
			if src == nil || bitutil.BitIsSet(src, off+int(i)) {
				bitutil.SetBit(dst, int(before)+k)
			}
		}
	})
}

// varOffsets reads the lengths of a string column's rows.
type varOffsets struct {
	o32 []int32
	o64 []int64
}

func offsetsOf(arr arrow.Array, k colKind) varOffsets {
	d := arr.Data()
	if k == kindVar32 {
		return varOffsets{o32: arrow.GetData[int32](d.Buffers()[1].Bytes())[d.Offset():]}
	}
	return varOffsets{o64: arrow.GetData[int64](d.Buffers()[1].Bytes())[d.Offset():]}
}

func (v varOffsets) len(i int) int64 {
	if v.o32 != nil {
		return int64(v.o32[i+1] - v.o32[i])
	}
	return v.o64[i+1] - v.o64[i]
}

// gatherVar appends the chunk's strings (rows from off of arr) to their
// partitions: first the bytes each partition needs, to grow its buffer
// once, then one copy per row.
func gatherVar[O int32 | int64](r *Repartitioner, c int, arr arrow.Array, off int) {
	d := arr.Data()
	offs := arrow.GetData[O](d.Buffers()[1].Bytes())[off:]
	var src []byte
	if b := d.Buffers()[2]; b != nil {
		src = b.Bytes()
	}
	r.touched(func(p int, before int32, rows []int32) {
		b := &r.parts[p].cols[c]
		var need int64
		for _, i := range rows {
			need += int64(offs[i+1] - offs[i])
		}
		if want := b.dlen + need; want > int64(b.data.Cap()) {
			was := int64(b.data.Cap())
			b.data.Reserve(int(max(want, 2*was, 256)))
			b.bytes += int64(b.data.Cap()) - was
			r.held += int64(b.data.Cap()) - was
		}
		outOffs := arrow.GetData[O](b.vals.Bytes())[before+1:]
		outOffs = outOffs[:len(rows)]
		data := b.data.Buf()
		at := O(b.dlen)
		for k, i := range rows {
			a, z := offs[i], offs[i+1]
			at += O(copy(data[at:], src[a:z]))
			outOffs[k] = at
		}
		b.dlen = int64(at)
	})
}
