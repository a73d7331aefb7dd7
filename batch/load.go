package batch

import (
	"encoding/binary"
	"sync"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/batch/internal/meta"
	"github.com/quiverdb/quiver/codec"
)

// body gives the decoder the bytes of a message body. owner, when set, is
// an Arrow buffer holding bytes: uncompressed buffers then become
// zero-copy slices of it. Without an owner every buffer is copied or
// decompressed into memory from the allocator, so the body's bytes can be
// reused once decoding returns.
//
// bytes may hold only part of the body, starting at body offset base (a
// file reader reads just the selected columns' range); total is then the
// whole body's length.
type body struct {
	bytes []byte
	owner *memory.Buffer
	base  int64
	total int64 // 0 means len(bytes)
}

func (b body) length() int64 {
	if b.total != 0 {
		return b.total
	}
	return int64(len(b.bytes))
}

// loadPlan is one buffer to materialize.
type loadPlan struct {
	index  int    // into RecordBatch.Buffers
	src    []byte // the buffer's bytes in the body (after the prefix when compressed)
	size   int64  // decoded size
	raw    bool   // bytes used as they are (no codec, or the -1 prefix)
	srcOff int    // offset of src in the body, for zero-copy slicing
}

// planBuffers checks the ranges and uncompressed-length prefixes of the
// buffers [from, to) of rb against the body and the limits, before
// anything is allocated, and returns what to load. used is the running
// total of decoded bytes claimed so far in this batch.
func planBuffers(rb *meta.RecordBatch, from, to int, b body, allowance int64, used *int64, plans []loadPlan) ([]loadPlan, error) {
	bodyLen := b.length()
	for i := from; i < to; i++ {
		spec := rb.Buffers[i]
		if spec.Offset < 0 || spec.Length < 0 || spec.Offset > bodyLen || spec.Length > bodyLen-spec.Offset {
			return plans, corruptf("buffer %d at [%d, +%d) outside the %d-byte body", i, spec.Offset, spec.Length, bodyLen)
		}
		if spec.Length == 0 {
			continue // empty buffer: no bytes, no prefix (Arrow C++ style)
		}
		rel := spec.Offset - b.base
		if rel < 0 || spec.Length > int64(len(b.bytes))-rel {
			return plans, corruptf("buffer %d at [%d, +%d) outside the body range read", i, spec.Offset, spec.Length)
		}
		src := b.bytes[rel : rel+spec.Length]
		p := loadPlan{index: i, src: src, size: spec.Length, raw: true, srcOff: int(rel)}
		if rb.Compression != meta.CompressionNone {
			if len(src) < 8 {
				return plans, corruptf("compressed buffer %d is %d bytes, shorter than its 8-byte length prefix", i, len(src))
			}
			claim := int64(binary.LittleEndian.Uint64(src))
			p.src, p.srcOff = src[8:], p.srcOff+8
			switch {
			case claim == -1:
				p.size = int64(len(p.src))
			case claim == 0:
				continue // empty buffer written with a zero prefix (Arrow Java style)
			case claim < 0:
				return plans, corruptf("buffer %d has uncompressed length %d", i, claim)
			default:
				p.size, p.raw = claim, false
			}
		}
		if p.size > allowance-*used {
			return plans, limitf("buffer %d claims %d decoded bytes; batch total would pass %d (body %d bytes; see Limits)", i, p.size, allowance, bodyLen)
		}
		*used += p.size
		plans = append(plans, p)
	}
	return plans, nil
}

// loadBuffers materializes plans into out (indexed like rb.Buffers) on up
// to workers goroutines. Buffers that are not zero-copy slices of the
// body are cut from one slab allocated for the whole batch: one
// allocation instead of one per buffer, each slice 64-byte aligned (the
// slab stays alive while any array of the batch does). On error every
// buffer it made is released.
func loadBuffers(plans []loadPlan, out []*memory.Buffer, c codec.Codec, b body, mem memory.Allocator, workers int) error {
	zeroCopy := func(p loadPlan) bool { return p.raw && b.owner != nil && p.srcOff%alignment == 0 }
	slabOff := make([]int, len(plans))
	slabLen := 0
	for i, p := range plans {
		if !zeroCopy(p) {
			slabOff[i] = slabLen
			slabLen += int(p.size+slackFor(p)+63) &^ 63
		}
	}
	var slab *memory.Buffer
	if slabLen > 0 {
		slab = memory.NewResizableBuffer(mem)
		slab.Resize(slabLen)
		defer slab.Release() // the slices below hold their own references
	}
	load := func(i int) error {
		p := plans[i]
		if zeroCopy(p) {
			out[p.index] = memory.SliceBuffer(b.owner, p.srcOff, len(p.src))
			return nil
		}
		out[p.index] = memory.SliceBuffer(slab, slabOff[i], int(p.size))
		dst := slab.Bytes()[slabOff[i] : slabOff[i] : slabOff[i]+int(p.size+slackFor(p))]
		if p.raw {
			copy(dst[:p.size], p.src)
			return nil
		}
		if _, err := codec.DecompressSlack(c, dst, p.src, int(p.size)); err != nil {
			return corruptf("buffer %d: %w", p.index, err)
		}
		return nil
	}
	var err error
	if workers <= 1 || len(plans) <= 1 {
		for i := range plans {
			if err = load(i); err != nil {
				break
			}
		}
	} else {
		err = loadParallel(len(plans), load, workers)
	}
	if err != nil {
		releaseAll(out)
	}
	return err
}

// slackFor is the room a compressed buffer gets in the slab past its
// bytes, which only its own decompression may scribble on, so that zstd
// can take its fast copies (codec.DecodeSlack).
func slackFor(p loadPlan) int64 {
	if p.raw {
		return 0
	}
	return codec.DecodeSlack
}

// loadParallel runs load(0..n-1) on workers goroutines and returns the
// first error. Each worker takes the next unclaimed plan, so one large
// buffer does not hold up the others.
func loadParallel(n int, load func(int) error, workers int) error {
	var (
		mu    sync.Mutex
		next  int
		first error
		wg    sync.WaitGroup
	)
	for range min(workers, n) {
		wg.Go(func() {
			for {
				mu.Lock()
				j := next
				next++
				stop := first != nil
				mu.Unlock()
				if stop || j >= n {
					return
				}
				if err := load(j); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	return first
}

func releaseAll(bufs []*memory.Buffer) {
	for i, b := range bufs {
		if b != nil {
			b.Release()
			bufs[i] = nil
		}
	}
}
