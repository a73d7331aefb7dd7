package server

import (
	"context"
	"fmt"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/batch"
	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/internal/arrowsize"
)

// flightDataOverhead bounds what a FlightData adds around a message's
// header and body: protobuf tags and lengths (the descriptor and app
// metadata fields are empty in result streams).
const flightDataOverhead = 64

// sendStats say what one result stream sent.
type sendStats struct {
	Batches  int64 // record batch messages
	Rows     int64
	RawBytes int64 // Arrow buffer bytes of the batches sent
	Sent     int64 // FlightData header and body bytes
}

// resultWriter streams a record reader as FlightData: the schema message,
// then every batch as standard Arrow IPC with body compression, cut so
// that no batch has more than maxRows rows and no message more than
// maxBytes bytes. The next batch is compressed while the current one is
// sent: two encoders take turns, and an encoder goes back to the producer
// only once the messages it made have been sent (gRPC's Send serializes
// them before it returns).
type resultWriter struct {
	send     func(*flight.FlightData) error
	setting  codec.Setting
	maxRows  int
	maxBytes int
	mem      memory.Allocator
}

// encoders encode one piece at a time: enc with the session's codec and,
// when that compresses and the schema has no dictionaries, plain with
// none, for pieces compression would make bigger (see encode).
type encoders struct {
	enc, plain *batch.Encoder
}

func (e *encoders) release() {
	if e.enc != nil {
		e.enc.Release()
	}
	if e.plain != nil {
		e.plain.Release()
	}
}

// encodedPiece is one slice of a batch, encoded.
type encodedPiece struct {
	enc  *encoders
	msgs []batch.Message
	rows int64
	raw  int64
}

func (w *resultWriter) write(ctx context.Context, rr array.RecordReader) (sendStats, error) {
	var st sendStats
	// The buffers of one batch compress on 2 goroutines: measured on
	// catalog_sales over loopback, lz4 fetches 6–12% faster, none the same.
	opts := batch.WriteOptions{Codec: w.setting, Alloc: w.mem, Concurrency: 2}
	// An encoder sends a dictionary only when it differs from the last one
	// it sent under that id, or as a delta over it: with two encoders taking
	// turns, each would judge against its own last dictionary, not the one
	// the client holds. Dictionary results therefore use one encoder, and
	// compression does not overlap sending.
	dict := hasDictionary(rr.Schema())
	encs := make([]*encoders, 2)
	if dict {
		encs = encs[:1]
	}
	defer func() {
		for _, e := range encs {
			if e != nil {
				e.release()
			}
		}
	}()
	for i := range encs {
		encs[i] = &encoders{}
		e, err := batch.NewEncoder(rr.Schema(), opts)
		if err != nil {
			return st, fmt.Errorf("result codec %s: %w", w.setting, err)
		}
		encs[i].enc = e
		// A plain twin would judge dictionaries against its own last
		// ones, not the client's: dictionary results stay compressed.
		if w.setting.Kind != codec.None && !dict {
			plainOpts := opts
			plainOpts.Codec = codec.SettingNone
			if encs[i].plain, err = batch.NewEncoder(rr.Schema(), plainOpts); err != nil {
				return st, err
			}
		}
	}
	schema := encs[0].enc.SchemaMessage()
	if err := w.sendMessage(&st, schema); err != nil {
		return st, err
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	free := make(chan *encoders, len(encs))
	for _, e := range encs {
		free <- e
	}
	ready := make(chan encodedPiece, 1)
	var produceErr error
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(ready)
		produceErr = w.produce(ctx, rr, free, ready)
	}()

	var sendErr error
	for p := range ready {
		if sendErr == nil {
			for _, m := range p.msgs {
				if sendErr = w.sendMessage(&st, m); sendErr != nil {
					cancel() // stops the producer; the loop drains what it made
					break
				}
			}
			if sendErr == nil {
				st.Batches++
				st.Rows += p.rows
				st.RawBytes += p.raw
			}
		}
		free <- p.enc
	}
	wg.Wait()
	if sendErr != nil {
		return st, sendErr
	}
	if produceErr != nil {
		return st, produceErr
	}
	return st, nil
}

func (w *resultWriter) sendMessage(st *sendStats, m batch.Message) error {
	header := m.Meta
	if pad := (8 - len(header)%8) % 8; pad != 0 {
		// Zero padding to 8 bytes, as the IPC stream format pads it: still
		// the same flatbuffer, and Arrow JS's Flight framing expects it.
		header = append(make([]byte, 0, len(header)+pad), header...)
		header = append(header, make([]byte, pad)...)
	}
	st.Sent += int64(len(header) + len(m.Body))
	return w.send(&flight.FlightData{DataHeader: header, DataBody: m.Body})
}

// produce reads rr and encodes its batches in pieces that fit.
func (w *resultWriter) produce(ctx context.Context, rr array.RecordReader, free chan *encoders, ready chan<- encodedPiece) error {
	rows := w.maxRows // rows per piece, adapted to the message limit
	for rr.Next() {
		rec := rr.RecordBatch()
		n := int(rec.NumRows())
		for off := 0; off < n; { // empty batches are not sent
			take := min(n-off, rows)
			var enc *encoders
			select {
			case enc = <-free:
			case <-ctx.Done():
				return ctx.Err()
			}
			piece := rec
			if take != n {
				piece = rec.NewSlice(int64(off), int64(off+take))
			}
			raw := arrowsize.Record(piece)
			msgs, err := enc.encode(piece, raw)
			if piece != rec {
				piece.Release()
			}
			if err != nil {
				free <- enc
				return fmt.Errorf("encoding a result batch: %w", err)
			}
			if size := largest(msgs); size > w.maxBytes {
				free <- enc
				if take <= 1 {
					return &messageTooLargeError{size: size, limit: w.maxBytes, rows: take}
				}
				// Shrink in proportion, with a margin for what the
				// codec does differently on fewer rows.
				rows = max(1, int(int64(take)*int64(w.maxBytes)/int64(size)*9/10))
				continue
			} else if size < w.maxBytes/4 && take == rows && rows < w.maxRows {
				rows = min(w.maxRows, rows*2) // batches got smaller: grow back
			}
			select {
			case ready <- encodedPiece{enc: enc, msgs: msgs, rows: int64(take), raw: raw}:
			case <-ctx.Done():
				free <- enc
				return ctx.Err()
			}
			off += take
		}
	}
	return rr.Err()
}

// encode encodes piece, of raw Arrow bytes, compressed unless that makes
// it bigger: a small batch (a count, a few rows) gains little from the
// codec and pays an 8-byte length per buffer and a frame header per
// buffer; then it is sent uncompressed, which Arrow IPC allows batch by
// batch (a RecordBatch without BodyCompression).
//
// Only pieces up to plainTryBytes are tried plain: past that the batch
// layer's per-buffer raw fallback leaves at most a few bytes per buffer
// of framing, and trying again would encode every batch of an
// incompressible result twice.
func (e *encoders) encode(piece arrow.RecordBatch, raw int64) ([]batch.Message, error) {
	msgs, err := e.enc.Encode(piece)
	if err != nil || e.plain == nil || raw > plainTryBytes || bodyBytes(msgs) < raw {
		return msgs, err
	}
	plain, err := e.plain.Encode(piece)
	if err != nil {
		return nil, err
	}
	if bodyBytes(plain) < bodyBytes(msgs) {
		return plain, nil
	}
	return msgs, nil
}

// plainTryBytes is the largest piece encode tries again uncompressed.
const plainTryBytes = 64 << 10

// bodyBytes is the bytes of the messages' bodies.
func bodyBytes(msgs []batch.Message) int64 {
	var n int64
	for _, m := range msgs {
		n += int64(len(m.Body))
	}
	return n
}

// largest is the size of the biggest FlightData the messages make.
func largest(msgs []batch.Message) int {
	size := 0
	for _, m := range msgs {
		size = max(size, len(m.Meta)+len(m.Body)+flightDataOverhead)
	}
	return size
}

// messageTooLargeError is a result that cannot be cut to fit: one row
// (with the dictionaries it needs) alone passes the message limit.
type messageTooLargeError struct {
	size, limit, rows int
}

func (e *messageTooLargeError) Error() string {
	return fmt.Sprintf("one result row needs a %d-byte message, over the server's %d-byte message limit (raise --max-message-bytes and the client's gRPC receive limit)", e.size, e.limit)
}

// hasDictionary reports whether any field of schema, at any depth, is
// dictionary-encoded.
func hasDictionary(schema *arrow.Schema) bool {
	var walk func(arrow.DataType) bool
	walk = func(dt arrow.DataType) bool {
		switch t := dt.(type) {
		case *arrow.DictionaryType:
			return true
		case arrow.NestedType:
			for _, f := range t.Fields() {
				if walk(f.Type) {
					return true
				}
			}
		}
		return false
	}
	for _, f := range schema.Fields() {
		if walk(f.Type) {
			return true
		}
	}
	return false
}
