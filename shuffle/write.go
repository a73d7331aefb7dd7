package shuffle

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/zeebo/xxh3"

	"github.com/quiverdb/quiver/batch"
	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/spill"
)

// DefaultBufferBytes is how many encoded bytes a MapWriter holds before
// it writes them out as a run.
const DefaultBufferBytes = 32 << 20

// WriterOptions configure a MapWriter.
type WriterOptions struct {
	// Codec compresses the blocks' Arrow IPC bodies. The zero value is
	// none (as spill.Config's); quiver's shuffles use lz4 or zstd:1.
	Codec codec.Setting
	// Concurrency: goroutines compressing one batch's buffers (0 or 1: the
	// calling goroutine; map tasks usually run one per core).
	Concurrency int
	// Alloc allocates what WriteRows gathers. nil: memory.DefaultAllocator.
	Alloc memory.Allocator
	// BufferBytes: encoded (compressed) bytes held per writer before they
	// are written as one run of blocks. 0 means 32 MiB. A partition's
	// rows are read back run by run, in the order written.
	BufferBytes int64
	// Memory, when set, keeps the output in memory while it fits: every
	// run of blocks (compressed with Codec, exactly the bytes the file
	// would hold) is reserved with Memory.TryGrow and kept; the first
	// refusal writes what is held to the file, gives its bytes back, and
	// the rest of the output follows on disk. A finished output held in
	// memory (MapOutput.InMemory) is read like a file, without a copy,
	// and gives its bytes back when removed. nil: on disk, always.
	Memory Budget
}

// Validate reports a field outside its documented range.
func (o WriterOptions) Validate() error {
	if o.Concurrency < 0 || o.BufferBytes < 0 {
		return fmt.Errorf("shuffle: WriterOptions Concurrency %d, BufferBytes %d: negative", o.Concurrency, o.BufferBytes)
	}
	return o.Codec.Validate()
}

// MapWriter writes one map task's output, already partitioned, to one
// file of the spill Manager (its quota and cleanup apply): Write takes a
// batch of one partition, WriteRows a batch with a partition per row
// (what query's partitioner computes). Finish returns the MapOutput;
// any error, or Abort, removes the file. Not safe for concurrent use,
// except Abort, which a Shuffle's Close calls from elsewhere.
type MapWriter struct {
	mu         sync.Mutex
	schema     *arrow.Schema
	partitions int
	opts       WriterOptions
	m          *spill.Manager
	owner      string
	raw        *spill.RawWriter // nil while the output is held in memory
	image      *memFile         // the output held in memory; nil on disk
	enc        *batch.Encoder
	encOpts    batch.WriteOptions
	// dicts: the schema has dictionary columns, whose dictionaries are
	// written before every batch, so that each block decodes alone.
	dicts bool

	pending      [][]byte // per partition: encoded messages of the current run
	pendingRows  []int64
	pendingBatch []int64
	pendingBytes int64
	buf          []byte
	idx          fileIndex
	sizes        []int64 // per partition, over all runs
	rows         int64

	split  SplitScratch // WriteRows's
	err    error
	done   bool
	onDone func() // the Shuffle forgets the writer
}

// NewMapWriter starts a map output file for records of schema cut into
// partitions blocks. owner names the file (a query and map task id).
func NewMapWriter(m *spill.Manager, owner string, schema *arrow.Schema, partitions int, opts WriterOptions) (*MapWriter, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if partitions < 0 {
		return nil, fmt.Errorf("shuffle: %d partitions", partitions)
	}
	dicts := false
	for _, f := range schema.Fields() {
		dicts = dicts || hasDictionary(f.Type)
	}
	if opts.BufferBytes == 0 {
		opts.BufferBytes = DefaultBufferBytes
	}
	if opts.Alloc == nil {
		opts.Alloc = memory.DefaultAllocator
	}
	encOpts := batch.WriteOptions{Codec: opts.Codec, Concurrency: opts.Concurrency, Alloc: opts.Alloc}
	enc, err := batch.NewEncoder(schema, encOpts)
	if err != nil {
		return nil, fmt.Errorf("shuffle: map output of %s: %w", owner, err)
	}
	w := &MapWriter{
		m: m, owner: owner, schema: schema, partitions: partitions, opts: opts, enc: enc, encOpts: encOpts, dicts: dicts,
		pending: make([][]byte, partitions), pendingRows: make([]int64, partitions), pendingBatch: make([]int64, partitions),
		sizes: make([]int64, partitions),
	}
	if opts.Memory != nil {
		w.image = &memFile{}
	} else if w.raw, err = m.NewRaw(owner, ".shuffle"); err != nil {
		enc.Release()
		return nil, err
	}
	w.idx.partitions = partitions
	w.buf = enc.SchemaMessage().AppendEncapsulated(nil)
	w.idx.schemaLen = int64(len(w.buf))
	return w, nil
}

func hasDictionary(dt arrow.DataType) bool {
	if dt.ID() == arrow.DICTIONARY {
		return true
	}
	if n, ok := dt.(arrow.NestedType); ok {
		for _, f := range n.Fields() {
			if hasDictionary(f.Type) {
				return true
			}
		}
	}
	return false
}

// Write appends rec's rows to partition p. The caller keeps rec.
func (w *MapWriter) Write(p int, rec arrow.RecordBatch) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.write(p, rec)
}

func (w *MapWriter) write(p int, rec arrow.RecordBatch) error {
	if err := w.usable(); err != nil {
		return err
	}
	if p < 0 || p >= w.partitions {
		return fmt.Errorf("shuffle: %s: partition %d of %d", w.path(), p, w.partitions)
	}
	if !rec.Schema().Equal(w.schema) {
		return fmt.Errorf("shuffle: %s: %w: got %s, want %s", w.path(), batch.ErrSchema, rec.Schema(), w.schema)
	}
	if rec.NumRows() == 0 {
		return nil
	}
	enc := w.enc
	if w.dicts {
		// An encoder of its own: its dictionaries go out with this
		// batch (an encoder sends a dictionary only when it changed).
		var err error
		if enc, err = batch.NewEncoder(w.schema, w.encOpts); err != nil {
			return w.fail(fmt.Errorf("shuffle: %s partition %d: %w", w.path(), p, err))
		}
		defer enc.Release()
	}
	msgs, err := enc.Encode(rec)
	if err != nil {
		return w.fail(fmt.Errorf("shuffle: %s partition %d: %w", w.path(), p, err))
	}
	before := len(w.pending[p])
	for _, m := range msgs {
		w.pending[p] = m.AppendEncapsulated(w.pending[p])
	}
	w.pendingBytes += int64(len(w.pending[p]) - before)
	w.pendingRows[p] += rec.NumRows()
	w.pendingBatch[p] += int64(len(msgs))
	w.rows += rec.NumRows()
	if w.pendingBytes >= w.opts.BufferBytes {
		return w.flushRun()
	}
	return nil
}

// WriteRows appends each row of rec to the partition parts gives it
// (len(parts) == rec.NumRows()). The caller keeps rec.
func (w *MapWriter) WriteRows(ctx context.Context, rec arrow.RecordBatch, parts []int32) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if int64(len(parts)) != rec.NumRows() {
		return fmt.Errorf("shuffle: %d partition ids for %d rows", len(parts), rec.NumRows())
	}
	for _, p := range parts {
		if p < 0 || int(p) >= w.partitions {
			return fmt.Errorf("shuffle: %s: partition %d of %d", w.path(), p, w.partitions)
		}
	}
	return Split(ctx, w.opts.Alloc, rec, parts, w.partitions, &w.split, w.write)
}

// Buffered returns the encoded bytes held, not yet written: what a caller
// counting its memory counts for the writer (at most about
// WriterOptions.BufferBytes past one batch's).
func (w *MapWriter) Buffered() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return 0
	}
	return w.pendingBytes
}

func (w *MapWriter) usable() error {
	if w.err != nil {
		return w.err
	}
	if w.done {
		return fmt.Errorf("shuffle: %s: write after Finish or Abort", w.path())
	}
	return nil
}

// flushRun writes the buffered blocks, partition after partition, with
// one write call.
func (w *MapWriter) flushRun() error {
	run := w.idx.runs
	for p, b := range w.pending {
		e := blockEntry{n: int64(len(b))}
		if e.n > 0 {
			e.rows, e.batches = w.pendingRows[p], w.pendingBatch[p]
			e.sum = xxh3.HashSeed(b, blockSeed(run, w.partitions, p))
			w.sizes[p] += e.n
		}
		w.idx.entries = append(w.idx.entries, e)
		w.buf = append(w.buf, b...)
		w.pending[p] = b[:0]
		w.pendingRows[p], w.pendingBatch[p] = 0, 0
	}
	w.idx.runs++
	w.pendingBytes = 0
	if err := w.out(w.buf); err != nil {
		return w.fail(fmt.Errorf("shuffle: map output: %w", err))
	}
	w.buf = w.buf[:0]
	return nil
}

// out writes b to the output: kept in memory (a copy, counted in the
// budget) while the budget grants it, else to the file, which the first
// refusal creates with everything held so far.
func (w *MapWriter) out(b []byte) error {
	if w.image != nil {
		if w.opts.Memory.TryGrow(int64(len(b))) {
			w.image.append(bytes.Clone(b))
			return nil
		}
		if err := w.imageToFile(); err != nil {
			return err
		}
	}
	return w.raw.Write(b)
}

// imageToFile writes what is held in memory to a new file, which the
// rest of the output goes to, and gives the bytes back to the budget. On
// an error the output stays in memory.
func (w *MapWriter) imageToFile() error {
	raw, err := w.m.NewRaw(w.owner, ".shuffle")
	if err != nil {
		return err
	}
	for _, c := range w.image.chunks {
		if err := raw.Write(c); err != nil {
			return err // Write aborted the file
		}
	}
	w.raw = raw
	w.dropImage()
	return nil
}

// ToDisk moves what the writer holds in memory (WriterOptions.Memory) to
// a file, as a refusal of the budget does, and returns the bytes given
// back: what a query does when memory it needs elsewhere is held by an
// output still being written (MapOutput.ToDisk moves a finished one),
// whose rest then goes to the file. It waits for a write in progress; 0:
// nothing is held in memory (yet, or any more), or the writer is
// finished or aborted. On an error the output stays in memory.
func (w *MapWriter) ToDisk() (int64, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done || w.image == nil || w.image.size == 0 {
		return 0, nil
	}
	n := w.image.size
	if err := w.imageToFile(); err != nil {
		return 0, fmt.Errorf("shuffle: map output of %s to disk: %w", w.owner, err)
	}
	return n, nil
}

// dropImage gives back the bytes held in memory.
func (w *MapWriter) dropImage() {
	if w.image != nil {
		w.opts.Memory.Shrink(w.image.size)
		w.image = nil
	}
}

// path names the output in errors and statuses: the file's path, or
// "memory:" and the owner while it is held in memory.
func (w *MapWriter) path() string {
	if w.raw != nil {
		return w.raw.Path()
	}
	return "memory:" + w.owner
}

// fail removes the file and makes err the writer's answer from now on.
func (w *MapWriter) fail(err error) error {
	w.abort()
	w.err = err
	return err
}

// Finish writes what is buffered, the end-of-stream marker and the index,
// and returns the map output.
func (w *MapWriter) Finish() (*MapOutput, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.usable(); err != nil {
		return nil, err
	}
	if w.pendingBytes > 0 || w.idx.runs == 0 {
		if err := w.flushRun(); err != nil {
			return nil, err
		}
	}
	w.buf = append(w.buf, endOfStream...)
	at := len(w.buf)
	w.buf = appendIndex(w.buf, &w.idx)
	w.buf = appendTrailer(w.buf, len(w.buf)-at)
	if err := w.out(w.buf); err != nil {
		return nil, w.fail(fmt.Errorf("shuffle: map output: %w", err))
	}
	o := &MapOutput{schema: w.schema, partitions: w.partitions, sizes: w.sizes, rows: w.rows, m: w.m, owner: w.owner}
	if w.image != nil {
		o.mem, o.name, o.budget = w.image, w.path(), w.opts.Memory
		w.image = nil // the output's now
	} else {
		f, err := w.raw.Finish()
		if err != nil {
			return nil, w.fail(fmt.Errorf("shuffle: map output: %w", err))
		}
		o.file = f
	}
	w.done = true
	w.enc.Release()
	w.release()
	return o, nil
}

// Abort removes the file. It does nothing after Finish or a second time.
func (w *MapWriter) Abort() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.abort()
}

func (w *MapWriter) abort() {
	if w.done {
		return
	}
	w.done = true
	if w.raw != nil {
		w.raw.Abort()
	}
	w.dropImage()
	w.enc.Release()
	w.release()
}

func (w *MapWriter) release() {
	w.pending, w.buf = nil, nil
	if w.onDone != nil {
		w.onDone()
		w.onDone = nil
	}
}

// MapOutput is one map task's finished output: a file, or the same
// bytes held in memory (WriterOptions.Memory) until ToDisk or Remove.
type MapOutput struct {
	schema     *arrow.Schema
	partitions int
	sizes      []int64
	rows       int64
	m          *spill.Manager // where ToDisk writes
	owner      string

	mu   sync.Mutex
	file *spill.RawFile // nil while held in memory
	// In memory: the bytes, their name ("memory:" and the owner) and the
	// budget they are counted in until ToDisk or Remove.
	mem     *memFile
	name    string
	budget  Budget
	removed bool
}

// Sizes returns each partition's block size in bytes (0: empty): what
// NewMapStatus summarizes. The caller must not modify it.
func (o *MapOutput) Sizes() []int64 { return o.sizes }

// Rows returns the rows written.
func (o *MapOutput) Rows() int64 { return o.rows }

// Path returns the file's path, or "memory:" and its owner while it is
// held in memory.
func (o *MapOutput) Path() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.file == nil {
		return o.name
	}
	return o.file.Path()
}

// Bytes returns the file's size (held in memory: the bytes held).
func (o *MapOutput) Bytes() int64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.file == nil {
		return o.mem.size
	}
	return o.file.Bytes()
}

// InMemory reports whether the output is held in memory.
func (o *MapOutput) InMemory() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.file == nil
}

// Schema returns the schema of the rows.
func (o *MapOutput) Schema() *arrow.Schema { return o.schema }

// ToDisk moves an output held in memory to a file of the spill Manager
// (its quota and cleanup apply), the same bytes, and gives them back to
// the budget: what a query does when memory it needs elsewhere is held by
// map outputs. Readers open already read on from memory (the bytes stay
// until they are released); readers opened after read the file. It
// returns the bytes given back: 0 when the output is on disk already or
// removed. On an error the output stays in memory.
func (o *MapOutput) ToDisk() (int64, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.file != nil || o.removed {
		return 0, nil
	}
	raw, err := o.m.NewRaw(o.owner, ".shuffle")
	if err != nil {
		return 0, fmt.Errorf("shuffle: map output %s to disk: %w", o.name, err)
	}
	for _, c := range o.mem.chunks {
		if err := raw.Write(c); err != nil {
			return 0, fmt.Errorf("shuffle: map output %s to disk: %w", o.name, err) // Write aborted the file
		}
	}
	f, err := raw.Finish()
	if err != nil {
		return 0, fmt.Errorf("shuffle: map output %s to disk: %w", o.name, err)
	}
	n := o.mem.size
	o.file, o.mem = f, nil
	o.budget.Shrink(n)
	return n, nil
}

// Remove deletes the file, or gives the bytes held in memory back to the
// budget (readers should be released first; one still reading a removed
// output held in memory reads on, and a new one fails). It is
// idempotent.
func (o *MapOutput) Remove() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.file != nil {
		return o.file.Remove()
	}
	if !o.removed {
		o.removed = true
		o.budget.Shrink(o.mem.size)
	}
	return nil
}

// open returns a reader of the output's bytes and their length.
func (o *MapOutput) open() (handle, int64, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.file == nil {
		if o.removed {
			return nil, 0, fmt.Errorf("shuffle: map output %s: %w", o.name, ErrRemoved)
		}
		return o.mem, o.mem.size, nil
	}
	h, err := o.file.Open()
	if err != nil {
		return nil, 0, fmt.Errorf("shuffle: %w", err)
	}
	return h, o.file.Bytes(), nil
}

// handle reads a map output's bytes.
type handle interface {
	io.ReaderAt
	Close() error
}
