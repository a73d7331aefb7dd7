package cache

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/hll"
	"github.com/quiverdb/quiver/internal/arrowsize"
)

// Put stores the batches r yields as table name, replacing a table of that
// name. A name that differs only in case from a table held is
// ErrNameClash (names.go). It reads r to the end (it does not release r). Each batch is
// encoded once, on up to Concurrency goroutines, and its statistics
// computed.
//
// Put is atomic: the table becomes visible only when every batch is
// stored, and a failure (a read error, a cancelled ctx, the budget) leaves
// the cache as it was, the previous table of that name intact. While it
// runs, the bytes it has stored count against the budget besides the
// table it replaces, which is released when the new one is swapped in.
func (c *Cache) Put(ctx context.Context, name string, r array.RecordReader, opts TableOptions) (TableInfo, error) {
	ch, err := c.PreparePut(ctx, name, r, opts)
	if err != nil {
		return TableInfo{}, err
	}
	return ch.Commit()
}

// builder is one Put in progress.
type builder struct {
	c           *Cache
	name        string
	in          *arrow.Schema // the reader's schema
	setting     CodecSetting
	encodings   bool
	concurrency int
	mem         memory.Allocator

	// Decided from the first batches (decide.go).
	out     *arrow.Schema // in with decoded dictionary columns
	columns []columnState
	// sketches are the new batches' distinct-count sketches per column
	// (distinct.go), merged in by each goroutine as it ends.
	sketches []*hll.Sketch

	mu        sync.Mutex
	entries   []*entry
	names     [][]string // per entry, per column: the encoding name
	reserved  int64      // budget bytes held
	committed bool
	// encoded is TableOptions.Encoded; emitted counts the entries given
	// to it.
	encoded func(int, [][]byte)
	emitted int
}

func (c *Cache) newBuilder(name string, schema *arrow.Schema, opts TableOptions) (*builder, error) {
	if name == "" {
		return nil, errors.New("cache: empty table name")
	}
	if opts.Concurrency < 0 {
		return nil, fmt.Errorf("cache: table %q: negative concurrency %d", name, opts.Concurrency)
	}
	b := &builder{
		c: c, name: name, in: schema, setting: opts.Codec, encodings: !opts.Plain,
		concurrency: opts.Concurrency, mem: c.opts.Alloc, encoded: opts.Encoded,
	}
	if b.setting.IsZero() {
		b.setting = c.opts.Codec
	}
	if !b.setting.Auto {
		if err := b.setting.Setting.Validate(); err != nil {
			return nil, fmt.Errorf("cache: table %q: %w", name, err)
		}
	}
	if b.concurrency == 0 {
		b.concurrency = c.opts.Concurrency
	}
	return b, nil
}

// sampleRows and sampleBatches bound the batches Put holds back to decide
// dictionaries and Auto's codecs.
const (
	sampleRows    = 32 * 1024
	sampleBatches = 4
)

// run reads r, decides from the first batches, and encodes every batch.
func (b *builder) run(ctx context.Context, r array.RecordReader) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var sample []arrow.RecordBatch
	defer func() {
		for _, rec := range sample {
			rec.Release()
		}
	}()
	rows := 0
	for rows < sampleRows && len(sample) < sampleBatches && r.Next() {
		rec := r.RecordBatch()
		if !rec.Schema().Equal(b.in) {
			return fmt.Errorf("cache: table %q: batch %d has schema %s, the reader's is %s", b.name, len(sample), rec.Schema(), b.in)
		}
		rec.Retain()
		sample = append(sample, rec)
		rows += int(rec.NumRows())
	}
	if err := r.Err(); err != nil {
		return fmt.Errorf("cache: table %q: reading batch %d: %w", b.name, len(sample), err)
	}
	if b.out == nil { // Append decided with the table's first Put
		if err := b.decide(ctx, sample); err != nil {
			return err
		}
	}
	b.sketches = newSketches(b.out)
	p := b.startPool(ctx, cancel)
	for _, rec := range sample {
		p.submit(rec)
	}
	index := len(sample)
	for ctx.Err() == nil && r.Next() {
		rec := r.RecordBatch()
		if !rec.Schema().Equal(b.in) {
			p.fail(fmt.Errorf("cache: table %q: batch %d has schema %s, the reader's is %s", b.name, index, rec.Schema(), b.in))
			break
		}
		p.submit(rec)
		index++
	}
	if err := r.Err(); err != nil {
		p.fail(fmt.Errorf("cache: table %q: reading batch %d: %w", b.name, index, err))
	}
	return p.wait(ctx)
}

// reserve takes n bytes of the budget for this put.
func (b *builder) reserve(n int64) error {
	c := b.c
	if !c.admit(n) { // restored batches' chunks give way (evict.go)
		used := c.used.Load() + n
		b.mu.Lock()
		need := b.reserved + n
		b.mu.Unlock()
		return &BudgetError{Table: b.name, Need: need, Used: used - need, Budget: c.opts.Budget}
	}
	b.mu.Lock()
	b.reserved += n
	b.mu.Unlock()
	return nil
}

// abort gives back the budget of a put that did not commit.
func (b *builder) abort() {
	if !b.committed {
		b.c.used.Add(-b.reserved)
	}
}

// table assembles the snapshot from the stored entries, in order.
func (b *builder) table() *table {
	t := &table{name: b.name, input: b.in, schema: b.out, setting: b.setting, encodings: b.encodings, columns: b.columns}
	for i := range t.columns {
		t.columns[i].encodings = map[string]int{}
		t.columns[i].sketch = b.sketches[i]
	}
	for i, e := range b.entries {
		t.add(e, b.names[i])
	}
	return t
}

// store records the entry of batch i.
func (b *builder) store(i int, e *entry, names []string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	e.names = names
	b.entries[i], b.names[i] = e, names
	for b.encoded != nil && b.emitted < len(b.entries) && b.entries[b.emitted] != nil {
		b.encoded(b.emitted, b.entries[b.emitted].chunks)
		b.emitted++
	}
}

// encodeRecord encodes one batch with enc into an entry.
func (b *builder) encodeRecord(ctx context.Context, enc *chunkEncoder, dec *chunkDecoder, sk *sketcher, rec arrow.RecordBatch) (*entry, []string, error) {
	n := int(rec.NumCols())
	e := &entry{rows: rec.NumRows(), stats: make([]ColumnStats, n), chunks: make([][]byte, n), decoded: make([]int64, n)}
	names := make([]string, n)
	ends := make([]int, n)
	stored := make([]arrow.Array, n) // what was encoded, for checkChunks
	blob := enc.blob[:0]             // every column's chunk, then copied out exactly sized
	for i := range n {
		col := rec.Column(i)
		if b.columns[i].dictionary == "decoded" {
			dense, err := decodeDictionary(ctx, b.mem, col)
			if err != nil {
				return nil, nil, fmt.Errorf("cache: table %q column %q: decoding its dictionary: %w", b.name, b.out.Field(i).Name, err)
			}
			defer dense.Release()
			col = dense
		}
		stored[i] = col
		e.stats[i] = ComputeStats(col)
		sk.add(i, col)
		enc.use(b.columns[i].codec)
		var info encoded
		var err error
		blob, info, err = enc.encode(blob, col)
		if err != nil {
			return nil, nil, fmt.Errorf("cache: table %q column %q: %w", b.name, b.out.Field(i).Name, err)
		}
		ends[i] = len(blob)
		e.decoded[i] = info.decoded
		names[i] = encodingName(formOf(col.DataType()), info)
	}
	// One allocation per entry, sized exactly, so the footprint counts
	// what is held.
	held := make([]byte, len(blob))
	copy(held, blob)
	enc.blob = blob
	start := 0
	for i, end := range ends {
		e.chunks[i] = held[start:end:end]
		start = end
	}
	for i := range n {
		if names[i] == "ipc" {
			size, err := measureIPC(dec, b.out.Field(i).Type, e.chunks[i])
			if err != nil {
				return nil, nil, fmt.Errorf("cache: table %q column %q: checking its stored form: %w", b.name, b.out.Field(i).Name, err)
			}
			e.decoded[i] = size
		}
	}
	checkChunks(dec, stored, e)
	return e, names, nil
}

// measureIPC decodes a formIPC chunk once to learn its decoded size, which
// the footprint reports and later scans check against.
func measureIPC(dec *chunkDecoder, dt arrow.DataType, chunk []byte) (int64, error) {
	arr, err := dec.decode(dt, chunk, 1<<62)
	if err != nil {
		return 0, err
	}
	defer arr.Release()
	return arrowsize.Data(arr.Data()), nil
}

// decodeDictionary returns the values a dictionary array selects.
func decodeDictionary(ctx context.Context, mem memory.Allocator, arr arrow.Array) (arrow.Array, error) {
	d := arr.(*array.Dictionary)
	return compute.TakeArray(compute.WithAllocator(ctx, mem), d.Dictionary(), d.Indices())
}
