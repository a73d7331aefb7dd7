package cache

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/colenc"
	"github.com/quiverdb/quiver/hll"
)

// table is an immutable snapshot of a cached table: Put builds a new one
// and swaps it in, so a scan that holds a snapshot reads it unchanged.
type table struct {
	name    string
	input   *arrow.Schema // as Put read it; Append takes batches of this schema
	schema  *arrow.Schema // as stored: dictionary columns may be decoded
	setting CodecSetting
	// encodings is false for a table put Plain (no colenc encodings).
	encodings bool
	entries   []*entry
	columns   []columnState
	rows      int64

	compressed int64 // chunk bytes, what the budget counts
	decoded    int64
	// gen is the snapshot's number (generations), new with every Put,
	// Append and Restore.
	gen uint64
	sum tableSummary // tablestats.go
}

// entry is one cached batch.
type entry struct {
	rows    int64
	stats   []ColumnStats // per column
	chunks  [][]byte      // per column; slices of one allocation; nil when lazy
	decoded []int64       // per column: bytes of the Arrow buffers
	// names are how each column's values reached the codec ("delta"…),
	// kept so that a compaction or a coalescing append (coalesce.go) can
	// take the entry out of its table's counts.
	names []string
	// lazy, for a restored entry, reads chunks on first use (image.go).
	lazy *lazyChunks
}

// size is the entry's chunk bytes.
func (e *entry) size() int64 {
	var n int64
	for i := range e.decoded {
		n += e.chunkLen(i)
	}
	return n
}

// chunkLen is the bytes of column i's chunk, known before a lazy entry
// is read.
func (e *entry) chunkLen(i int) int64 {
	if e.lazy != nil {
		return e.lazy.lens[i]
	}
	return int64(len(e.chunks[i]))
}

// chunkBytes returns the entry's chunks, reading a restored entry's on
// first use.
func (e *entry) chunkBytes() ([][]byte, error) {
	if e.lazy != nil {
		return e.lazy.get()
	}
	return e.chunks, nil
}

// columnState is what Put decided for a column and what it stored.
type columnState struct {
	codec      codec.Setting
	dictionary string // "", "kept" or "decoded"
	nulls      int64
	compressed int64
	decoded    int64
	encodings  map[string]int // batches per encoding name
	// sketch is the column's distinct-count sketch over every batch
	// (distinct.go); nil when unknown: a type without one, or a table
	// restored from a store that kept none. Never modified once in a
	// table: an Append merges into a copy.
	sketch *hll.Sketch
}

func (t *table) info() TableInfo {
	info := TableInfo{
		Name: t.name, Schema: t.schema, Codec: t.setting, Rows: t.rows,
		Batches: len(t.entries), Compressed: t.compressed, Decoded: t.decoded,
		Columns: make([]ColumnInfo, len(t.columns)), Generation: t.gen,
	}
	for i, c := range t.columns {
		f := t.schema.Field(i)
		info.Columns[i] = ColumnInfo{
			Name: f.Name, Type: f.Type, Nulls: c.nulls, Distinct: distinctOf(c, t.rows-c.nulls),
			Compressed: c.compressed, Decoded: c.decoded,
			Codec: c.codec, Encoding: encodingSummary(c.encodings), Dictionary: c.dictionary,
		}
	}
	return info
}

// encodingName names how a chunk's values reach the codec.
func encodingName(f columnForm, enc encoded) string {
	switch {
	case enc.ipc:
		return "ipc"
	case f.form == formVarBinary && enc.encoding == colenc.Lengths:
		return "lengths"
	case enc.narrowed:
		return "narrow64+" + enc.encoding.String()
	}
	return enc.encoding.String()
}

// encodingSummary is "delta" when every batch used delta, else the counts
// by frequency: "delta 610, plain 1".
func encodingSummary(m map[string]int) string {
	if len(m) == 0 {
		return ""
	}
	names := make([]string, 0, len(m))
	for name := range m {
		names = append(names, name)
	}
	if len(names) == 1 {
		return names[0]
	}
	slices.SortFunc(names, func(a, b string) int {
		if m[a] != m[b] {
			return m[b] - m[a]
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, len(names))
	for i, name := range names {
		parts[i] = name + " " + strconv.Itoa(m[name])
	}
	return strings.Join(parts, ", ")
}

// add accounts one entry into the table; names are its encoding names
// (entry.names).
func (t *table) add(e *entry, names []string) {
	e.names = names
	t.entries = append(t.entries, e)
	t.rows += e.rows
	for i := range t.columns {
		c := &t.columns[i]
		c.nulls += e.stats[i].Nulls
		c.compressed += e.chunkLen(i)
		c.decoded += e.decoded[i]
		c.encodings[names[i]]++
		t.compressed += e.chunkLen(i)
		t.decoded += e.decoded[i]
	}
}

// BudgetError is the error of a Put that would pass the budget.
type BudgetError struct {
	Table  string
	Need   int64 // bytes the put held when it stopped, plus the batch it could not add
	Used   int64 // bytes held by other tables and puts at that moment
	Budget int64
}

func (e *BudgetError) Error() string {
	return fmt.Sprintf("cache: table %q does not fit: it needs more than %d compressed bytes, %d of the %d-byte budget are in use by other tables (drop a table, raise the budget, or choose a smaller codec)",
		e.Table, e.Need, e.Used, e.Budget)
}

func (e *BudgetError) Is(target error) bool { return target == ErrBudget }

// ChunkError is a scan's failure on a stored chunk.
type ChunkError struct {
	Table  string
	Batch  int
	Column string
	Err    error
}

func (e *ChunkError) Error() string {
	return fmt.Sprintf("cache: table %q batch %d column %q: %v", e.Table, e.Batch, e.Column, e.Err)
}

func (e *ChunkError) Unwrap() error { return e.Err }
