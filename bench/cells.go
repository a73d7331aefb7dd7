package bench

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/quiverdb/quiver/codec"
)

// The cells RunCodecs measures, and the order it measures them in.

// ipcCell is one side × codec × concurrency of the end-to-end comparison.
type ipcCell struct {
	impl, codec    string
	goroutines     int
	run            ipcRunner
	bytes          int64
	encode, decode []time.Duration
}

// aloneCell is one codec × concurrency of the codec-alone comparison.
type aloneCell struct {
	run                  *aloneRunner
	goroutines           int
	bytes                int64
	compress, decompress []time.Duration
}

// cCell is one C decoder over the frames of one quiver codec.
type cCell struct {
	codec string
	dec   cDecoder
	runs  []time.Duration
}

// cDecoder is a C library decoding a fixed set of frames (cref_on.go).
type cDecoder interface {
	Name() string
	Run() (time.Duration, error)
	Close()
}

// warmCodecs makes quiver's shared codecs build their lazy state now, at
// the process's GOMAXPROCS. The zstd decoder sizes its pool of concurrent
// DecodeAll states from GOMAXPROCS when it is first used; if that first use
// were a one-goroutine cell (GOMAXPROCS=1), every later two-goroutine cell
// would share one decoder state and serialize.
func warmCodecs(settings []codec.Setting) {
	sample := []byte("warm up the shared codec state, warm up the shared codec state")
	// SettingZstd too: batch decodes every zstd body with its codec.
	for _, s := range slices.Concat(settings, []codec.Setting{codec.SettingZstd}) {
		c := codec.MustNew(s)
		if _, err := c.Decompress(nil, c.Compress(nil, sample), len(sample)); err != nil {
			panic("bench: codec " + s.String() + " does not round-trip: " + err.Error())
		}
	}
}

// buildCells lays the cells out in measuring order. The cells a target
// compares run back to back (quiver's lz4 next to arrow-go's lz4), so
// that load from other processes, which comes and goes over seconds,
// hits both alike. Uncompressed cells come first so the warm-up grows the
// shared stream buffers to their largest size before anything is timed.
func buildCells(cfg CodecsConfig, recs []arrow.RecordBatch, bufs [][]byte) ([]*ipcCell, []*aloneCell) {
	qbuf, abuf := new([]byte), new(bytes.Buffer)
	var ipcs []*ipcCell
	var alone []*aloneCell
	out := new([][]byte)
	runners := map[string]*aloneRunner{}
	for _, g := range cfg.Goroutines {
		for _, kind := range []codec.Kind{codec.None, codec.LZ4, codec.Zstd} {
			for _, s := range cfg.Codecs {
				if s.Kind == kind {
					ipcs = append(ipcs, &ipcCell{impl: "quiver", codec: s.String(), goroutines: g, run: newQuiverIPC(recs, s, g, cfg.Alloc, qbuf)})
				}
			}
			c := kind.String()
			ipcs = append(ipcs, &ipcCell{impl: "arrow-go", codec: c, goroutines: g, run: newArrowGoIPC(recs, c, g, cfg.Alloc, abuf)})
		}
		for _, s := range cfg.Codecs {
			name, c := "copy()", codec.MustNew(s)
			if s.Kind == codec.None {
				c = nil
			} else {
				name = s.String()
			}
			r := runners[name]
			if r == nil {
				r = newAloneRunner(name, c, bufs, out)
				runners[name] = r
			}
			alone = append(alone, &aloneCell{run: r, goroutines: g})
		}
	}
	return ipcs, alone
}

// warmUp runs every cell once, untimed, and checks that what comes back
// equals what went in.
func warmUp(ctx context.Context, ipcs []*ipcCell, alone []*aloneCell, recs []arrow.RecordBatch, logf func(string, ...any)) error {
	for _, c := range ipcs {
		if err := ctx.Err(); err != nil {
			return err
		}
		n := 0
		check := func(i int, rec arrow.RecordBatch) error {
			n++
			if i >= len(recs) || !array.RecordEqual(rec, recs[i]) {
				return fmt.Errorf("bench: %s %s goroutines=%d: record %d does not round-trip", c.impl, c.codec, c.goroutines, i)
			}
			return nil
		}
		err := withProcs(c.goroutines, func() error {
			var err error
			if c.bytes, err = c.run.encode(); err != nil {
				return err
			}
			return c.run.decode(check)
		})
		if err == nil && n != len(recs) {
			err = fmt.Errorf("bench: %s %s: read %d records of %d", c.impl, c.codec, n, len(recs))
		}
		if err != nil {
			return err
		}
		logf("bench: warm-up %s %s goroutines=%d: %d bytes, round trip checked", c.impl, c.codec, c.goroutines, c.bytes)
	}
	for _, c := range alone {
		c.bytes = c.run.compress(c.goroutines)
		if err := c.run.decompress(c.goroutines); err != nil {
			return err
		}
		if err := c.run.verify(); err != nil {
			return err
		}
	}
	return nil
}

// buildCCells prepares the C decoders for the lz4 and zstd frames of the
// codec-alone runners, or says why there are none.
func buildCCells(alone []*aloneCell, bufs [][]byte) ([]*cCell, string) {
	var cells []*cCell
	seen := map[*aloneRunner]bool{}
	for _, a := range alone {
		if a.run.c == nil || seen[a.run] {
			continue
		}
		seen[a.run] = true
		decs, err := newCDecoders(a.run.c.Setting().Kind, a.run.frames, bufs)
		if err != nil {
			for _, c := range cells {
				c.dec.Close()
			}
			return nil, err.Error()
		}
		for _, d := range decs {
			cells = append(cells, &cCell{codec: a.run.name, dec: d})
		}
	}
	return cells, ""
}

// measureRun times every cell once. Each C decoder runs right after
// quiver's one-goroutine decode of the same frames.
func measureRun(ctx context.Context, ipcs []*ipcCell, alone []*aloneCell, cs []*cCell) error {
	for _, c := range ipcs {
		if err := ctx.Err(); err != nil {
			return err
		}
		err := withProcs(c.goroutines, func() error {
			enc, err := timed(func() error { _, err := c.run.encode(); return err })
			if err != nil {
				return err
			}
			dec, err := timed(func() error { return c.run.decode(nil) })
			c.encode, c.decode = append(c.encode, enc), append(c.decode, dec)
			return err
		})
		if err != nil {
			return err
		}
	}
	for _, c := range alone {
		if err := ctx.Err(); err != nil {
			return err
		}
		err := withProcs(c.goroutines, func() error {
			comp, _ := timed(func() error { c.run.compress(c.goroutines); return nil })
			dec, err := timed(func() error { return c.run.decompress(c.goroutines) })
			c.compress, c.decompress = append(c.compress, comp), append(c.decompress, dec)
			if err != nil || c.goroutines != 1 {
				return err
			}
			for _, cc := range cs {
				if cc.codec == c.run.name {
					if err := runC(cc); err != nil {
						return err
					}
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// runC times one pass of a C decoder; the pass times itself, inside C.
func runC(c *cCell) error {
	var d time.Duration
	_, err := timed(func() error {
		var err error
		d, err = c.dec.Run()
		return err
	})
	c.runs = append(c.runs, d)
	return err
}
