package batch

import (
	"encoding/binary"
	"fmt"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/quiverdb/quiver/batch/internal/meta"
	"github.com/quiverdb/quiver/codec"
)

// Encoder turns records of one schema into Arrow IPC messages with body
// compression. It is reusable and not safe for concurrent use; the
// messages it returns stay valid until its next call.
type Encoder struct {
	schema *arrow.Schema
	ms     *meta.Schema // the schema with its dictionary ids
	opts   WriteOptions
	codec  codec.Codec
	metaW  meta.Encoder
	// lastDicts holds the dictionary last written per id, to send only
	// changes; Release drops them.
	lastDicts map[int64]arrow.Array
	fileMode  bool
	check     *Decoder       // invariants builds: decodes every message again
	custom    arrow.Metadata // custom_metadata of every message, see SetCustomMetadata

	flat  flattener
	body  []byte
	specs []meta.Buffer
	parts [][]byte // per-buffer compressed scratch for parallel encode
	msgs  []Message
	metas [][]byte
}

// NewEncoder returns an Encoder for records of schema.
func NewEncoder(schema *arrow.Schema, opts WriteOptions) (*Encoder, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	c, err := codec.New(opts.Codec)
	if err != nil {
		return nil, err
	}
	ms := meta.NewSchema(schema)
	for _, d := range ms.Dicts {
		if hasDictionary(d.Type.ValueType) {
			return nil, fmt.Errorf("%w: dictionary of dictionaries in field %q", ErrUnsupported, schema.Field(d.Path[0]).Name)
		}
	}
	e := &Encoder{
		schema:    schema,
		ms:        ms,
		opts:      opts,
		codec:     c,
		lastDicts: map[int64]arrow.Array{},
		flat:      flattener{alloc: opts.alloc()},
	}
	// Encode the schema once now: a type the metadata layer cannot write
	// fails here rather than in the middle of a stream.
	if _, err := e.metaW.AppendMessage(nil, e.schemaMeta()); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnsupported, err)
	}
	return e, nil
}

func (e *Encoder) schemaMeta() *meta.Message {
	return &meta.Message{Version: meta.MetadataV5, Header: meta.HeaderSchema, Schema: e.ms, Metadata: e.custom}
}

// SetCustomMetadata sets the custom_metadata written on every message the
// encoder returns from now on (SchemaMessage, dictionary and record
// batches) until it is set again; an empty md writes none. This is the
// Message table's own field, not the schema's or a field's: readers that
// do not know the keys skip it, so the stream stays plain Arrow IPC. The
// spill layer keeps each message's checksum there.
func (e *Encoder) SetCustomMetadata(md arrow.Metadata) { e.custom = md }

// Schema returns the schema the encoder writes.
func (e *Encoder) Schema() *arrow.Schema { return e.schema }

// SchemaMessage returns the Schema message that starts a stream.
func (e *Encoder) SchemaMessage() Message {
	b, err := e.metaW.AppendMessage(nil, e.schemaMeta())
	if err != nil {
		panic(err) // NewEncoder encoded this schema already
	}
	return Message{Meta: b}
}

// Encode returns the messages for rec: a dictionary batch for each
// dictionary that changed since the last call, then the record batch.
// The messages are valid until the next call to Encode or Release.
func (e *Encoder) Encode(rec arrow.RecordBatch) ([]Message, error) {
	if !rec.Schema().Equal(e.schema) {
		return nil, fmt.Errorf("%w: got %s, want %s", ErrSchema, rec.Schema(), e.schema)
	}
	e.msgs = e.msgs[:0]
	e.body = e.body[:0]
	if err := e.encodeDictionaries(rec); err != nil {
		return nil, err
	}
	m, err := e.encodeRecord(rec.Columns(), rec.NumRows(), nil)
	if err != nil {
		return nil, err
	}
	e.msgs = append(e.msgs, m)
	e.checkEncoded(rec, e.msgs)
	return e.msgs, nil
}

// encodeRecord flattens cols and returns a RecordBatch message (or the
// data of a DictionaryBatch when dict is set). Bodies are appended to
// e.body so several messages of one call can share it.
func (e *Encoder) encodeRecord(cols []arrow.Array, rows int64, dict *meta.DictionaryBatch) (Message, error) {
	e.flat.reset()
	defer e.flat.reset()
	for _, c := range cols {
		if err := e.flat.add(c.Data()); err != nil {
			return Message{}, err
		}
	}
	start := len(e.body)
	e.appendBody()
	body := e.body[start:]
	rb := meta.RecordBatch{
		Length:         rows,
		Nodes:          e.flat.nodes,
		Buffers:        e.specs,
		Compression:    compressionOf(e.opts.Codec.Kind),
		VariadicCounts: e.flat.variadic,
	}
	m := &meta.Message{Version: meta.MetadataV5, BodyLength: int64(len(body)), Metadata: e.custom}
	if dict != nil {
		dict.Data = rb
		m.Header, m.Dictionary = meta.HeaderDictionaryBatch, dict
	} else {
		m.Header, m.Record = meta.HeaderRecordBatch, &rb
	}
	mb, err := e.metaW.AppendMessage(nil, m)
	if err != nil {
		return Message{}, err
	}
	return Message{Meta: mb, Body: body}, nil
}

func compressionOf(k codec.Kind) meta.Compression {
	switch k {
	case codec.LZ4:
		return meta.CompressionLZ4
	case codec.Zstd:
		return meta.CompressionZstd
	}
	return meta.CompressionNone
}

// appendBody appends the flattened buffers to e.body, compressed, each
// padded to 8 bytes, and records their ranges (relative to the body's
// start) in e.specs.
func (e *Encoder) appendBody() {
	bufs := e.flat.bufs
	e.specs = e.specs[:0]
	start := len(e.body)
	compress := e.opts.Codec.Kind != codec.None
	parallel := compress && e.opts.Concurrency > 1 && len(bufs) > 1
	if parallel {
		e.compressParallel(bufs)
	}
	for i, b := range bufs {
		off := len(e.body)
		switch {
		case len(b) == 0:
			// Empty buffers take no bytes, not even a prefix, as in Arrow C++.
		case !compress:
			e.body = append(e.body, b...)
		case parallel:
			e.body = append(e.body, e.parts[i]...)
		default:
			e.body = e.appendCompressed(e.body, b)
		}
		e.specs = append(e.specs, meta.Buffer{Offset: int64(off - start), Length: int64(len(e.body) - off)})
		e.body = append(e.body, make([]byte, padLen(int64(len(e.body)-start)))...)
	}
}

// appendCompressed appends the int64 uncompressed length and the codec's
// bytes, or -1 and the raw bytes when compression does not save enough.
func (e *Encoder) appendCompressed(dst, src []byte) []byte {
	start := len(dst)
	dst = binary.LittleEndian.AppendUint64(dst, uint64(len(src)))
	dst = e.codec.Compress(dst, src)
	saved := len(src) - (len(dst) - start - 8)
	if saved > 0 && float64(saved) >= e.opts.MinSaving*float64(len(src)) {
		return dst
	}
	dst = binary.LittleEndian.AppendUint64(dst[:start], ^uint64(0))
	return append(dst, src...)
}

// compressParallel compresses bufs into e.parts on opts.Concurrency
// goroutines; appendBody then copies them into the body in order. The
// parts keep their capacity from batch to batch.
func (e *Encoder) compressParallel(bufs [][]byte) {
	for len(e.parts) < len(bufs) {
		e.parts = append(e.parts, nil)
	}
	parts := e.parts[:len(bufs)]
	var next sync.Mutex
	i := 0
	var wg sync.WaitGroup
	for range min(e.opts.Concurrency, len(bufs)) {
		wg.Go(func() {
			for {
				next.Lock()
				j := i
				i++
				next.Unlock()
				if j >= len(bufs) {
					return
				}
				parts[j] = parts[j][:0]
				if len(bufs[j]) > 0 {
					parts[j] = e.appendCompressed(parts[j], bufs[j])
				}
			}
		})
	}
	wg.Wait()
}

// encodeDictionaries appends a DictionaryBatch message for each
// dictionary that differs from the one last written under its id: a delta
// when the new dictionary extends the old one (stream format only), a
// replacement otherwise (refused in the file format, which cannot hold
// one).
func (e *Encoder) encodeDictionaries(rec arrow.RecordBatch) error {
	for _, dp := range e.ms.Dicts {
		d := dataAt(rec.Columns(), dp.Path).Dictionary()
		if d == nil {
			return fmt.Errorf("%w: dictionary field at %v has no dictionary", ErrSchema, dp.Path)
		}
		dict := array.MakeFromData(d)
		last, seen := e.lastDicts[dp.ID]
		if seen && (last.Data() == d || array.Equal(last, dict)) {
			dict.Release()
			continue
		}
		payload, isDelta := arrow.Array(dict), false
		if seen && last.Len() < dict.Len() && !e.fileMode {
			head := array.NewSlice(dict, 0, int64(last.Len()))
			if array.Equal(head, last) {
				payload, isDelta = array.NewSlice(dict, int64(last.Len()), int64(dict.Len())), true
			}
			head.Release()
		} else if seen && e.fileMode {
			dict.Release()
			return fmt.Errorf("%w: dictionary %d replaced; the IPC file format cannot hold replacements, use the stream format", ErrUnsupported, dp.ID)
		}
		m, err := e.encodeRecord([]arrow.Array{payload}, int64(payload.Len()), &meta.DictionaryBatch{ID: dp.ID, IsDelta: isDelta})
		if isDelta {
			payload.Release()
		}
		if err != nil {
			dict.Release()
			return err
		}
		e.msgs = append(e.msgs, m)
		if seen {
			last.Release()
		}
		e.lastDicts[dp.ID] = dict
	}
	return nil
}

// Release drops the dictionaries the encoder keeps to detect changes.
func (e *Encoder) Release() {
	for id, d := range e.lastDicts {
		d.Release()
		delete(e.lastDicts, id)
	}
	e.flat.reset()
	if e.check != nil {
		e.check.Release()
	}
}
