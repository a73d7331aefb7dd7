package batch

import (
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/batch/internal/meta"
)

// StreamWriter writes records as an Arrow IPC stream: the schema message,
// then dictionary and record batch messages, then the end-of-stream
// marker on Close.
type StreamWriter struct {
	writer
	w       io.Writer
	scratch []byte
}

// NewStreamWriter returns a writer of records of schema to w.
func NewStreamWriter(w io.Writer, schema *arrow.Schema, opts WriteOptions) (*StreamWriter, error) {
	enc, err := NewEncoder(schema, opts)
	if err != nil {
		return nil, err
	}
	s := &StreamWriter{w: w}
	s.writer = writer{enc: enc, what: "stream", prelude: func() error { return s.write(enc.SchemaMessage()) }}
	return s, nil
}

func (s *StreamWriter) write(m Message) error {
	var err error
	_, _, s.scratch, err = writeMessage(s.w, m, s.scratch)
	return err
}

// Write encodes and writes one record.
func (s *StreamWriter) Write(rec arrow.RecordBatch) error {
	return s.encode(rec, func(msgs []Message) error {
		for _, m := range msgs {
			if err := s.write(m); err != nil {
				return err
			}
		}
		return nil
	})
}

// Close writes the schema if no record was written, then the
// end-of-stream marker. It does not close the underlying writer.
func (s *StreamWriter) Close() error {
	return s.close(func() error {
		_, err := s.w.Write(endOfStream)
		return err
	})
}

// StreamReader reads an Arrow IPC stream written by any Arrow
// implementation, treating every byte as untrusted.
type StreamReader struct {
	r       io.Reader
	dec     *Decoder
	opts    ReadOptions
	lim     Limits
	metaBuf []byte
	bodyBuf []byte
	index   int // record batches read so far
	done    bool

	// Prefetch state (prefetch.go).
	queue   []*pending // records being decoded ahead, in stream order
	readErr error      // the error that stopped reading ahead

	err error // sticky: after a bad batch nothing more is read
}

// NewStreamReader reads the schema message of the stream r.
func NewStreamReader(r io.Reader, opts ReadOptions) (*StreamReader, error) {
	s := &StreamReader{r: r, opts: opts, lim: opts.Limits.withDefaults()}
	msg, err := s.readMeta()
	if err == io.EOF {
		return nil, corruptf("stream ends before its schema message")
	}
	if err != nil {
		return nil, err
	}
	if msg.Header != meta.HeaderSchema {
		return nil, corruptf("stream starts with message type %d, not a schema", msg.Header)
	}
	if msg.BodyLength != 0 {
		if err := s.skip(msg.BodyLength); err != nil {
			return nil, err
		}
	}
	if s.dec, err = newDecoderFromMeta(msg.Schema, opts); err != nil {
		return nil, err
	}
	return s, nil
}

// readMeta reads and decodes the next message's metadata.
func (s *StreamReader) readMeta() (*meta.Message, error) {
	size, err := readMetaPrefix(s.r, s.lim)
	if err != nil {
		return nil, err
	}
	// Grown as bytes arrive, like bodies: a prefix claiming 64 MiB of
	// metadata in a 20-byte stream costs 1 MiB, not 64.
	s.metaBuf, err = readBody(s.r, size, "metadata", s.metaBuf[:0], func(b []byte, n int) []byte { return resizeKeeping(b, n) })
	if err != nil {
		return nil, err
	}
	msg, err := meta.DecodeMessage(s.metaBuf, s.lim.meta())
	if err != nil {
		return nil, classify(err)
	}
	if err := checkBodyLen(msg.BodyLength, s.lim); err != nil {
		return nil, err
	}
	return msg, nil
}

// resizeKeeping returns b resized to n bytes, keeping its contents.
func resizeKeeping(b []byte, n int) []byte {
	if cap(b) < n {
		return append(b[:cap(b)], make([]byte, n-cap(b))...)[:n]
	}
	return b[:n]
}

// readBody reads an n-byte body (or metadata: what names it in errors),
// growing the destination only as bytes arrive (from 1 MiB, doubling), so
// a message that claims a huge length but ends early costs no more memory
// than the bytes it really sent.
func readBody(r io.Reader, n int64, what string, dst []byte, resize func(b []byte, size int) []byte) ([]byte, error) {
	have := 0
	for int64(have) < n {
		size := int(min(n, max(int64(2*have), 1<<20)))
		dst = resize(dst, size)
		if _, err := io.ReadFull(r, dst[have:size]); err != nil {
			return nil, corruptf("message %s cut off (%d bytes expected): %v", what, n, err)
		}
		have = size
	}
	return resize(dst, int(n)), nil
}

func (s *StreamReader) skip(n int64) error {
	if _, err := io.CopyN(io.Discard, s.r, n); err != nil {
		return corruptf("message body cut off (%d bytes expected): %v", n, err)
	}
	return nil
}

// Schema returns the schema of the records Next returns (projected).
func (s *StreamReader) Schema() *arrow.Schema { return s.dec.Schema() }

// Next returns the next record, which the caller must Release, or io.EOF
// at the end of the stream. With ReadOptions.Prefetch above 1 the records
// are decoded ahead on their own goroutines and returned in stream order.
func (s *StreamReader) Next() (arrow.RecordBatch, error) {
	if s.err != nil {
		return nil, s.err
	}
	if s.opts.Prefetch > 1 {
		return s.nextPrefetched()
	}
	rec, err := s.nextSerial()
	if err != nil && err != io.EOF {
		s.err = err
	}
	return rec, err
}

func (s *StreamReader) nextSerial() (arrow.RecordBatch, error) {
	for !s.done {
		msg, err := s.readMeta()
		if err == io.EOF {
			s.done = true
			break
		}
		if err != nil {
			return nil, s.wrap(err)
		}
		b, release, err := s.readMessageBody(msg, true)
		if err != nil {
			return nil, s.wrap(err)
		}
		rec, err := s.dec.decodeMessage(msg, b)
		release()
		if err != nil {
			return nil, s.wrap(err)
		}
		if rec != nil {
			s.index++
			return rec, nil
		}
	}
	return nil, io.EOF
}

func (s *StreamReader) wrap(err error) error { return wrapIndex(s.index, err) }

func wrapIndex(i int, err error) error { return fmt.Errorf("record batch %d: %w", i, err) }

// readMessageBody reads the body of msg. Uncompressed bodies are read into
// Arrow memory so buffers can be zero-copy slices of it; compressed ones
// into a plain byte slice, the reader's reused scratch when reuse is set
// (the batch is decoded before the next read). A count-only projection
// skips record bodies without keeping them. release frees what the body
// holds once decoding is done.
func (s *StreamReader) readMessageBody(msg *meta.Message, reuse bool) (body, func(), error) {
	n := msg.BodyLength
	if msg.Header == meta.HeaderRecordBatch && s.dec.cols != nil && len(s.dec.cols) == 0 {
		return body{}, func() {}, s.skip(n)
	}
	compressed := (msg.Record != nil && msg.Record.Compression != meta.CompressionNone) ||
		(msg.Dictionary != nil && msg.Dictionary.Data.Compression != meta.CompressionNone)
	if compressed {
		var scratch []byte
		if reuse {
			scratch = s.bodyBuf[:0]
		}
		b, err := readBody(s.r, n, "body", scratch, func(b []byte, size int) []byte { return resizeKeeping(b, size) })
		if err != nil {
			return body{}, nil, err
		}
		if reuse {
			s.bodyBuf = b
		}
		return body{bytes: b}, func() {}, nil
	}
	owner := memory.NewResizableBuffer(s.opts.alloc())
	b, err := readBody(s.r, n, "body", owner.Bytes(), func(_ []byte, size int) []byte {
		owner.Resize(size)
		return owner.Bytes()
	})
	if err != nil {
		owner.Release()
		return body{}, nil, err
	}
	return body{bytes: b, owner: owner}, owner.Release, nil
}

// Release waits for records being decoded ahead, drops them and the
// dictionaries the reader holds.
func (s *StreamReader) Release() {
	for _, p := range s.queue {
		<-p.done
		if p.rec != nil {
			p.rec.Release()
		}
	}
	s.queue = nil
	s.dec.Release()
}
