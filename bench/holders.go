package bench

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/cache"
)

// The ways of holding a relation that `quiver bench cache` compares: the
// cache at one codec setting, and two peers measured in the same run, the
// records kept uncompressed in memory (the physical limit of a read) and
// arrow-go IPC streams compressed with WithLZ4 or WithZstd.

// holder is one way of holding a relation.
type holder interface {
	// materialize builds the holder's copy of the relation and returns
	// its footprint in bytes.
	materialize(ctx context.Context) (int64, error)
	// read runs q and returns its answer and how many batches it decoded
	// of how many the relation has.
	read(ctx context.Context, q *query) (a answer, decoded, batches int, err error)
	// drop lets the copy go.
	drop()
}

// memHolder is the records themselves: nothing to build, nothing to
// decode, the summing alone.
type memHolder struct {
	rel     *relation
	scratch []arrow.Array
}

func (m *memHolder) materialize(context.Context) (int64, error) { return m.rel.bytes, nil }

func (m *memHolder) read(_ context.Context, q *query) (answer, int, int, error) {
	a := q.answer()
	for _, r := range m.rel.recs {
		m.scratch = q.project(m.scratch[:0], r)
		if err := q.tally(&a, r.NumRows(), m.scratch); err != nil {
			return a, 0, 0, err
		}
	}
	return a, len(m.rel.recs), len(m.rel.recs), nil
}

func (m *memHolder) drop() {}

// cacheHolder is the relation Put in a cache.Cache at one setting.
type cacheHolder struct {
	rel        *relation
	c          *cache.Cache
	name       string
	opts       cache.TableOptions
	goroutines int
	info       cache.TableInfo // of the last materialize
	scratch    []arrow.Array
}

func newCacheHolder(rel *relation, c *cache.Cache, s cache.CodecSetting, goroutines int) *cacheHolder {
	return &cacheHolder{
		rel: rel, c: c, name: rel.spec.Name() + "/" + s.String(),
		opts: cache.TableOptions{Codec: s, Concurrency: goroutines}, goroutines: goroutines,
	}
}

func (h *cacheHolder) materialize(ctx context.Context) (int64, error) {
	rr, err := array.NewRecordReader(h.rel.schema, h.rel.recs)
	if err != nil {
		return 0, err
	}
	defer rr.Release()
	h.info, err = h.c.Put(ctx, h.name, rr, h.opts)
	if err != nil {
		return 0, fmt.Errorf("put %s: %w", h.name, err)
	}
	return h.info.Compressed, nil
}

func (h *cacheHolder) read(ctx context.Context, q *query) (answer, int, int, error) {
	a := q.answer()
	opts := cache.ScanOptions{Columns: q.cols, Concurrency: h.goroutines}
	if q.filter != nil {
		opts.Filter = q.filter.predicate()
	}
	s, err := h.c.Scan(ctx, h.name, opts)
	if err != nil {
		return a, 0, 0, fmt.Errorf("scan %s %s: %w", h.name, q.label, err)
	}
	defer s.Release()
	defer func() { clear(h.scratch) }() // let the last batch's arrays go
	for s.Next() {
		rec := s.RecordBatch()
		h.scratch = append(h.scratch[:0], rec.Columns()...)
		if err := q.tally(&a, rec.NumRows(), h.scratch); err != nil {
			return a, 0, 0, fmt.Errorf("scan %s: %w", h.name, err)
		}
	}
	if err := s.Err(); err != nil {
		return a, 0, 0, fmt.Errorf("scan %s %s: %w", h.name, q.label, err)
	}
	m := s.Metrics()
	return a, m.Decoded, m.Batches, nil
}

func (h *cacheHolder) drop() { h.c.Drop(h.name) }

// choices summarizes what the table's columns use, e.g. "codecs zstd:1
// ×4, lz4 ×2; encodings delta ×3, lengths ×3": what auto chose, and why a
// footprint is what it is.
func (h *cacheHolder) choices() string {
	codecs, encs := map[string]int{}, map[string]int{}
	for _, c := range h.info.Columns {
		codecs[c.Codec.String()]++
		encs[c.Encoding]++
	}
	return "codecs " + counts(codecs) + "; encodings " + counts(encs)
}

// counts lists "key ×n" by key; a key that is itself a list ("for 61,
// delta 1": a column whose batches differ) is parenthesized.
func counts(m map[string]int) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		label := k
		if strings.Contains(k, ",") {
			label = "(" + k + ")"
		}
		parts = append(parts, fmt.Sprintf("%s ×%d", label, m[k]))
	}
	return strings.Join(parts, ", ")
}

// arrowGoHolder is an arrow-go IPC stream of the relation in memory
// (arrowGoIPC, shared with `bench codecs`). arrow-go's reader decodes
// every column of every batch whatever a query needs. As in `bench
// codecs`, the stream's buffer keeps its capacity from run to run, so a
// timed materialize does not include growing it (a Put does allocate).
type arrowGoHolder struct {
	rel     *relation
	ipc     *arrowGoIPC
	scratch []arrow.Array
}

func newArrowGoHolder(rel *relation, codec string, goroutines int, mem memory.Allocator, buf *bytes.Buffer) *arrowGoHolder {
	return &arrowGoHolder{rel: rel, ipc: newArrowGoIPC(rel.recs, codec, goroutines, mem, buf)}
}

func (h *arrowGoHolder) materialize(context.Context) (int64, error) { return h.ipc.encode() }

func (h *arrowGoHolder) read(_ context.Context, q *query) (answer, int, int, error) {
	a, n := q.answer(), 0
	defer func() { clear(h.scratch) }()
	err := h.ipc.decode(func(_ int, rec arrow.RecordBatch) error {
		n++
		h.scratch = q.project(h.scratch[:0], rec)
		return q.tally(&a, rec.NumRows(), h.scratch)
	})
	return a, n, n, err
}

func (h *arrowGoHolder) drop() {}
