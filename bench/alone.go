package bench

import (
	"bytes"
	"fmt"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/quiverdb/quiver/codec"
)

// "Codec alone": a codec's Compress and Decompress over the very buffers of
// the records, one call per buffer as Arrow IPC makes them, with no IPC
// around them. copy() of the same buffers is the physical limit.

// recordBuffers returns every non-empty buffer of recs, in IPC order.
func recordBuffers(recs []arrow.RecordBatch) [][]byte {
	var bufs [][]byte
	var walk func(d arrow.ArrayData)
	walk = func(d arrow.ArrayData) {
		for _, b := range d.Buffers() {
			if b != nil && b.Len() > 0 {
				bufs = append(bufs, b.Bytes())
			}
		}
		for _, c := range d.Children() {
			walk(c)
		}
	}
	for _, r := range recs {
		for _, c := range r.Columns() {
			walk(c.Data())
		}
	}
	return bufs
}

// aloneRunner compresses bufs into frames and decompresses them into out.
// A nil codec is copy(). frames and out keep their capacity from pass to
// pass, so timed passes allocate nothing, as the physical limit does not.
type aloneRunner struct {
	name   string
	c      codec.Codec // nil: copy()
	bufs   [][]byte
	frames [][]byte
	out    *[][]byte // decoded buffers, shared by the runners of a run
}

func newAloneRunner(name string, c codec.Codec, bufs [][]byte, out *[][]byte) *aloneRunner {
	return &aloneRunner{name: name, c: c, bufs: bufs, frames: make([][]byte, len(bufs)), out: out}
}

// parallel runs f(i) for every buffer on goroutines workers, worker w
// taking buffers w, w+g, w+2g...: buffers are many and small, so a static
// split balances.
func parallel(n, goroutines int, f func(i int)) {
	if goroutines <= 1 {
		for i := range n {
			f(i)
		}
		return
	}
	var wg sync.WaitGroup
	for w := range goroutines {
		wg.Go(func() {
			for i := w; i < n; i += goroutines {
				f(i)
			}
		})
	}
	wg.Wait()
}

// compress fills frames and returns their total size.
func (a *aloneRunner) compress(goroutines int) int64 {
	if a.c == nil {
		parallel(len(a.bufs), goroutines, func(i int) {
			a.frames[i] = append(a.frames[i][:0], a.bufs[i]...)
		})
	} else {
		parallel(len(a.bufs), goroutines, func(i int) {
			a.frames[i] = a.c.Compress(a.frames[i][:0], a.bufs[i])
		})
	}
	var total int64
	for _, f := range a.frames {
		total += int64(len(f))
	}
	return total
}

// decompress decodes frames into out, sized once to the buffers.
func (a *aloneRunner) decompress(goroutines int) error {
	out := *a.out
	if len(out) != len(a.bufs) {
		out = make([][]byte, len(a.bufs))
		for i, b := range a.bufs {
			out[i] = make([]byte, len(b))
		}
		*a.out = out
	}
	if a.c == nil {
		parallel(len(a.bufs), goroutines, func(i int) { copy(out[i], a.frames[i]) })
		return nil
	}
	g := max(goroutines, 1)
	errs := make([]error, g) // one slot per worker: worker w owns i%g == w
	parallel(len(a.bufs), g, func(i int) {
		if _, err := a.c.Decompress(out[i][:0], a.frames[i], len(out[i])); err != nil && errs[i%g] == nil {
			errs[i%g] = fmt.Errorf("%s: buffer %d: %w", a.name, i, err)
		}
	})
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// verify checks out against the source buffers.
func (a *aloneRunner) verify() error {
	for i, b := range a.bufs {
		if !bytes.Equal((*a.out)[i], b) {
			return fmt.Errorf("%s: buffer %d (%d bytes) does not round-trip", a.name, i, len(b))
		}
	}
	return nil
}
