package extsort

import (
	"bytes"
	"context"
	"fmt"
	"sort"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/quiverdb/quiver/internal/arrowsize"
	"github.com/quiverdb/quiver/sortkey"
)

// cursor reads one run during a merge: its current batch, that batch's
// keys and the next row to hand out.
type cursor struct {
	r     runSource
	name  string
	batch arrow.RecordBatch // current; the cursor holds a reference
	keys  *sortkey.Rows     // of batch (&own)
	own   sortkey.Rows
	pos   int
	src   int   // index of batch in the merger's sources, -1 if not there
	bytes int64 // accounted for batch and own keys
	done  bool
}

func (c *cursor) key() []byte { return c.keys.Row(c.pos) }

// merger merges runs with a loser tree: each row costs log2(runs)
// comparisons of normalized keys, and when one run wins several times in
// a row the merger gallops (finds with a binary search how many of that
// run's rows come before the best other run's head, and copies them as
// one stretch).
type merger struct {
	s       *Sorter
	enc     *sortkey.Encoder
	cursors []*cursor // in run order: a tie goes to the lower index
	tree    []int     // tree[0] the winner, tree[1:] the loser of each match
	srcs    []arrow.RecordBatch
	g       Interleave
	left    int64 // rows still to hand out with a Limit; -1 all
	streak  int   // times in a row the same cursor has won
	last    int
}

// gallopAfter is how many wins in a row make the merger gallop: random
// interleavings rarely get there, runs of already ordered data at once.
const gallopAfter = 4

// newMerger merges srcs, in input order, and owns them: closing the
// merger releases them. It returns with each source's first batch read;
// on error everything is released.
func (s *Sorter) newMerger(srcs []runSource, names []string) (*merger, error) {
	enc, err := sortkey.NewEncoder(s.enc.Fields())
	if err != nil {
		for _, r := range srcs {
			r.Release()
		}
		return nil, err
	}
	m := &merger{s: s, enc: enc, left: -1, last: -1}
	if s.topK() {
		m.left = s.cfg.Limit
	}
	for i, r := range srcs {
		m.cursors = append(m.cursors, &cursor{r: r, name: names[i], src: -1})
	}
	for _, c := range m.cursors {
		if err := m.load(c); err != nil {
			m.close()
			return nil, err
		}
	}
	m.build()
	return m, nil
}

// openMerge opens a merge of runs, then of mems (which come after them in
// input order), each read ahead on a goroutine. The merger reads runs but
// does not own them; it owns mems.
func (s *Sorter) openMerge(ctx context.Context, runs []*run, mems []*memRun) (*merger, error) {
	var srcs []runSource
	var names []string
	for _, r := range runs {
		rd, err := r.file.Open(s.cfg.Mem)
		if err != nil {
			for _, x := range srcs {
				x.Release()
			}
			for _, m := range mems {
				m.Release()
			}
			return nil, fmt.Errorf("extsort: opening run %s: %w", r.file.Path(), err)
		}
		srcs = append(srcs, newPrefetch(rd))
		names = append(names, r.file.Path())
	}
	for _, m := range mems {
		srcs = append(srcs, newPrefetch(m))
		names = append(names, "rows kept in memory")
	}
	m, err := s.newMerger(srcs, names)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		m.close()
		return nil, err
	}
	return m, nil
}

// load moves c to its run's next batch, or marks it done.
func (m *merger) load(c *cursor) error {
	if c.batch != nil {
		c.batch.Release()
		c.batch = nil
	}
	c.src = -1
	c.pos = 0
	for {
		if !c.r.Next() {
			if err := c.r.Err(); err != nil {
				return fmt.Errorf("extsort: reading run %s: %w", c.name, err)
			}
			c.done = true
			m.unaccount(c)
			return nil
		}
		if c.r.RecordBatch().NumRows() > 0 {
			break
		}
	}
	c.batch = c.r.RecordBatch()
	c.batch.Retain()
	c.own.Reset()
	if err := m.enc.Encode(&c.own, m.s.keyColumns(c.batch)); err != nil {
		return fmt.Errorf("extsort: run %s: %w", c.name, err)
	}
	c.keys = &c.own
	n := arrowsize.Record(c.batch) + c.own.Size()
	m.s.acct.resize(c.bytes, n)
	c.bytes = n
	return nil
}

// less reports whether cursor a's head comes before cursor b's: a done
// cursor comes after everything, a tie goes to the earlier run.
func (m *merger) less(a, b int) bool {
	ca, cb := m.cursors[a], m.cursors[b]
	switch {
	case ca.done:
		return false
	case cb.done:
		return true
	}
	if c := bytes.Compare(ca.key(), cb.key()); c != 0 {
		return c < 0
	}
	return a < b
}

// build plays the whole tournament: leaves k..2k-1 are the cursors, node
// n's children are 2n and 2n+1.
func (m *merger) build() {
	k := len(m.cursors)
	m.tree = make([]int, k)
	if k <= 1 {
		return
	}
	win := make([]int, 2*k)
	for i := range k {
		win[k+i] = i
	}
	for n := k - 1; n >= 1; n-- {
		a, b := win[2*n], win[2*n+1]
		if m.less(a, b) {
			win[n], m.tree[n] = a, b
		} else {
			win[n], m.tree[n] = b, a
		}
	}
	m.tree[0] = win[1]
}

// replay re-plays cursor w's matches from its leaf up, after its head
// changed.
func (m *merger) replay(w int) {
	k := len(m.cursors)
	for n := (w + k) / 2; n >= 1; n /= 2 {
		if m.less(m.tree[n], w) {
			m.tree[n], w = w, m.tree[n]
		}
	}
	m.tree[0] = w
}

// runnerUp is the best head but the winner's: the best of the losers on
// the winner's path. -1 when every other cursor is done.
func (m *merger) runnerUp(w int) int {
	k := len(m.cursors)
	best := -1
	for n := (w + k) / 2; n >= 1; n /= 2 {
		if l := m.tree[n]; best < 0 || m.less(l, best) {
			best = l
		}
	}
	if best >= 0 && m.cursors[best].done {
		return -1
	}
	return best
}

// source returns c's batch's index among the sources of the output batch
// being gathered, adding it.
func (m *merger) source(c *cursor) int {
	if c.src < 0 {
		c.batch.Retain()
		m.srcs = append(m.srcs, c.batch)
		c.src = len(m.srcs) - 1
	}
	return c.src
}

// next returns the next merged batch of up to BatchRows rows, or nil at
// the end.
func (m *merger) next() (arrow.RecordBatch, error) {
	if len(m.cursors) == 0 {
		return nil, nil // nothing to merge: no input
	}
	want := m.s.cfg.BatchRows
	if m.left >= 0 {
		want = int(min(int64(want), m.left))
	}
	for m.g.rows < want {
		w := m.tree[0]
		c := m.cursors[w]
		if c.done {
			break
		}
		n := 1
		if w == m.last {
			m.streak++
		} else {
			m.streak, m.last = 0, w
		}
		if m.streak >= gallopAfter {
			n = m.gallop(w, want-m.g.rows)
		}
		m.g.AddRange(m.source(c), c.pos, n)
		c.pos += n
		if c.pos == int(c.batch.NumRows()) {
			if err := m.load(c); err != nil {
				return nil, err
			}
		}
		m.replay(w)
	}
	if m.g.rows == 0 {
		return nil, nil
	}
	rec, err := m.g.Record(m.s.cfg.Mem, m.s.schema, m.srcs, m.s.cfg.Workers)
	if m.left >= 0 {
		m.left -= int64(m.g.rows)
	}
	m.g.Reset()
	for _, b := range m.srcs {
		b.Release()
	}
	clear(m.srcs)
	m.srcs = m.srcs[:0]
	for _, c := range m.cursors {
		c.src = -1
	}
	return rec, err
}

// gallop returns how many of winner w's rows from its position, at most
// limit and at least 1, come before the runner-up's head.
func (m *merger) gallop(w, limit int) int {
	c := m.cursors[w]
	n := min(limit, int(c.batch.NumRows())-c.pos)
	r := m.runnerUp(w)
	if r < 0 {
		return n
	}
	head := m.cursors[r].key()
	before := func(i int) bool { // row c.pos+i comes before the runner-up
		x := bytes.Compare(c.keys.Row(c.pos+i), head)
		return x < 0 || x == 0 && w < r
	}
	return max(1, sort.Search(n, func(i int) bool { return !before(i) }))
}

// unaccount gives back what c's batch was accounted.
func (m *merger) unaccount(c *cursor) {
	if c.bytes != 0 {
		m.s.acct.shrink(c.bytes)
		c.bytes = 0
	}
}

// close releases the cursors and whatever the output under way refers to.
func (m *merger) close() {
	for _, c := range m.cursors {
		if c.batch != nil {
			c.batch.Release()
			c.batch = nil
		}
		m.unaccount(c)
		c.r.Release()
	}
	m.cursors = nil
	for _, b := range m.srcs {
		b.Release()
	}
	m.srcs = nil
}

// fanIn is how many runs one merge reads at once: MaxOpenFiles, fewer
// when the memory limit does not hold a read buffer for each (never fewer
// than 2).
func (s *Sorter) fanIn() int {
	var per int64
	for _, r := range s.runs {
		per = max(per, r.readBytes())
	}
	f := s.cfg.MaxOpenFiles
	if per > 0 {
		f = int(min(int64(f), s.acct.b.Available()/per))
	}
	return max(f, 2)
}

// mergePasses merges runs until one merge can read all that are left.
// Only neighbours are merged, into the place of the first, so the runs
// stay in input order and ties keep it. When a few merges of f runs at the
// front bring the count down to f, only those are done; otherwise a full
// pass merges every group of f, so each pass divides the runs by f and
// every row is rewritten log_f(runs) times, not once per merge.
func (s *Sorter) mergePasses(ctx context.Context) error {
	for {
		f := s.fanIn()
		n := len(s.runs)
		if n <= f {
			return nil
		}
		groups := (n - f + f - 2) / (f - 1) // merges of f that bring n to f
		if groups*f > n {
			groups = (n + f - 1) / f // a full pass
		}
		var next []*run
		for g := range groups {
			lo, hi := g*f, min(g*f+f, n)
			if hi-lo == 1 {
				next = append(next, s.runs[lo])
				continue
			}
			merged, err := s.mergeRuns(ctx, s.runs[lo:hi])
			if err != nil {
				return err
			}
			s.removeRuns(s.runs[lo:hi])
			// Keep s.runs owning every file not yet removed.
			for i := lo; i < hi; i++ {
				s.runs[i] = nil
			}
			s.runs[lo] = merged
			next = append(next, merged)
		}
		next = append(next, s.runs[min(groups*f, n):]...)
		s.runs = next
		s.metrics.MergePasses++
	}
}

// mergeRuns merges runs into a new run.
func (s *Sorter) mergeRuns(ctx context.Context, runs []*run) (*run, error) {
	m, err := s.openMerge(ctx, runs, nil)
	if err != nil {
		return nil, err
	}
	defer m.close()
	rw, err := s.newRun()
	if err != nil {
		return nil, err
	}
	for {
		if err := ctx.Err(); err != nil {
			rw.abort()
			return nil, err
		}
		rec, err := m.next()
		if err != nil {
			rw.abort()
			return nil, err
		}
		if rec == nil {
			break
		}
		// The merged batch's keys are not at hand; its inputs' bound it.
		if err := rw.write(rec, maxKeyBytes(runs)); err != nil {
			rw.abort()
			return nil, err
		}
	}
	return rw.finish()
}

func maxKeyBytes(runs []*run) int64 {
	var n int64
	for _, r := range runs {
		n = max(n, r.maxKeyBytes)
	}
	return n
}
