package bench

import (
	"bytes"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/batch"
	"github.com/quiverdb/quiver/codec"
)

// ipcRunner writes a set of records to an in-memory IPC stream and reads
// it back. encode keeps its output for the next decode.
type ipcRunner interface {
	// encode writes every record and returns the stream's size.
	encode() (int64, error)
	// decode reads every record back; check, when set, sees each one
	// before it is released.
	decode(check func(i int, rec arrow.RecordBatch) error) error
}

// quiverIPC measures quiver's batch codec: Encoder.Encode per record,
// the messages appended to one stream buffer in the IPC encapsulation as a
// StreamWriter would (so its size compares with arrow-go's stream), and a
// StreamReader over that buffer, as arrow-go's side reads with
// ipc.NewReader. With n goroutines the encoder compresses the buffers of
// a batch on n goroutines (arrow-go: WithCompressConcurrency(n)) and the
// reader keeps 2n batches decoding ahead (prefetchFor; arrow-go's reader
// has no parallel read).
type quiverIPC struct {
	recs  []arrow.RecordBatch
	wopts batch.WriteOptions
	ropts batch.ReadOptions
	buf   *[]byte // shared by every quiverIPC of a run: cells run one at a time
}

func newQuiverIPC(recs []arrow.RecordBatch, s codec.Setting, goroutines int, mem memory.Allocator, buf *[]byte) *quiverIPC {
	return &quiverIPC{
		recs:  recs,
		wopts: batch.WriteOptions{Codec: s, Concurrency: goroutines, Alloc: mem},
		ropts: batch.ReadOptions{Prefetch: prefetchFor(goroutines), Alloc: mem},
		buf:   buf,
	}
}

var endOfStream = []byte{0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0}

func (q *quiverIPC) encode() (int64, error) {
	enc, err := batch.NewEncoder(q.recs[0].Schema(), q.wopts)
	if err != nil {
		return 0, err
	}
	defer enc.Release()
	out := enc.SchemaMessage().AppendEncapsulated((*q.buf)[:0])
	for i, r := range q.recs {
		msgs, err := enc.Encode(r)
		if err != nil {
			return 0, fmt.Errorf("quiver encode record %d: %w", i, err)
		}
		for _, m := range msgs {
			out = m.AppendEncapsulated(out)
		}
	}
	out = append(out, endOfStream...)
	*q.buf = out
	return int64(len(out)), nil
}

func (q *quiverIPC) decode(check func(int, arrow.RecordBatch) error) error {
	r, err := batch.NewStreamReader(bytes.NewReader(*q.buf), q.ropts)
	if err != nil {
		return err
	}
	defer r.Release()
	for n := 0; ; n++ {
		rec, err := r.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("quiver decode: %w", err)
		}
		if check != nil {
			err = check(n, rec)
		}
		rec.Release()
		if err != nil {
			return err
		}
	}
}

// prefetchFor is the reader's queue for n goroutines: none on one (decoding
// ahead on a single core only adds goroutine switches and garbage: measured
// 1.6 against 2.4 GB/s for lz4), 2n above (a queue of n left a core idle
// between batches: 3.0 against 3.5 GB/s). GOMAXPROCS = n bounds the cores
// either way.
func prefetchFor(n int) int {
	if n <= 1 {
		return 0
	}
	return 2 * n
}
