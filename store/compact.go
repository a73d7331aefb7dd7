package store

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/quiverdb/quiver/cache"
)

// Compaction is when and how the store merges a table's small appends
// (doc.go, "Compaction"). The zero value is the default policy.
type Compaction struct {
	// Files: the background compacts a table once it has more than Files
	// small chunk files (holding fewer than Rows rows: appends not yet
	// merged), or a chunk file whose batches average fewer than Rows/4
	// rows; default DefaultCompactFiles. Negative: never in the
	// background (Store.Compact still does).
	Files int
	// Rows is the rows of a compacted batch (the last of a run may hold
	// fewer); default DefaultCompactRows, at most MaxCompactRows.
	Rows int
}

// Compaction defaults and limits. DefaultCompactRows is the batch size
// quiver's loaders send (convert.DefaultBatchRows): a bulk ingest of such
// batches is full-size already and is never rewritten.
const (
	DefaultCompactFiles = 8
	DefaultCompactRows  = 8192
	MaxCompactRows      = 1 << 24
)

// Validate reports a policy the store cannot follow.
func (p Compaction) Validate() error {
	if p.Rows < 0 || p.Rows > MaxCompactRows {
		return fmt.Errorf("store: compaction batches of %d rows: want 1 to %d (0: the default %d)", p.Rows, MaxCompactRows, DefaultCompactRows)
	}
	return nil
}

func (p Compaction) withDefaults() Compaction {
	if p.Files == 0 {
		p.Files = DefaultCompactFiles
	}
	if p.Rows == 0 {
		p.Rows = DefaultCompactRows
	}
	return p
}

// segment is the batches [from, to) of one chunk file, in table order.
type segment struct {
	from, to int
	rows     int64
}

// segments are m's batches grouped by chunk file, in table order (each
// change writes one file, so a file's batches are consecutive).
func segments(m *manifest) []segment {
	var segs []segment
	for i, loc := range m.locs {
		if i == 0 || loc.file != m.locs[i-1].file {
			segs = append(segs, segment{from: i, to: i})
		}
		seg := &segs[len(segs)-1]
		seg.to++
		seg.rows += m.img.Batches[i].Rows
	}
	return segs
}

// loose reports whether seg's batches average under a quarter of the
// target: many small batches, worth merging even in a file of its own.
func (p Compaction) loose(seg segment) bool {
	n := int64(seg.to - seg.from)
	return n >= 2 && seg.rows < n*int64(p.Rows)/4
}

// pick chooses the batches a compaction of m merges: the longest run of
// consecutive chunk files each holding fewer than Rows rows (or loose),
// when merging it gains something (two files or more, or one loose).
// A file rewritten this way holds batches of Rows rows but its last, so
// it is not picked again once it holds Rows rows: an append is rewritten
// at most until its rows fill a batch.
func (p Compaction) pick(m *manifest) (from, to int, ok bool) {
	segs := segments(m)
	best, bestLen := -1, 0
	for i := 0; i < len(segs); {
		j := i
		for j < len(segs) && (segs[j].rows < int64(p.Rows) || p.loose(segs[j])) {
			j++
		}
		if n := j - i; n > bestLen && (n >= 2 || p.loose(segs[i])) {
			best, bestLen = i, n
		}
		i = max(j, i+1)
	}
	if best < 0 {
		return 0, 0, false
	}
	return segs[best].from, segs[best+bestLen-1].to, true
}

// due reports whether the background should compact m.
func (p Compaction) due(m *manifest) bool {
	if p.Files < 0 || m == nil {
		return false
	}
	if _, _, ok := p.pick(m); !ok {
		return false
	}
	small := 0
	for _, seg := range segments(m) {
		if p.loose(seg) {
			return true
		}
		if seg.rows < int64(p.Rows) {
			small++
		}
	}
	return small > p.Files
}

// Compact merges the batches of table name that the policy picks (see
// Compaction) into batches of Rows rows in a new chunk file, with the
// rule of every change: the file synced, then the manifest replaced, then
// the cache, then the old files removed; a crash or a failure at any step
// leaves the old table or the new one, the same rows in the same order.
// The merging runs without holding the table, so appends go on meanwhile
// and are kept after the merged batches; a Put or Drop meanwhile makes it
// give up. It reports whether it changed the table.
func (s *Store) Compact(ctx context.Context, name string) (bool, error) {
	t, err := s.lockState(name)
	if err != nil {
		return false, err
	}
	m, gen := t.m, t.gen
	if t.compacting { // the one running queues the table again when done
		t.compactAgain = true
		t.mu.Unlock()
		return false, nil
	}
	var from, to int
	ok := m != nil && cache.Compactable(m.img.Schema)
	if ok {
		from, to, ok = s.compaction.pick(m)
	}
	if ok {
		to = s.fitBudget(m, from, to)
		ok = to-from >= 2
	}
	if !ok {
		t.mu.Unlock()
		return false, nil
	}
	t.compacting = true
	seq := t.reserveSeq(m)
	t.mu.Unlock()
	done, err := s.compact(ctx, t, m, gen, seq, from, to)
	t.mu.Lock()
	t.compacting = false
	if t.compactAgain { // asked for while this ran
		t.compactAgain = false
		s.queueIfDue(name, t)
	}
	t.mu.Unlock()
	if err != nil {
		return false, s.diskFull(name, "compacted", fmt.Errorf("store: compacting table %q: %w", name, err))
	}
	return done, nil
}

// compact merges batches [from, to) of m (the cache's generation gen)
// into chunk file seq and commits them over t's manifest then.
func (s *Store) compact(ctx context.Context, t *tableState, m *manifest, gen, seq uint64, from, to int) (bool, error) {
	name := m.img.Name
	ch, err := s.cache.PrepareCompact(ctx, name, gen, from, to, s.compaction.Rows)
	if errors.Is(err, cache.ErrConflict) {
		return false, nil // changed since: its change queues it again
	}
	if err != nil {
		return false, err
	}
	defer ch.Abort()
	img := ch.Image()
	w, err := s.writeBatches(m.id, seq, img.Schema, img.Batches, ch)
	if err != nil {
		return false, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.broken != nil || !samePrefix(t.m, m, to) { // put or dropped meanwhile
		w.discard(s)
		return false, t.broken
	}
	next := rebased(t.m, from, to, w)
	if _, err := s.install(t, next, w, ch.Commit); err != nil {
		if errors.Is(err, cache.ErrConflict) && t.broken == nil {
			return false, nil
		}
		return false, err
	}
	return true, nil
}

// fitBudget shortens the batches [from, to) a compaction merges to those
// whose chunks fit in half the budget the cache has free: the new batches
// are held while they are encoded and written, and a compaction must not
// take the room a client's change needs (it runs again after the next
// change; the batches left are merged then).
func (s *Store) fitBudget(m *manifest, from, to int) int {
	room := (s.cache.Budget() - s.cache.Used()) / 2
	for i := from; i < to; i++ {
		for _, n := range m.img.Batches[i].Sizes {
			room -= n
		}
		if room < 0 {
			return i
		}
	}
	return to
}

// samePrefix reports whether cur's first n batches are m's: the table the
// compaction read, maybe appended to since.
func samePrefix(cur, m *manifest, n int) bool {
	if cur == nil || cur.id != m.id || len(cur.locs) < n {
		return false
	}
	for i := range n {
		a, b := cur.locs[i], m.locs[i]
		if a.offset != b.offset || cur.files[a.file] != m.files[b.file] {
			return false
		}
	}
	return true
}

// rebased is cur with batches [from, to) replaced by w's: the files no
// batch names any more are left out, w's added, in seq order.
func rebased(cur *manifest, from, to int, w *newFile) *manifest {
	next := *cur
	type place struct {
		seq    uint64
		offset int64
	}
	n := len(cur.locs) - (to - from) + len(w.batches)
	next.img.Batches = make([]cache.BatchImage, 0, n)
	places := make([]place, 0, n)
	sizes := map[uint64]int64{w.file.seq: w.size}
	keep := func(i int) {
		f := cur.files[cur.locs[i].file]
		next.img.Batches = append(next.img.Batches, cur.img.Batches[i])
		places = append(places, place{f.seq, cur.locs[i].offset})
		sizes[f.seq] = f.size
	}
	for i := range from {
		keep(i)
	}
	for i, b := range w.batches {
		next.img.Batches = append(next.img.Batches, b)
		places = append(places, place{w.file.seq, w.offsets[i]})
	}
	for i := to; i < len(cur.locs); i++ {
		keep(i)
	}
	next.files = next.files[:0:0]
	for seq, size := range sizes {
		next.files = append(next.files, fileRef{seq: seq, size: size})
	}
	slices.SortFunc(next.files, func(a, b fileRef) int { return cmp.Compare(a.seq, b.seq) })
	index := make(map[uint64]int, len(next.files))
	for i, f := range next.files {
		index[f.seq] = i
	}
	next.locs = make([]batchLoc, len(places))
	for i, p := range places {
		next.locs[i] = batchLoc{file: index[p.seq], offset: p.offset}
	}
	next.nextSeq = max(cur.nextSeq, w.file.seq+1)
	return &next
}
