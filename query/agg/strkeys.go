package agg

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/zeebo/xxh3"
)

// stringKeys stores string keys as Arrow does: end offsets into one byte
// arena, plus a validity bitmap. Offsets are 64-bit so the arena may pass
// 2 GiB; export rebases them to 32 bits per batch.
type stringKeys struct {
	acct *account
	dt   arrow.DataType

	offs  []int64 // offs[g], offs[g+1] bound group g's bytes; len groups+1
	heads []head  // per group: length and first 8 bytes
	data  []byte
	valid []byte
	nulls int

	in      strInput
	inHeads []head // per row of the bound input: head of its value
}

// strInput is a bound utf8 array: offsets index data directly.
type strInput struct {
	offs  []int32
	data  []byte
	valid []byte // nil when no NULLs
	off   int
}

var zeroOffset = []int32{0}

// offsetsArray is a utf8 or binary array: the same layout.
type offsetsArray interface {
	arrow.Array
	ValueOffsets() []int32
}

func (s *strInput) bind(a offsetsArray) {
	s.valid, s.off = nil, 0
	if a.Len() == 0 { // an empty array may come without an offsets buffer
		s.offs, s.data = zeroOffset, nil
		return
	}
	s.offs = a.ValueOffsets()
	s.data = nil
	if b := a.Data().Buffers()[2]; b != nil {
		s.data = b.Bytes()
	}
	if a.NullN() > 0 {
		s.valid, s.off = a.NullBitmapBytes(), a.Data().Offset()
	}
}

func (s *strInput) value(r uint32) []byte { return s.data[s.offs[r]:s.offs[r+1]] }

func (s *strInput) isValid(r uint32) bool {
	return s.valid == nil || bitutil.BitIsSet(s.valid, s.off+int(r))
}

func (c *stringKeys) bind(arr arrow.Array) error {
	c.in.bind(arr.(offsetsArray))
	heads, err := scratch(c.acct, c.inHeads, arr.Len())
	c.inHeads = heads
	return err
}

func (c *stringKeys) value(g uint32) []byte { return c.data[c.offs[g]:c.offs[g+1]] }

// hash hashes a string of at most 8 bytes as its word, longer ones with
// XXH3 seeded with the running hash. It also fills the rows' heads, which equal and appendRows read.
func (c *stringKeys) hash(h []uint64, rows []uint32) {
	in, heads := &c.in, c.inHeads
	data := in.data
	for _, r := range rows {
		v := uint64(nullHash)
		if in.isValid(r) {
			lo, hi := int(in.offs[r]), int(in.offs[r+1])
			var w uint64
			if lo+8 <= len(data) { // the common case, inline
				w = binary.LittleEndian.Uint64(data[lo:]) & (^uint64(0) >> (64 - 8*min(hi-lo, 8)))
			} else {
				w = word(data, lo, hi)
			}
			heads[r] = head{w, int64(hi - lo)}
			v = w
			if hi-lo > 8 {
				v = xxh3.HashSeed(data[lo:hi], h[r])
			}
		}
		h[r] = mix(h[r], v)
	}
}

// head is a string's length and first 8 bytes (little-endian,
// zero-padded): two strings of at most 8 bytes are equal when their heads
// are, and two strings with different heads differ.
type head struct {
	word uint64
	n    int64
}

// word is the up to 8 bytes of data[lo:hi] in one uint64.
func word(data []byte, lo, hi int) uint64 {
	n := hi - lo
	if lo+8 <= len(data) {
		w := binary.LittleEndian.Uint64(data[lo:])
		if n < 8 {
			w &= 1<<(8*n) - 1
		}
		return w
	}
	var w uint64
	for i := min(n, 8) - 1; i >= 0; i-- {
		w = w<<8 | uint64(data[lo+i])
	}
	return w
}

func (c *stringKeys) equal(sel, gids, miss []uint32) ([]uint32, []uint32) {
	k := 0
	in := &c.in
	if in.valid != nil || c.nulls > 0 {
		return c.equalBytes(sel, gids, miss)
	}
	heads, inHeads := c.heads, c.inHeads
	for _, r := range sel {
		g := gids[r]
		eq := inHeads[r] == heads[g]
		if eq && inHeads[r].n > 8 {
			eq = string(in.value(r)) == string(c.value(g))
		}
		if eq {
			sel[k] = r
			k++
		} else {
			miss = append(miss, r)
		}
	}
	return sel[:k], miss
}

// equalBytes is equal for input or keys with NULLs.
func (c *stringKeys) equalBytes(sel, gids, miss []uint32) ([]uint32, []uint32) {
	k := 0
	in := &c.in
	for _, r := range sel {
		g := gids[r]
		ok := in.isValid(r)
		if ok == bitutil.BitIsSet(c.valid, int(g)) && (!ok || string(in.value(r)) == string(c.value(g))) {
			sel[k] = r
			k++
		} else {
			miss = append(miss, r)
		}
	}
	return sel[:k], miss
}

func (c *stringKeys) appendRows(rows []uint32) error {
	if len(c.offs) == 0 {
		offs, err := extend(c.acct, c.offs, 1)
		if err != nil {
			return err
		}
		c.offs = offs
	}
	n := len(c.offs) - 1
	bytes := 0
	for _, r := range rows {
		bytes += int(c.in.offs[r+1] - c.in.offs[r])
	}
	valid, err := extend(c.acct, c.valid, int(bitutil.BytesForBits(int64(n+len(rows))))-len(c.valid))
	if err != nil {
		return err
	}
	c.valid = valid
	data, err := reserve(c.acct, c.data, bytes)
	if err != nil {
		return err
	}
	c.data = data
	heads, err := extend(c.acct, c.heads, n+len(rows)-len(c.heads))
	if err != nil {
		return err
	}
	c.heads = heads
	offs, err := extend(c.acct, c.offs, len(rows)) // last: truncate trusts len(offs)
	if err != nil {
		return err
	}
	c.offs = offs
	for i, r := range rows {
		ok := c.in.isValid(r)
		bitutil.SetBitTo(c.valid, n+i, ok)
		if ok {
			lo, hi := int(c.in.offs[r]), int(c.in.offs[r+1])
			c.heads[n+i] = c.inHeads[r]
			c.data = append(c.data, c.in.data[lo:hi]...)
		} else {
			c.nulls++
		}
		c.offs[n+i+1] = int64(len(c.data))
	}
	return nil
}

// truncate also trims what a failed appendRows extended (valid, then
// heads, then offs).
func (c *stringKeys) truncate(n int) {
	if groups := len(c.offs) - 1; n < groups {
		c.nulls -= (groups - n) - bitutil.CountSetBits(c.valid, n, groups-n)
		c.offs = c.offs[:n+1]
		c.data = c.data[:c.offs[n]]
	}
	c.heads = c.heads[:min(len(c.heads), n)]
	c.valid = c.valid[:min(len(c.valid), int(bitutil.BytesForBits(int64(n))))]
}

func (c *stringKeys) permuteTail(from int, perm []uint32) {
	base := c.offs[from]
	data := slices.Clone(c.data[base:])
	offs := slices.Clone(c.offs[from:])
	heads := slices.Clone(c.heads[from:])
	valid := make([]bool, len(heads))
	for i := range valid {
		valid[i] = bitutil.BitIsSet(c.valid, from+i)
	}
	at := base
	for i, p := range perm {
		at += int64(copy(c.data[at:], data[offs[p]-base:offs[p+1]-base]))
		c.offs[from+i+1] = at
		c.heads[from+i] = heads[p]
		bitutil.SetBitTo(c.valid, from+i, valid[p])
	}
}

func (c *stringKeys) export(mem memory.Allocator, from, to int) arrow.Array {
	out := newStringOut(mem, to-from, int(c.offs[to]-c.offs[from]))
	out.dt = c.dt // utf8 or binary
	for g := from; g < to; g++ {
		out.add(c.data[c.offs[g]:c.offs[g+1]])
	}
	if c.nulls > 0 {
		out.copyValidity(c.valid, from)
	}
	return out.finish()
}

func (c *stringKeys) gather(mem memory.Allocator, idx []uint32) arrow.Array {
	bytes := 0
	for _, g := range idx {
		bytes += int(c.offs[g+1] - c.offs[g])
	}
	out := newStringOut(mem, len(idx), bytes)
	out.dt = c.dt
	for i, g := range idx {
		out.add(c.value(g))
		if c.nulls > 0 && !bitutil.BitIsSet(c.valid, int(g)) {
			out.setNull(i)
		}
	}
	return out.finish()
}

// varBytes is the string bytes groups [from, to) export.
func (c *stringKeys) varBytes(from, to int) int64 {
	if from == to {
		return 0
	}
	return c.offs[to] - c.offs[from]
}

func (c *stringKeys) release() {
	c.offs = drop(c.acct, c.offs)
	c.heads = drop(c.acct, c.heads)
	c.data = drop(c.acct, c.data)
	c.valid = drop(c.acct, c.valid)
	c.releaseInput()
	c.nulls = 0
}

func (c *stringKeys) view(a *account) keyColumn {
	return &stringKeys{acct: a, dt: c.dt, offs: c.offs, heads: c.heads, data: c.data, valid: c.valid, nulls: c.nulls}
}

func (c *stringKeys) releaseInput() {
	c.inHeads = drop(c.acct, c.inHeads)
	c.in = strInput{}
}

// reserve returns s with room for n more elements, growing it (charged)
// when needed.
func reserve[T any](a *account, s []T, n int) ([]T, error) {
	if len(s)+n <= cap(s) {
		return s, nil
	}
	l := len(s)
	s, err := extend(a, s, n)
	return s[:l], err
}

// stringOut builds a utf8 array in buffers from the caller's allocator.
// Callers check that the bytes fit 32-bit offsets (checkStringBytes).
type stringOut struct {
	fixedOut[int32] // offsets as the values buffer of n+1 elements
	dataBuf         *memory.Buffer
	data            []byte
	i               int
	pos             int
}

func newStringOut(mem memory.Allocator, n, bytes int) *stringOut {
	if bytes > math.MaxInt32 {
		panic(fmt.Sprintf("agg: %d string bytes in one array", bytes)) // Result and Partial split batches before this
	}
	o := &stringOut{fixedOut: *newFixedOut[int32](mem, arrow.PrimitiveTypes.Int32, n+1)}
	o.fixedOut.n = n
	o.fixedOut.dt = arrow.BinaryTypes.String
	o.dataBuf = memory.NewResizableBuffer(mem)
	o.dataBuf.Resize(bytes)
	o.data = o.dataBuf.Bytes()
	o.vals[0] = 0
	return o
}

// add appends the next value.
func (o *stringOut) add(v []byte) {
	o.pos += copy(o.data[o.pos:], v)
	o.i++
	o.vals[o.i] = int32(o.pos)
}

// setNull marks element i NULL; its bytes, if any, stay in the buffer.
func (o *stringOut) setNull(i int) {
	o.allValid()
	bitutil.ClearBit(o.valid, i)
	o.nulls++
}

func (o *stringOut) finish() arrow.Array {
	return finishArray(o.dt, o.n, o.nulls, o.validBuf, o.valBuf, o.dataBuf)
}
