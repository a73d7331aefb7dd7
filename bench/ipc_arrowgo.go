package bench

import (
	"bytes"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// arrowGoIPC measures arrow-go's ipc.Writer and ipc.Reader on an in-memory
// stream, the peer quiver's batch codec replaces.
type arrowGoIPC struct {
	recs  []arrow.RecordBatch
	codec string // "none", "lz4" or "zstd"
	procs int    // WithCompressConcurrency; reading is serial in arrow-go
	mem   memory.Allocator
	buf   *bytes.Buffer // shared by every arrowGoIPC of a run
}

func newArrowGoIPC(recs []arrow.RecordBatch, codec string, goroutines int, mem memory.Allocator, buf *bytes.Buffer) *arrowGoIPC {
	return &arrowGoIPC{recs: recs, codec: codec, procs: goroutines, mem: mem, buf: buf}
}

// arrowGoCodecs are the codecs arrow-go's writer offers. Its zstd is
// klauspost's SpeedDefault (about level 3) and cannot be changed.
var arrowGoCodecs = []string{"none", "lz4", "zstd"}

func (a *arrowGoIPC) options() []ipc.Option {
	opts := []ipc.Option{ipc.WithSchema(a.recs[0].Schema()), ipc.WithAllocator(a.mem)}
	switch a.codec {
	case "lz4":
		opts = append(opts, ipc.WithLZ4())
	case "zstd":
		opts = append(opts, ipc.WithZstd())
	case "none":
	default:
		panic("bench: arrow-go has no codec " + a.codec)
	}
	if a.procs > 1 {
		opts = append(opts, ipc.WithCompressConcurrency(a.procs))
	}
	return opts
}

func (a *arrowGoIPC) encode() (int64, error) {
	a.buf.Reset()
	w := ipc.NewWriter(a.buf, a.options()...)
	for i, r := range a.recs {
		if err := w.Write(r); err != nil {
			w.Close()
			return 0, fmt.Errorf("arrow-go write record %d: %w", i, err)
		}
	}
	if err := w.Close(); err != nil {
		return 0, err
	}
	return int64(a.buf.Len()), nil
}

func (a *arrowGoIPC) decode(check func(int, arrow.RecordBatch) error) error {
	r, err := ipc.NewReader(bytes.NewReader(a.buf.Bytes()), ipc.WithAllocator(a.mem))
	if err != nil {
		return err
	}
	defer r.Release()
	for i := 0; r.Next(); i++ {
		if check != nil {
			if err := check(i, r.RecordBatch()); err != nil {
				return err
			}
		}
	}
	return r.Err()
}
