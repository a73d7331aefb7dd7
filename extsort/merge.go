package extsort

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/internal/arrowsize"
	"github.com/quiverdb/quiver/sortkey"
	"github.com/quiverdb/quiver/spill"
)

// Source is one sorted run a Merge reads: a spill file's reader
// (*spill.Reader), batches held in memory, or anything else that hands out
// record batches in key order. The Merge owns it: Close releases it.
type Source interface {
	Next() bool
	RecordBatch() arrow.RecordBatch
	Err() error
	Release()
}

// MergeConfig configures a Merge.
type MergeConfig struct {
	// Schema is every run's. A batch of other column types fails the
	// merge with spill.ErrCorrupt: the spill package checks the bytes of
	// a file, this that it is a file of this merge.
	Schema *arrow.Schema
	// Keys are the order every run is sorted in. With none, every row's
	// key is empty: the runs are read one after the other.
	Keys []Key
	// GroupKeys is how many of the leading Keys make a row's group, for
	// GroupKey and TiesTogether: len(Keys), or fewer when the runs are
	// sorted within each group by more keys (count(DISTINCT)'s pairs of
	// group and value). 0: every row is of one group.
	GroupKeys int
	// Mem allocates the output batches; nil: memory.DefaultAllocator.
	Mem memory.Allocator
	// Workers is how many goroutines interleave the columns of an output
	// batch; 0: 1.
	Workers int
	// Charge, when set, is told of each change in what the merge's
	// cursors hold (a batch of each run and its keys): positive when
	// they hold more, negative when less. Close brings the sum to zero.
	Charge func(delta int64)
}

// Ties says what Merge.Next does with rows of equal keys (from one run or
// several: a tie goes to the earlier run).
type Ties uint8

const (
	// TiesSplit hands out every row; a batch of rows rows may end between
	// equal keys (a sort).
	TiesSplit Ties = iota
	// TiesTogether hands out every row and never splits a group (equal
	// GroupKey) between batches: a batch has at least rows rows, or is
	// the last, and the caller combines each group's rows in one go (GROUP
	// BY merges the partial states of equal keys).
	TiesTogether
	// TiesFirst hands out the first row of each key and drops the others
	// (a union of sorted sets: count(DISTINCT)'s pairs).
	TiesFirst
)

// Merge merges sorted runs with a loser tree over their head rows'
// normalized keys (package sortkey): each row costs log2(runs)
// comparisons of bytes, and when one run wins several times in a row
// (TiesSplit) the merge gallops: it finds with a binary search how many of
// that run's rows come before the best other run's head, and hands them
// over as one stretch. Output batches are interleaved from the runs'
// batches (Interleave). It is what a Sorter merges its runs with, and what
// GROUP BY's spill (package agg) merges its runs of partial states with.
// A Merge is not safe for concurrent use.
type Merge struct {
	cfg     MergeConfig
	keyCols []int
	enc     *sortkey.Encoder // of Keys; nil without keys
	genc    *sortkey.Encoder // of the group keys, when fewer than Keys
	cursors []*cursor        // in run order: a tie goes to the lower index
	tree    []int            // tree[0] the winner, tree[1:] the loser of each match
	srcs    []arrow.RecordBatch
	g       Interleave
	streak  int // times in a row the same cursor has won
	last    int
	prev    []byte // the key of the last group or row handed out
	hasPrev bool
	peak    int64 // the most one cursor held
	closed  bool
}

// cursor reads one run during a merge: its current batch, that batch's
// keys and the next row to hand out.
type cursor struct {
	r     Source
	name  string
	batch arrow.RecordBatch // current; the cursor holds a reference
	keys  sortkey.Rows      // of batch
	group sortkey.Rows      // of batch's group keys, with MergeConfig.GroupKeys < len(Keys)
	pos   int
	src   int   // index of batch in the merge's sources, -1 if not there
	bytes int64 // charged for batch and keys
	done  bool
}

// gallopAfter is how many wins in a row make the merge gallop: random
// interleavings rarely get there, runs of already ordered data at once.
const gallopAfter = 4

// NewMerge merges srcs (named in errors by names), in that order: a tie
// goes to the earlier. It owns srcs and returns with each one's first
// batch read; on error everything is released.
func NewMerge(cfg MergeConfig, srcs []Source, names []string) (*Merge, error) {
	m := &Merge{cfg: cfg, last: -1}
	for i, r := range srcs {
		m.cursors = append(m.cursors, &cursor{r: r, name: names[i], src: -1})
	}
	if err := m.init(); err != nil {
		m.Close()
		return nil, err
	}
	for _, c := range m.cursors {
		if err := m.load(c); err != nil {
			m.Close()
			return nil, err
		}
	}
	m.build()
	return m, nil
}

func (m *Merge) init() error {
	cfg := &m.cfg
	if cfg.Mem == nil {
		cfg.Mem = memory.DefaultAllocator
	}
	cfg.Workers = max(cfg.Workers, 1)
	if cfg.GroupKeys < 0 || cfg.GroupKeys > len(cfg.Keys) {
		return fmt.Errorf("%w: %d group keys of %d keys", ErrInput, cfg.GroupKeys, len(cfg.Keys))
	}
	fields := make([]sortkey.SortField, len(cfg.Keys))
	for i, k := range cfg.Keys {
		if k.Col < 0 || k.Col >= cfg.Schema.NumFields() {
			return fmt.Errorf("%w: key %d names column %d of %d", ErrInput, i, k.Col, cfg.Schema.NumFields())
		}
		fields[i] = sortkey.SortField{Type: cfg.Schema.Field(k.Col).Type, Desc: k.Desc, NullsFirst: k.NullsFirst}
		m.keyCols = append(m.keyCols, k.Col)
	}
	var err error
	if len(fields) > 0 {
		if m.enc, err = sortkey.NewEncoder(fields); err != nil {
			return fmt.Errorf("%w: %w", ErrInput, err)
		}
	}
	if g := cfg.GroupKeys; g > 0 && g < len(fields) {
		if m.genc, err = sortkey.NewEncoder(fields[:g]); err != nil {
			return fmt.Errorf("%w: %w", ErrInput, err)
		}
	}
	return nil
}

// load moves c to its run's next non-empty batch, or marks it done.
func (m *Merge) load(c *cursor) error {
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
			m.charge(c, 0)
			return nil
		}
		if c.r.RecordBatch().NumRows() > 0 {
			break
		}
	}
	rec := c.r.RecordBatch()
	if err := sameTypes(rec.Schema(), m.cfg.Schema); err != nil {
		return fmt.Errorf("%w: run %s: %w", spill.ErrCorrupt, c.name, err)
	}
	c.batch = rec
	c.batch.Retain()
	if err := m.encode(c); err != nil {
		return fmt.Errorf("extsort: run %s: %w", c.name, err)
	}
	m.charge(c, arrowsize.Record(c.batch)+c.keys.Size()+c.group.Size())
	m.peak = max(m.peak, c.bytes)
	return nil
}

// encode makes the keys (and group keys) of c's batch.
func (m *Merge) encode(c *cursor) error {
	c.keys.Reset()
	c.group.Reset()
	if m.enc == nil {
		for range c.batch.NumRows() {
			c.keys.Append(nil)
		}
		return nil
	}
	cols := make([]arrow.Array, len(m.keyCols))
	for i, k := range m.keyCols {
		cols[i] = c.batch.Column(k)
	}
	if err := m.enc.Encode(&c.keys, cols); err != nil {
		return err
	}
	if m.genc != nil {
		return m.genc.Encode(&c.group, cols[:m.cfg.GroupKeys])
	}
	return nil
}

// charge moves c's charge to n bytes.
func (m *Merge) charge(c *cursor, n int64) {
	if m.cfg.Charge != nil && n != c.bytes {
		m.cfg.Charge(n - c.bytes)
	}
	c.bytes = n
}

// sameTypes checks that got has want's column types.
func sameTypes(got, want *arrow.Schema) error {
	if got.NumFields() != want.NumFields() {
		return fmt.Errorf("%d columns, want %d", got.NumFields(), want.NumFields())
	}
	for i, f := range want.Fields() {
		if !arrow.TypeEqual(got.Field(i).Type, f.Type) {
			return fmt.Errorf("column %d is %s, want %s", i, got.Field(i).Type, f.Type)
		}
	}
	return nil
}

func (c *cursor) key() []byte { return c.keys.Row(c.pos) }

// less reports whether cursor a's head comes before cursor b's: a done
// cursor comes after everything, a tie goes to the earlier run.
func (m *Merge) less(a, b int) bool {
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
func (m *Merge) build() {
	k := len(m.cursors)
	m.tree = make([]int, max(k, 1))
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
func (m *Merge) replay(w int) {
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
func (m *Merge) runnerUp(w int) int {
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

// head is the cursor of the smallest head row, nil when every run is done.
func (m *Merge) head() *cursor {
	if len(m.cursors) == 0 {
		return nil
	}
	if c := m.cursors[m.tree[0]]; !c.done {
		return c
	}
	return nil
}

// Head reports whether a row is left: the head row, the smallest.
func (m *Merge) Head() bool { return m.head() != nil }

// Key is the head row's normalized key (of all Keys). It is valid until
// the merge moves on.
func (m *Merge) Key() []byte { return m.head().key() }

// GroupKey is the head row's normalized group key (of the first
// GroupKeys Keys), valid until the merge moves on.
func (m *Merge) GroupKey() []byte { return m.groupKey(m.head()) }

func (m *Merge) groupKey(c *cursor) []byte {
	switch {
	case m.genc != nil:
		return c.group.Row(c.pos)
	case m.cfg.GroupKeys == 0:
		return nil
	}
	return c.key()
}

// Skip moves past the head row without handing it out.
func (m *Merge) Skip() error { return m.advance(m.tree[0], 1) }

// advance moves cursor w past n rows.
func (m *Merge) advance(w, n int) error {
	c := m.cursors[w]
	c.pos += n
	if c.pos == int(c.batch.NumRows()) {
		if err := m.load(c); err != nil {
			return err
		}
	}
	m.replay(w)
	return nil
}

// source returns c's batch's index among the sources of the output batch
// being interleaved, adding it.
func (m *Merge) source(c *cursor) int {
	if c.src < 0 {
		c.batch.Retain()
		m.srcs = append(m.srcs, c.batch)
		c.src = len(m.srcs) - 1
	}
	return c.src
}

// take hands out n rows of cursor w from its position.
func (m *Merge) take(w, n int) error {
	c := m.cursors[w]
	m.g.AddRange(m.source(c), c.pos, n)
	return m.advance(w, n)
}

// Next returns the next batch of the merged rows in key order, of rows
// rows (more or fewer as ties says), or nil when every run is done. keys,
// when not nil, gets the group key of each group the batch starts
// (TiesTogether) or the key of each row (TiesFirst). It checks ctx once a
// batch.
func (m *Merge) Next(ctx context.Context, rows int, ties Ties, keys *sortkey.Rows) (arrow.RecordBatch, error) {
	if m.closed {
		return nil, errors.New("extsort: Merge.Next after Close")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var err error
	switch ties {
	case TiesSplit:
		err = m.split(rows)
	case TiesTogether:
		err = m.together(rows, keys)
	case TiesFirst:
		err = m.first(rows, keys)
	default:
		panic(fmt.Sprintf("extsort: Ties(%d)", ties))
	}
	if err != nil {
		m.dropOutput()
		return nil, err
	}
	return m.output()
}

func (m *Merge) split(rows int) error {
	for m.g.rows < rows {
		c := m.head()
		if c == nil {
			return nil
		}
		w := m.tree[0]
		n := 1
		if w == m.last {
			m.streak++
		} else {
			m.streak, m.last = 0, w
		}
		if m.streak >= gallopAfter {
			n = m.gallop(w, rows-m.g.rows)
		}
		if err := m.take(w, n); err != nil {
			return err
		}
	}
	return nil
}

func (m *Merge) together(rows int, keys *sortkey.Rows) error {
	for c := m.head(); c != nil; c = m.head() {
		if k := m.groupKey(c); !m.isPrev(k) {
			if m.g.rows >= rows {
				return nil
			}
			m.handOut(k, keys)
		}
		if err := m.take(m.tree[0], 1); err != nil {
			return err
		}
	}
	return nil
}

func (m *Merge) first(rows int, keys *sortkey.Rows) error {
	for c := m.head(); c != nil && m.g.rows < rows; c = m.head() {
		var err error
		if k := c.key(); m.isPrev(k) {
			err = m.Skip()
		} else {
			m.handOut(k, keys)
			err = m.take(m.tree[0], 1)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// isPrev reports whether k is the last key handed out.
func (m *Merge) isPrev(k []byte) bool { return m.hasPrev && bytes.Equal(k, m.prev) }

// handOut notes k as the last key handed out, and appends it to keys.
func (m *Merge) handOut(k []byte, keys *sortkey.Rows) {
	m.prev, m.hasPrev = append(m.prev[:0], k...), true
	if keys != nil {
		keys.Append(k)
	}
}

// output interleaves the rows handed out into a batch, nil when none.
func (m *Merge) output() (arrow.RecordBatch, error) {
	defer m.dropOutput()
	if m.g.rows == 0 {
		return nil, nil
	}
	return m.g.Record(m.cfg.Mem, m.cfg.Schema, m.srcs, m.cfg.Workers)
}

// dropOutput forgets the rows handed out and the batches they refer to.
func (m *Merge) dropOutput() {
	m.g.Reset()
	for _, b := range m.srcs {
		b.Release()
	}
	clear(m.srcs)
	m.srcs = m.srcs[:0]
	for _, c := range m.cursors {
		c.src = -1
	}
}

// gallop returns how many of winner w's rows from its position, at most
// limit and at least 1, come before the runner-up's head.
func (m *Merge) gallop(w, limit int) int {
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

// CursorBytes is the most one run's batch and keys held at once so far:
// what a merge of these runs needs per run.
func (m *Merge) CursorBytes() int64 { return m.peak }

// Close releases the runs and whatever the merge holds. It is safe to
// call more than once.
func (m *Merge) Close() {
	if m.closed {
		return
	}
	m.closed = true
	m.dropOutput()
	for _, c := range m.cursors {
		if c.batch != nil {
			c.batch.Release()
			c.batch = nil
		}
		m.charge(c, 0)
		c.r.Release()
	}
	m.cursors = nil
}
