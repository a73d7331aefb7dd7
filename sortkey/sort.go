package sortkey

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"slices"
)

// Item is one row of a sort: where the row lives (batch and row of the
// Rows the sort is given) and scratch the sort keeps the current 8 bytes
// of its key in. 16 bytes, so the sort moves small values and compares
// most pairs without touching the key buffers.
type Item struct {
	Batch, Row uint32
	prefix     uint64
}

// AppendItems appends an Item for each key of rows, all of batch b.
func AppendItems(dst []Item, rows *Rows, b uint32) []Item {
	dst = slices.Grow(dst, rows.Len())
	for i := range rows.Len() {
		dst = append(dst, Item{Batch: b, Row: uint32(i)})
	}
	return dst
}

// Sorter sorts Items by their keys. It keeps scratch between sorts; one
// Sorter serves one goroutine.
type Sorter struct {
	keys []*Rows
	pos  []int // fixed-width keys: the byte positions that differ between keys
	tmp  []Item
}

// Free drops the scratch the Sorter keeps between sorts (ItemBytes an
// item of the largest sort so far), for callers that account their memory.
func (s *Sorter) Free() {
	s.tmp = nil
	s.pos = nil
}

// ItemBytes is the size of an Item, and the scratch Sort takes per item
// beyond the items (a radix pass scatters them into a second array):
// callers that account memory charge a sort of n rows n*ItemBytes for the
// items and as much again while it sorts, from this constant.
const ItemBytes = 16

// smallSort is the size under which a group is sorted by whole keys
// rather than 8 bytes at a time.
const smallSort = 16

// Sort orders items by their keys, keys[item.Batch].Row(item.Row), ties
// by (Batch, Row): with batches numbered in input order, a stable sort.
//
// It is an MSD radix sort whose digits are 8 bytes: items are sorted by
// their key's next 8 bytes, held in the item, so comparisons do not read
// the key buffers, and only groups whose 8 bytes tie go on to the next 8.
// Byte positions every key agrees on are skipped: when all keys have one
// length (fixed-width fields only) the positions that differ anywhere are
// found once, so that constant bytes (null bytes of columns without NULLs,
// high bytes of small integers) cost nothing and TPC-H's (l_linenumber,
// l_suppkey, l_orderkey) sorts on one 6-byte digit; otherwise each group
// first skips the prefix all its keys share.
func (s *Sorter) Sort(items []Item, keys []*Rows) {
	if len(items) < 2 {
		return
	}
	s.keys = keys
	defer func() { s.keys = nil }()
	if !slices.IsSortedFunc(items, position) {
		// The digit sorts keep ties in the order items come in.
		slices.SortFunc(items, position)
	}
	if s.fixedPositions(items) {
		s.sortFixed(items, 0)
		return
	}
	s.sortVar(items, 0)
}

func (s *Sorter) key(it Item) []byte { return s.keys[it.Batch].Row(int(it.Row)) }

func position(a, b Item) int {
	if a.Batch != b.Batch {
		return cmp.Compare(a.Batch, b.Batch)
	}
	return cmp.Compare(a.Row, b.Row)
}

func byPrefix(a, b Item) int {
	if a.prefix != b.prefix {
		return cmp.Compare(a.prefix, b.prefix)
	}
	return position(a, b)
}

// fixedPositions reports whether every key has the same length and, if
// so, sets s.pos to the positions where some key differs from the first.
func (s *Sorter) fixedPositions(items []Item) bool {
	first := s.key(items[0])
	diff := make([]byte, len(first))
	for _, it := range items[1:] {
		k := s.key(it)
		if len(k) != len(first) {
			return false
		}
		for i := range k {
			diff[i] |= k[i] ^ first[i]
		}
	}
	s.pos = s.pos[:0]
	for i, d := range diff {
		if d != 0 {
			s.pos = append(s.pos, i)
		}
	}
	return true
}

// sortFixed sorts items on key bytes s.pos[d:], 8 at a time.
func (s *Sorter) sortFixed(items []Item, d int) {
	if d >= len(s.pos) {
		slices.SortFunc(items, position) // equal keys
		return
	}
	pos := s.pos[d:min(d+8, len(s.pos))]
	for i := range items {
		k := s.key(items[i])
		var p uint64
		for _, at := range pos {
			p = p<<8 | uint64(k[at])
		}
		items[i].prefix = p << (8 * (8 - len(pos)))
	}
	s.sortPrefix(items)
	if d+8 >= len(s.pos) {
		return
	}
	forRuns(items, func(run []Item) { s.sortFixed(run, d+8) })
}

// forRuns calls f on each run of two or more items with equal prefixes.
func forRuns(items []Item, f func([]Item)) {
	for i := 0; i < len(items); {
		j := i + 1
		for j < len(items) && items[j].prefix == items[i].prefix {
			j++
		}
		if j-i > 1 {
			f(items[i:j])
		}
		i = j
	}
}

// sortVar sorts items whose keys agree on their first d bytes.
func (s *Sorter) sortVar(items []Item, d int) {
	if len(items) <= smallSort {
		slices.SortFunc(items, func(a, b Item) int {
			if c := bytes.Compare(s.key(a)[d:], s.key(b)[d:]); c != 0 {
				return c
			}
			return position(a, b)
		})
		return
	}
	d = s.commonPrefix(items, d)
	ended := false
	for i := range items {
		k := s.key(items[i])[d:]
		if len(k) >= 8 {
			items[i].prefix = binary.BigEndian.Uint64(k)
			continue
		}
		var b [8]byte
		copy(b[:], k)
		items[i].prefix = binary.BigEndian.Uint64(b[:])
		ended = true
	}
	s.sortPrefix(items)
	forRuns(items, func(run []Item) {
		if !ended {
			s.sortVar(run, d+8)
			return
		}
		s.splitEnded(run, d)
	})
}

// splitEnded finishes a run of equal 8-byte digits at d where some keys
// may end within the digit. A key that ends there is a prefix of every
// longer key of the run (the digit zero-pads it and the others match the
// padding), so the ended keys go first, by length (then position: equal
// length means equal keys), and the longer keys after them, sorted on.
func (s *Sorter) splitEnded(run []Item, d int) {
	s.tmp = s.tmp[:0]
	n := 0
	for _, it := range run {
		if len(s.key(it)) <= d+8 {
			run[n] = it
			n++
		} else {
			s.tmp = append(s.tmp, it)
		}
	}
	copy(run[n:], s.tmp)
	short, long := run[:n], run[n:]
	if len(short) > 1 {
		slices.SortFunc(short, func(a, b Item) int {
			if c := cmp.Compare(len(s.key(a)), len(s.key(b))); c != 0 {
				return c
			}
			return position(a, b)
		})
	}
	if len(long) > 1 {
		s.sortVar(long, d+8)
	}
}

// commonPrefix returns how far past d all items' keys agree.
func (s *Sorter) commonPrefix(items []Item, d int) int {
	first := s.key(items[0])
	n := len(first) - d
	for _, it := range items[1:] {
		k := s.key(it)
		m := min(n, len(k)-d)
		l := 0
		for l < m && k[d+l] == first[d+l] {
			l++
		}
		n = l
		if n == 0 {
			return d
		}
	}
	return d + n
}

// radixMin is the group size from which sortPrefix radix-sorts: below
// it pdqsort's comparisons cost less than eight passes of histograms.
const radixMin = 256

// sortPrefix sorts items by (prefix, position). Items arrive in position
// order (AppendItems appends them so, and every level leaves ties in it),
// so a stable LSD radix sort on the prefix alone is enough: one counting
// pass for all eight bytes, then a scatter per byte that is not the same
// in every item.
func (s *Sorter) sortPrefix(items []Item) {
	if len(items) < radixMin {
		slices.SortFunc(items, byPrefix)
		return
	}
	if slices.IsSortedFunc(items, byPrefix) {
		return // input already in key order: one pass, not eight
	}
	var counts [8][256]int
	for _, it := range items {
		p := it.prefix
		for b := range 8 {
			counts[b][byte(p>>(8*b))]++
		}
	}
	s.tmp = slices.Grow(s.tmp[:0], len(items))[:len(items)]
	src, dst := items, s.tmp
	for b := range 8 {
		c := &counts[b]
		if c[byte(src[0].prefix>>(8*b))] == len(items) {
			continue // every item has this byte
		}
		var next [256]int
		sum := 0
		for v := range 256 {
			next[v] = sum
			sum += c[v]
		}
		shift := 8 * b
		for _, it := range src {
			v := byte(it.prefix >> shift)
			dst[next[v]] = it
			next[v]++
		}
		src, dst = dst, src
	}
	if &src[0] != &items[0] {
		copy(items, src)
	}
}
