package bench

import (
	"fmt"

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

// quiverIPC measures quiver's batch codec: Encoder.Encode per record and
// Decoder.Decode per message. The encoded messages are appended to one
// stream buffer in the IPC encapsulation, as a StreamWriter would, so its
// size compares with arrow-go's stream; decode gets each message as the
// two slices of that buffer a reader would hand it.
type quiverIPC struct {
	recs  []arrow.RecordBatch
	wopts batch.WriteOptions
	ropts batch.ReadOptions
	buf   *[]byte // shared by every quiverIPC of a run: cells run one at a time
	spans []msgSpan
}

// msgSpan locates a message's metadata and body in the stream buffer.
type msgSpan struct{ meta, metaEnd, body, bodyEnd int }

func newQuiverIPC(recs []arrow.RecordBatch, s codec.Setting, goroutines int, mem memory.Allocator, buf *[]byte) *quiverIPC {
	return &quiverIPC{
		recs:  recs,
		wopts: batch.WriteOptions{Codec: s, Concurrency: goroutines, Alloc: mem},
		ropts: batch.ReadOptions{Concurrency: goroutines, Alloc: mem},
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
	q.spans = q.spans[:0]
	for i, r := range q.recs {
		msgs, err := enc.Encode(r)
		if err != nil {
			return 0, fmt.Errorf("quiver encode record %d: %w", i, err)
		}
		for _, m := range msgs {
			at := len(out)
			out = m.AppendEncapsulated(out)
			q.spans = append(q.spans, msgSpan{at + 8, at + 8 + len(m.Meta), len(out) - len(m.Body), len(out)})
		}
	}
	out = append(out, endOfStream...)
	*q.buf = out
	return int64(len(out)), nil
}

func (q *quiverIPC) decode(check func(int, arrow.RecordBatch) error) error {
	dec, err := batch.NewDecoder(q.recs[0].Schema(), q.ropts)
	if err != nil {
		return err
	}
	defer dec.Release()
	b := *q.buf
	n := 0 // records decoded
	for i, s := range q.spans {
		rec, err := dec.Decode(batch.Message{Meta: b[s.meta:s.metaEnd], Body: b[s.body:s.bodyEnd]})
		if err != nil {
			return fmt.Errorf("quiver decode message %d: %w", i, err)
		}
		if rec == nil {
			continue // a dictionary batch
		}
		if check != nil {
			err = check(n, rec)
		}
		n++
		rec.Release()
		if err != nil {
			return err
		}
	}
	return nil
}
