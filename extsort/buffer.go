package extsort

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/quiverdb/quiver/sortkey"
)

// buffer is what the sorter holds in memory: batches in input order. Keys
// are not held: they are sort scratch, encoded when a part of the buffer is
// sorted and dropped after, so a row held costs its bytes and a share of
// the scratch a sort needs (see Sorter.share), not its key (for a string
// key, about as much again as the string).
//
// A part is sorted all at once: one radix sort of 16-byte items, then one
// gather of each column in sorted order. (Sorting each batch as it comes
// and merging them instead moves every value twice; BenchmarkInterleave shows
// a random-order gather of a row costs less than two sequential ones.)
type buffer struct {
	batches []arrow.RecordBatch
	sizes   []int64 // accounted for each batch: its bytes and its share
	shares  []int64 // of sizes, the share of sort scratch
	rows    int64
	bytes   int64 // the sum of sizes
	shared  int64 // the sum of shares
}

// itemBytes is what one row costs a sort besides its batch and key: its
// item, and the item's copy in the radix sort's scratch. A run kept in
// memory holds the item alone.
const (
	itemBytes = 2 * sortkey.ItemBytes
	heldItem  = sortkey.ItemBytes
)

func (b *buffer) add(rec arrow.RecordBatch, size, share int64) {
	b.batches = append(b.batches, rec)
	b.sizes = append(b.sizes, size)
	b.shares = append(b.shares, share)
	b.rows += rec.NumRows()
	b.bytes += size
	b.shared += share
}

// split moves the first n batches out into a buffer of their own.
func (b *buffer) split(n int) buffer {
	var head, rest buffer
	for i := range b.batches {
		to := &rest
		if i < n {
			to = &head
		}
		to.add(b.batches[i], b.sizes[i], b.shares[i])
	}
	*b = rest
	return head
}

// take moves the buffer's contents out, leaving it empty.
func (b *buffer) take() buffer {
	t := *b
	*b = buffer{}
	return t
}

// release drops the batches.
func (b *buffer) release() {
	for _, r := range b.batches {
		r.Release()
	}
	*b = buffer{}
}

// scratch is the keys and items of a sort of some of the buffer's
// batches, and what they are accounted beyond the buffer's shares.
type scratch struct {
	keys  []*sortkey.Rows
	items []sortkey.Item
	extra int64 // grown on the account for them; shrunk by drop
}

// keyBytes is what the keys of the segments' rows take, with offsets.
func (sc *scratch) keyBytes(segs []segment) int64 {
	var n int64
	for _, sg := range segs {
		k := sc.keys[sg.src]
		for i := sg.start; i < sg.start+sg.n; i++ {
			n += int64(len(k.Row(i))) + 4
		}
	}
	return n
}

// sortBatches encodes the keys of batches and sorts their rows (ties in
// input order), keeping the first limit when limit > 0. The scratch is
// accounted on top of pool, the shares already accounted for it (the
// whole buffer's: only one part is sorted at a time); drop gives it back.
func (s *Sorter) sortBatches(batches []arrow.RecordBatch, limit, pool int64) (*scratch, error) {
	sc := &scratch{keys: make([]*sortkey.Rows, len(batches))}
	var size, rows int64
	for i, rec := range batches {
		k := s.newRows()
		if err := s.enc.Encode(k, s.keyColumns(rec)); err != nil {
			s.recycle(k)
			s.dropKeys(sc)
			return nil, err
		}
		sc.keys[i] = k
		size += int64(k.DataBytes()) + 4*int64(k.Len()+1)
		rows += rec.NumRows()
		s.keyBytes += int64(k.DataBytes())
		s.keyRows += rec.NumRows()
	}
	size += itemBytes * rows
	sc.extra = max(size-pool, 0)
	s.acct.grow(sc.extra)
	sc.items = make([]sortkey.Item, 0, rows)
	for i, k := range sc.keys {
		sc.items = sortkey.AppendItems(sc.items, k, uint32(i))
	}
	s.sorter.Sort(sc.items, sc.keys)
	s.sorter.Free() // its scratch is accounted in size only while it sorts
	if limit > 0 && int64(len(sc.items)) > limit {
		sc.items = sc.items[:limit]
	}
	return sc, nil
}

// dropKeys recycles the scratch's keys (the items may live on in a memRun).
func (s *Sorter) dropKeys(sc *scratch) {
	for _, k := range sc.keys {
		if k != nil {
			s.recycle(k)
		}
	}
	sc.keys = nil
}

// drop gives the scratch back: keys to the free list, bytes to the
// account. Items are not kept for the next sort: idle between sorts, they
// would be memory the account does not see.
func (s *Sorter) drop(sc *scratch) {
	s.dropKeys(sc)
	sc.items = nil
	s.acct.shrink(sc.extra)
	sc.extra = 0
}

// chunks emits items in batches of n rows gathered from srcs.
type chunks struct {
	items []sortkey.Item
	n     int
	g     Interleave
}

// next fills g with the next chunk's rows and reports whether there was
// one.
func (c *chunks) next() bool {
	c.g.Reset()
	if len(c.items) == 0 {
		return false
	}
	k := min(c.n, len(c.items))
	for _, it := range c.items[:k] {
		c.g.Add(int(it.Batch), int(it.Row))
	}
	c.items = c.items[k:]
	return true
}
