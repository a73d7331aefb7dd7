package cache

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/hll"
)

// An Image is a table as the cache stores it: the decisions of its first
// Put and its batches' chunks (format version 1, see doc.go), statistics
// and sizes. A durable store (package store) writes an Image a Change
// gives and hands it back to Restore after a restart, so a table is never
// encoded twice and the chunk format has one home, this package.
type Image struct {
	Name   string
	Input  *arrow.Schema // the schema Put read; Append takes batches of it
	Schema *arrow.Schema // as stored: dictionary columns may be decoded
	Codec  CodecSetting
	// Encodings is false for a table put Plain.
	Encodings bool
	Columns   []ColumnImage
	Batches   []BatchImage
}

// ColumnImage is what the table's first Put decided for a column.
type ColumnImage struct {
	Codec      codec.Setting
	Dictionary string // "", "kept" or "decoded"
	// Sketch is the distinct-count sketch of the column over the whole
	// table, after the change for a Change's Image (an Append's merges
	// the table's and the new batches'); nil when unknown (distinct.go).
	// Restore takes it as it is: a store writes it with the table.
	Sketch *hll.Sketch
}

// BatchImage is one stored batch. Exactly one of Chunks and Load is set:
// Chunks holds the chunks (one per column); Load, for a batch restored
// from disk, reads them on the batch's first scan (and again after the
// budget dropped them), and Sizes then gives their lengths up front (the
// table's footprint, and what the budget counts once they are read).
type BatchImage struct {
	Rows      int64
	Stats     []ColumnStats // per column
	Decoded   []int64       // per column: bytes of the Arrow buffers
	Encodings []string      // per column: how values reach the codec ("delta", "plain"…)
	Chunks    [][]byte
	Sizes     []int64
	// Load returns the batch's chunks; an error wraps ErrCorrupt when
	// the bytes are bad. It may be called again after an error.
	Load func() ([][]byte, error)
}

// image returns t's decisions and the given entries, with their
// encoding names, as an Image.
func (t *table) image(names [][]string, entries []*entry) Image {
	img := Image{Name: t.name, Input: t.input, Schema: t.schema, Codec: t.setting, Encodings: t.encodings}
	img.Columns = make([]ColumnImage, len(t.columns))
	for i, c := range t.columns {
		img.Columns[i] = ColumnImage{Codec: c.codec, Dictionary: c.dictionary, Sketch: c.sketch}
	}
	img.Batches = make([]BatchImage, len(entries))
	for i, e := range entries {
		img.Batches[i] = BatchImage{Rows: e.rows, Stats: e.stats, Decoded: e.decoded, Encodings: names[i], Chunks: e.chunks}
	}
	return img
}

// Restore installs img as table name, replacing a table of that name,
// without encoding anything: what a durable store calls after a restart.
// Batches with Load are read on first use and count against the budget
// while their chunks are held, which the budget may drop to make room
// (evict.go): a restored table may be bigger than the budget. Batches
// with Chunks count at once (a *BudgetError when they do not fit).
// Restore checks the image's shape (a column entry per column, in every
// batch); the chunks themselves are checked when read, as every scan does.
func (c *Cache) Restore(img Image) (TableInfo, error) {
	t, err := restoredTable(c, img)
	if err != nil {
		return TableInfo{}, err
	}
	held := t.held()
	if !c.admit(held) {
		used := c.used.Load()
		return TableInfo{}, &BudgetError{Table: img.Name, Need: held, Used: used, Budget: c.opts.Budget}
	}
	c.mu.Lock()
	if err := c.checkNameLocked(img.Name); err != nil {
		c.mu.Unlock()
		c.used.Add(-held)
		return TableInfo{}, err
	}
	old := c.tables[img.Name]
	c.tables[img.Name] = t
	c.mu.Unlock()
	if old != nil {
		c.used.Add(-old.held())
		c.forget(old)
	}
	return t.info(), nil
}

// restoredTable builds the snapshot of an image.
func restoredTable(c *Cache, img Image) (*table, error) {
	if img.Name == "" {
		return nil, errors.New("cache: restore of a table without a name")
	}
	if img.Input == nil || img.Schema == nil {
		return nil, fmt.Errorf("cache: restore of table %q without its schemas", img.Name)
	}
	n := img.Schema.NumFields()
	if img.Input.NumFields() != n || len(img.Columns) != n {
		return nil, fmt.Errorf("cache: restore of table %q: %d input fields, %d stored, %d column decisions", img.Name, img.Input.NumFields(), n, len(img.Columns))
	}
	t := &table{name: img.Name, input: img.Input, schema: img.Schema, setting: img.Codec, encodings: img.Encodings, gen: generations.Add(1)}
	t.columns = make([]columnState, n)
	for i, col := range img.Columns {
		t.columns[i] = columnState{codec: col.Codec, dictionary: col.Dictionary, encodings: map[string]int{}, sketch: col.Sketch}
	}
	for i, b := range img.Batches {
		if len(b.Stats) != n || len(b.Decoded) != n || len(b.Encodings) != n {
			return nil, fmt.Errorf("cache: restore of table %q: batch %d has %d stats, %d sizes, %d encodings for %d columns", img.Name, i, len(b.Stats), len(b.Decoded), len(b.Encodings), n)
		}
		e := &entry{rows: b.Rows, stats: b.Stats, decoded: b.Decoded, chunks: b.Chunks, names: b.Encodings}
		switch {
		case b.Load != nil && len(b.Sizes) == n && b.Chunks == nil:
			e.lazy = &lazyChunks{c: c, lens: b.Sizes, load: b.Load}
			for _, n := range b.Sizes {
				e.lazy.size += n
			}
		case b.Load == nil && len(b.Chunks) == n:
		default:
			return nil, fmt.Errorf("cache: restore of table %q: batch %d needs either %d chunks or a loader and %d sizes", img.Name, i, n, n)
		}
		t.add(e, b.Encodings)
	}
	return t, nil
}

// lazyChunks are a restored entry's chunks, read on first use and kept
// while the budget has room (evict.go). A failed read is not kept: the
// next scan tries again (an EIO may pass; a corrupt file fails again,
// naming itself).
type lazyChunks struct {
	c    *Cache
	lens []int64
	size int64 // sum of lens
	load func() ([][]byte, error)

	mu     sync.Mutex
	chunks [][]byte
	queued bool // in c.evict.q; guarded by c.evict.mu
}

func (l *lazyChunks) get() ([][]byte, error) {
	l.mu.Lock()
	chunks := l.chunks
	l.mu.Unlock()
	if chunks != nil {
		return chunks, nil
	}
	chunks, err := l.load()
	if err != nil {
		return nil, err
	}
	if len(chunks) != len(l.lens) {
		return nil, fmt.Errorf("%w: loader gave %d chunks, want %d", ErrCorrupt, len(chunks), len(l.lens))
	}
	for i, c := range chunks {
		if int64(len(c)) != l.lens[i] {
			return nil, fmt.Errorf("%w: loader gave chunk %d of %d bytes, want %d", ErrCorrupt, i, len(c), l.lens[i])
		}
	}
	if !l.c.admit(l.size) {
		return chunks, nil // no room even after evicting: this scan's alone
	}
	l.mu.Lock()
	if l.chunks != nil { // another scan read it meanwhile
		kept := l.chunks
		l.mu.Unlock()
		l.c.used.Add(-l.size)
		return kept, nil
	}
	l.chunks = chunks
	l.mu.Unlock()
	l.c.enqueue(l)
	return chunks, nil
}

// loadError is the scan's error for entry i whose chunks could not be
// read; the loader's error names the file and the column.
func (s *Scanner) loadError(i int, err error) error {
	return fmt.Errorf("cache: table %q batch %d: reading its chunks: %w", s.t.name, i, err)
}

// CheckChunk verifies a chunk's length, checksum and version byte, the
// checks every decode starts with, so that a store can name a bad file
// the moment it reads it. The error wraps ErrCorrupt.
func CheckChunk(src []byte) error {
	if len(src) < 3+4 {
		return corrupt("chunk of %d bytes, shorter than its header and checksum", len(src))
	}
	body := src[:len(src)-4]
	if got, want := checksum(body), binary.LittleEndian.Uint32(src[len(body):]); got != want {
		return corrupt("checksum %08x, the chunk records %08x", got, want)
	}
	if body[0] != chunkVersion {
		return corrupt("chunk format version %d, this build reads %d", body[0], chunkVersion)
	}
	return nil
}
