package batch

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/batch/internal/meta"
	"github.com/quiverdb/quiver/codec"
)

// Decoder turns RecordBatch and DictionaryBatch messages of one schema
// back into records, decoding only the selected columns. Decoding record
// batches is safe for concurrent use; dictionary batches must arrive in
// stream order and not concurrently with records that need them.
type Decoder struct {
	schema   *arrow.Schema // as written
	out      *arrow.Schema // projected
	types    []arrow.DataType
	colNames []string // top-level names, for errors
	cols     []int    // selected columns; nil means all
	opts     ReadOptions
	lim      Limits
	dictID   map[string]int64 // path key → dictionary id

	mu    sync.RWMutex
	dicts map[int64]*dictEntry
}

type dictEntry struct {
	typ    *arrow.DictionaryType
	values arrow.ArrayData // nil until its first DictionaryBatch
}

// NewDecoder returns a Decoder for messages written with schema, with
// dictionary ids numbered depth-first as every Arrow writer numbers them.
// Readers use the ids the schema message carries instead.
func NewDecoder(schema *arrow.Schema, opts ReadOptions) (*Decoder, error) {
	return newDecoderFromMeta(meta.NewSchema(schema), opts)
}

func newDecoderFromMeta(s *meta.Schema, opts ReadOptions) (*Decoder, error) {
	d := &Decoder{
		schema:   s.Schema,
		types:    fieldTypes(s.Schema.Fields()),
		colNames: fieldNames(s.Schema),
		opts:     opts,
		lim:      opts.Limits.withDefaults(),
		dictID:   map[string]int64{},
		dicts:    map[int64]*dictEntry{},
	}
	if opts.Concurrency < 0 {
		return nil, fmt.Errorf("batch: Concurrency %d is negative", opts.Concurrency)
	}
	for _, df := range s.Dicts {
		if _, dup := d.dicts[df.ID]; dup {
			return nil, corruptf("dictionary id %d used twice in the schema", df.ID)
		}
		d.dicts[df.ID] = &dictEntry{typ: df.Type}
		d.dictID[pathKey(df.Path)] = df.ID
	}
	d.out = s.Schema
	if opts.Columns != nil {
		d.cols = slices.Clone(opts.Columns)
		fields := make([]arrow.Field, len(d.cols))
		for i, c := range d.cols {
			if c < 0 || c >= len(d.types) {
				return nil, fmt.Errorf("batch: column %d selected; schema has %d", c, len(d.types))
			}
			fields[i] = s.Schema.Field(c)
		}
		md := s.Schema.Metadata()
		d.out = arrow.NewSchema(fields, &md)
	}
	return d, nil
}

func pathKey(p []int) string { return fmt.Sprint(p) }

// fieldNames returns the top-level column names, for error messages.
func fieldNames(s *arrow.Schema) []string {
	out := make([]string, s.NumFields())
	for i, f := range s.Fields() {
		out[i] = f.Name
	}
	return out
}

// Schema returns the schema of the records Decode returns (projected).
func (d *Decoder) Schema() *arrow.Schema { return d.out }

// FullSchema returns the schema the messages were written with.
func (d *Decoder) FullSchema() *arrow.Schema { return d.schema }

// Decode decodes one message. A RecordBatch message returns a record the
// caller must Release; a DictionaryBatch message updates the decoder's
// dictionaries and returns nil, nil.
func (d *Decoder) Decode(m Message) (arrow.RecordBatch, error) {
	msg, err := meta.DecodeMessage(m.Meta, d.lim.meta())
	if err != nil {
		return nil, classify(err)
	}
	if msg.BodyLength != int64(len(m.Body)) {
		return nil, corruptf("message declares a %d-byte body, %d bytes given", msg.BodyLength, len(m.Body))
	}
	return d.decodeMessage(msg, body{bytes: m.Body})
}

func (d *Decoder) decodeMessage(msg *meta.Message, b body) (arrow.RecordBatch, error) {
	switch msg.Header {
	case meta.HeaderRecordBatch:
		return d.decodeRecord(msg.Record, b)
	case meta.HeaderDictionaryBatch:
		return nil, d.decodeDictionary(msg.Dictionary, b)
	case meta.HeaderSchema:
		return nil, corruptf("schema message in the middle of a stream")
	}
	return nil, fmt.Errorf("%w: message type %d", ErrUnsupported, msg.Header)
}

func codecFor(c meta.Compression) (codec.Codec, error) {
	switch c {
	case meta.CompressionNone:
		return codec.MustNew(codec.SettingNone), nil
	case meta.CompressionLZ4:
		return codec.MustNew(codec.SettingLZ4), nil
	case meta.CompressionZstd:
		return codec.MustNew(codec.SettingZstd), nil
	}
	return nil, fmt.Errorf("%w: body compression codec %d", ErrUnsupported, c)
}

// decodeRecord decodes the selected columns of a record batch.
func (d *Decoder) decodeRecord(rb *meta.RecordBatch, b body) (arrow.RecordBatch, error) {
	if rb.Length < 0 || rb.Length > maxArrayLen {
		return nil, corruptf("record batch length %d", rb.Length)
	}
	cols := d.cols
	if cols == nil {
		cols = allColumns(len(d.types))
	}
	if len(cols) == 0 {
		return array.NewRecordBatch(d.out, nil, rb.Length), nil // count only: body untouched
	}
	arrs, err := d.decodeColumns(d.types, d.colNames, cols, nil, rb, b)
	if err != nil {
		return nil, err
	}
	defer releaseArrays(arrs)
	for i, a := range arrs {
		if int64(a.Len()) != rb.Length {
			return nil, corruptf("column %d has %d rows in a batch of %d", cols[i], a.Len(), rb.Length)
		}
	}
	return array.NewRecordBatch(d.out, arrs, rb.Length), nil
}

func allColumns(n int) []int {
	cols := make([]int, n)
	for i := range cols {
		cols[i] = i
	}
	return cols
}

func releaseArrays(arrs []arrow.Array) {
	for _, a := range arrs {
		if a != nil {
			a.Release()
		}
	}
}

// decodeColumns loads and assembles the columns cols of types. prefix is
// the path of the first column's parent for dictionary lookups (nil for
// record batches).
func (d *Decoder) decodeColumns(types []arrow.DataType, names []string, cols []int, dictPrefix []int, rb *meta.RecordBatch, b body) ([]arrow.Array, error) {
	c, err := codecFor(rb.Compression)
	if err != nil {
		return nil, err
	}
	spans, err := columnSpans(types, rb, d.lim.MaxDepth)
	if err != nil {
		return nil, err
	}
	allowance := d.lim.decodedAllowance(b.length())
	var used int64
	var plans []loadPlan
	for _, col := range cols {
		s := spans[col]
		if plans, err = planBuffers(rb, s.buf, s.bufEnd, b, allowance, &used, plans); err != nil {
			return nil, err
		}
	}
	if d.opts.Admit != nil {
		if err := d.opts.Admit(used); err != nil {
			return nil, err
		}
	}
	bufs := make([]*memory.Buffer, len(rb.Buffers))
	if err := loadBuffers(plans, bufs, c, b, d.opts.alloc(), d.opts.Concurrency); err != nil {
		return nil, err
	}
	defer releaseAll(bufs)
	arrs := make([]arrow.Array, 0, len(cols))
	for _, col := range cols {
		s := spans[col]
		a := &assembler{rb: rb, bufs: bufs, c: cursor{s.node, s.buf, s.vari}, mem: d.opts.alloc(), dicts: d.dictionary, name: names[col]}
		a.path = append(append(a.path, dictPrefix...), col)
		data, err := a.build(types[col])
		if err != nil {
			releaseArrays(arrs)
			return nil, err
		}
		arrs = append(arrs, array.MakeFromData(data))
		data.Release()
	}
	return arrs, nil
}

// dictionary returns the current dictionary of the field at path.
func (d *Decoder) dictionary(path []int) (arrow.ArrayData, error) {
	id, ok := d.dictID[pathKey(path)]
	if !ok {
		return nil, corruptf("no dictionary id for the field at %v", path)
	}
	d.mu.RLock()
	defer d.mu.RUnlock()
	e := d.dicts[id]
	if e.values == nil {
		return nil, corruptf("record batch uses dictionary %d before any dictionary batch for it", id)
	}
	return e.values, nil
}

// decodeDictionary decodes a DictionaryBatch into the dictionary memo,
// replacing or (for a delta) extending the dictionary of its id.
func (d *Decoder) decodeDictionary(db *meta.DictionaryBatch, b body) error {
	d.mu.RLock()
	e, ok := d.dicts[db.ID]
	d.mu.RUnlock()
	if !ok {
		return corruptf("dictionary batch for id %d, which the schema does not have", db.ID)
	}
	if db.Data.Length < 0 || db.Data.Length > maxArrayLen {
		return corruptf("dictionary batch length %d", db.Data.Length)
	}
	name := fmt.Sprintf("dictionary %d", db.ID)
	arrs, err := d.decodeColumns([]arrow.DataType{e.typ.ValueType}, []string{name}, []int{0}, []int{-1 - int(db.ID)}, &db.Data, b)
	if err != nil {
		return fmt.Errorf("dictionary %d: %w", db.ID, err)
	}
	defer releaseArrays(arrs)
	values := arrs[0]
	if int64(values.Len()) != db.Data.Length {
		return corruptf("dictionary %d has %d values in a batch of %d", db.ID, values.Len(), db.Data.Length)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if db.IsDelta && e.values != nil {
		old := array.MakeFromData(e.values)
		defer old.Release()
		joined, err := array.Concatenate([]arrow.Array{old, values}, d.opts.alloc())
		// arrow-go cannot concatenate some types (unions): its error is a
		// plain string, not arrow.ErrNotImplemented.
		if err != nil && strings.Contains(err.Error(), "not implemented") {
			return fmt.Errorf("%w: dictionary %d delta of type %s: %v", ErrUnsupported, db.ID, e.typ.ValueType, err)
		}
		if err != nil {
			return corruptf("dictionary %d delta: %v", db.ID, err)
		}
		defer joined.Release()
		values = joined
	}
	if e.values != nil {
		e.values.Release()
	}
	values.Data().Retain()
	e.values = values.Data()
	return nil
}

// Release drops the dictionaries the decoder holds.
func (d *Decoder) Release() {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, e := range d.dicts {
		if e.values != nil {
			e.values.Release()
			e.values = nil
		}
	}
}
