package shuffle

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/zeebo/xxh3"

	"github.com/quiverdb/quiver/batch"
)

// Block names one map output's block: the rows of one partition.
type Block struct {
	Output    *MapOutput
	Partition int
}

// ReadOptions configure ReadBlocks.
type ReadOptions struct {
	// Columns selects the top-level columns to decode, in order; nil
	// means all. Only their buffers are decompressed.
	Columns []int
	// ReadAhead: how many pieces of blocks (a block's part of one run) are
	// read from disk and checksummed ahead of the one being decoded, on
	// one goroutine. 0 means 2; negative reads on the caller's goroutine.
	ReadAhead int
	// Concurrency: goroutines decompressing one batch's buffers.
	Concurrency int
	// Alloc allocates the records. nil: memory.DefaultAllocator.
	Alloc memory.Allocator
	// Index bounds the indexes read from the files.
	Index IndexLimits
}

// piece is one run's part of one block, read and verified.
type piece struct {
	b       []byte
	rows    int64
	batches int64
	what    string // for errors: file, run, partition
	err     error
}

// BlockReader reads blocks as record batches. It implements
// array.RecordReader. Blocks with no rows are skipped without a read.
// Errors (an I/O error, a checksum or a block that does not decode,
// matching ErrCorrupt) end the reading and name the file, run and
// partition.
type BlockReader struct {
	ctx    context.Context
	schema *arrow.Schema
	dec    *batch.Decoder
	refs   atomic.Int64

	pieces <-chan piece
	stop   chan struct{}
	wg     sync.WaitGroup
	next   func() (piece, bool) // without read-ahead
	// syncFetch is the fetcher when there is no read-ahead goroutine.
	syncFetch *fetcher

	cur      arrow.RecordBatch
	left     []byte // undecoded messages of the current piece
	at       piece
	gotRows  int64
	gotBatch int64
	err      error
	done     bool
}

// ReadBlocks returns a reader of blocks' rows, in the order given. All
// blocks must have the same schema.
func ReadBlocks(ctx context.Context, blocks []Block, opts ReadOptions) (*BlockReader, error) {
	if len(blocks) == 0 {
		return nil, errors.New("shuffle: ReadBlocks of no blocks")
	}
	schema := blocks[0].Output.schema
	for _, b := range blocks {
		if !b.Output.schema.Equal(schema) {
			return nil, fmt.Errorf("shuffle: %w: block of %s has schema %s, the first %s", batch.ErrSchema, b.Output.Path(), b.Output.schema, schema)
		}
		if b.Partition < 0 || b.Partition >= b.Output.partitions {
			return nil, fmt.Errorf("shuffle: partition %d of a map output of %d", b.Partition, b.Output.partitions)
		}
	}
	if opts.Alloc == nil {
		opts.Alloc = memory.DefaultAllocator
	}
	dec, err := batch.NewDecoder(schema, batch.ReadOptions{Columns: opts.Columns, Concurrency: opts.Concurrency, Alloc: opts.Alloc})
	if err != nil {
		return nil, fmt.Errorf("shuffle: %w", err)
	}
	r := &BlockReader{ctx: ctx, schema: dec.Schema(), dec: dec, stop: make(chan struct{})}
	r.refs.Store(1)
	fetch := newFetcher(blocks, opts.Index)
	if opts.ReadAhead < 0 {
		r.next = func() (piece, bool) { return fetch.next(ctx) }
		r.syncFetch = fetch
		return r, nil
	}
	ahead := opts.ReadAhead
	if ahead == 0 {
		ahead = 2
	}
	ch := make(chan piece, ahead)
	r.pieces = ch
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		defer close(ch)
		defer fetch.close()
		for {
			p, ok := fetch.next(ctx)
			if !ok {
				return
			}
			select {
			case ch <- p:
			case <-r.stop:
				return
			case <-ctx.Done():
				return
			}
			if p.err != nil {
				return
			}
		}
	}()
	return r, nil
}

// fetcher walks the blocks' pieces, opening each file once and reading
// its index from disk (untrusted) before its first piece.
type fetcher struct {
	blocks []Block
	lim    IndexLimits
	bi     int // block
	run    int // next run of blocks[bi]
	files  map[*MapOutput]*openOutput
	last   map[*MapOutput]int // the last block in each output
}

type openOutput struct {
	h   handle
	mem *memFile // h, when the output is held in memory
	idx *fileIndex
}

func newFetcher(blocks []Block, lim IndexLimits) *fetcher {
	f := &fetcher{blocks: blocks, lim: lim, files: make(map[*MapOutput]*openOutput), last: make(map[*MapOutput]int)}
	for i, b := range blocks {
		f.last[b.Output] = i
	}
	return f
}

// done closes block bi's file when no later block is in it, so that a
// read of one partition over thousands of map outputs holds one open at
// a time, not all of them.
func (f *fetcher) done(bi int) {
	o := f.blocks[bi].Output
	if oo, ok := f.files[o]; ok && f.last[o] == bi {
		_ = oo.h.Close() // read-only
		delete(f.files, o)
	}
}

// next returns the next non-empty piece, false at the end.
func (f *fetcher) next(ctx context.Context) (piece, bool) {
	for f.bi < len(f.blocks) {
		if err := ctx.Err(); err != nil {
			return piece{err: err}, true
		}
		b := f.blocks[f.bi]
		if b.Output.sizes[b.Partition] == 0 {
			f.done(f.bi)
			f.bi++ // empty: no read at all
			continue
		}
		o, err := f.open(b.Output)
		if err != nil {
			return piece{err: err}, true
		}
		if f.run >= o.idx.runs {
			f.done(f.bi)
			f.bi, f.run = f.bi+1, 0
			continue
		}
		run := f.run
		f.run++
		e := o.idx.entry(run, b.Partition)
		if e.n == 0 {
			continue
		}
		p := piece{rows: e.rows, batches: e.batches, what: fmt.Sprintf("%s run %d partition %d", b.Output.Path(), run, b.Partition)}
		if o.mem != nil {
			p.b, err = o.mem.slice(e.off, e.n) // no copy: a block lies in one run's chunk
		} else {
			p.b = make([]byte, e.n)
			_, err = o.h.ReadAt(p.b, e.off)
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = corruptf("%s: file ends inside the block (%d bytes at %d)", p.what, e.n, e.off)
			}
			return piece{err: fmt.Errorf("shuffle: reading %s: %w", p.what, err)}, true
		}
		if got := xxh3.HashSeed(p.b, blockSeed(run, o.idx.partitions, b.Partition)); got != e.sum {
			return piece{err: corruptf("%s: checksum %016x, index says %016x", p.what, got, e.sum)}, true
		}
		return p, true
	}
	return piece{}, false
}

// open opens a map output and reads its index.
func (f *fetcher) open(o *MapOutput) (*openOutput, error) {
	if oo, ok := f.files[o]; ok {
		return oo, nil
	}
	h, size, err := o.open()
	if err != nil {
		return nil, err
	}
	idx, err := readFileIndex(h, size, f.lim)
	if err == nil && (idx.partitions != o.partitions) {
		err = corruptf("map output %s: index of %d partitions, written with %d", o.Path(), idx.partitions, o.partitions)
	}
	if err != nil {
		_ = h.Close() // read-only
		return nil, fmt.Errorf("%w (file %s)", err, o.Path())
	}
	oo := &openOutput{h: h, idx: idx}
	oo.mem, _ = h.(*memFile)
	f.files[o] = oo
	return oo, nil
}

// readFileIndex reads the trailer and index at the end of a file of size
// bytes.
func readFileIndex(h io.ReaderAt, size int64, lim IndexLimits) (*fileIndex, error) {
	if size < trailerLen {
		return nil, corruptf("map output: %d bytes, no room for the trailer", size)
	}
	var t [trailerLen]byte
	if _, err := h.ReadAt(t[:], size-trailerLen); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, corruptf("map output: shorter than the %d bytes written", size)
		}
		return nil, fmt.Errorf("shuffle: reading the trailer: %w", err)
	}
	n, err := parseTrailer(t[:], size, lim)
	if err != nil {
		return nil, err
	}
	b := make([]byte, n)
	if _, err := h.ReadAt(b, size-trailerLen-n); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, corruptf("map output: shorter than the %d bytes written", size)
		}
		return nil, fmt.Errorf("shuffle: reading the index: %w", err)
	}
	return readIndex(b, size, lim)
}

func (f *fetcher) close() {
	for _, o := range f.files {
		_ = o.h.Close() // read-only
	}
	f.files = nil
}

// Schema returns the schema of the records (projected).
func (r *BlockReader) Schema() *arrow.Schema { return r.schema }

// Next decodes the next record; false at the end or on an error (Err).
func (r *BlockReader) Next() bool {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	for r.err == nil && !r.done {
		if err := r.ctx.Err(); err != nil {
			r.err = err
			return false
		}
		if len(r.left) == 0 {
			if r.err = r.endPiece(); r.err != nil {
				return false
			}
			p, ok := r.nextPiece()
			if !ok {
				r.done = true
				return false
			}
			if p.err != nil {
				r.err = p.err
				return false
			}
			r.at, r.left, r.gotRows, r.gotBatch = p, p.b, 0, 0
			continue
		}
		m, rest, err := batch.SplitEncapsulated(r.left, batch.Limits{MaxBody: int64(len(r.left))})
		if err == nil {
			var rec arrow.RecordBatch
			if rec, err = r.dec.Decode(m); err == nil && rec == nil {
				// A dictionary, sent before each batch of its column.
				r.left = rest
				r.gotBatch++
				continue
			}
			if err == nil {
				r.left = rest
				r.gotRows += rec.NumRows()
				r.gotBatch++
				r.cur = rec
				return true
			}
		}
		r.err = corruptf("%s: %v", r.at.what, err)
	}
	return false
}

// endPiece checks that the piece just read held what its index says.
func (r *BlockReader) endPiece() error {
	if r.at.what == "" {
		return nil
	}
	if r.gotRows != r.at.rows || r.gotBatch != r.at.batches {
		return corruptf("%s: %d rows in %d batches, index says %d in %d", r.at.what, r.gotRows, r.gotBatch, r.at.rows, r.at.batches)
	}
	r.at = piece{}
	return nil
}

func (r *BlockReader) nextPiece() (piece, bool) {
	if r.next != nil {
		return r.next()
	}
	select {
	case p, ok := <-r.pieces:
		if !ok {
			if err := r.ctx.Err(); err != nil {
				return piece{err: err}, true
			}
		}
		return p, ok
	case <-r.ctx.Done():
		return piece{err: r.ctx.Err()}, true
	}
}

// RecordBatch returns the record Next decoded, valid until the next call
// to Next or Release.
func (r *BlockReader) RecordBatch() arrow.RecordBatch { return r.cur }

// Record returns RecordBatch().
//
// Deprecated: use RecordBatch (kept for array.RecordReader).
func (r *BlockReader) Record() arrow.RecordBatch { return r.cur }

// Err returns the error that ended the reading, nil at the end.
func (r *BlockReader) Err() error { return r.err }

// Retain adds a reference.
func (r *BlockReader) Retain() { r.refs.Add(1) }

// Release drops a reference; the last stops the read-ahead, closes the
// files and releases the current record.
func (r *BlockReader) Release() {
	if r.refs.Add(-1) != 0 {
		return
	}
	close(r.stop)
	r.wg.Wait()
	if r.syncFetch != nil {
		r.syncFetch.close() // no goroutine to close them
	}
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	r.dec.Release()
}
