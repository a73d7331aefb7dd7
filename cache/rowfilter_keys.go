package cache

import (
	"fmt"
	"math/bits"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// KeyFilter is a row test whose set of integers arrives while the scan
// runs: the keys of a hash join's build side, sent to the scan of its
// probe side, so the rows that cannot join are dropped before the scan
// decodes (and the join gathers) their other columns. Until Publish, it
// passes every row and is never evaluated. After, a row passes when its
// value may be one of the keys — a superset test: a row not among them may
// pass (a Bloom filter's false positive), and the join drops it as it
// would have anyway. NULL never passes.
//
// The set is, for keys that lie densely in their range (at most 64
// values of the range per key, or 2^23 values in all: 1 MiB), an exact
// bitmap over the range; otherwise a Bloom filter of 16 bits per key, one
// 64-bit word per key (a blocked Bloom filter: one cache line touched per
// row), about 0.2% false positives.
//
// It works on columns of signed or unsigned integers up to 64 bits and
// dates (the stored integer). It prunes no batch by statistics itself:
// ScanOptions.Skip serves that.
type KeyFilter struct {
	Col  int    // the table column
	Name string // for String
	set  atomic.Pointer[keySet]
	// Dropped counts the rows the filter dropped.
	Dropped atomic.Int64
}

// keySet is a published set: lo…hi is the keys' range (a value outside
// it never passes), words the bitmap or the Bloom filter.
type keySet struct {
	lo, hi int64
	words  []uint64
	bloom  bool
	shift  uint8   // Bloom: 64 - log2(len(words))
	share  float64 // the expected share of a batch's rows that pass
}

// Dense bitmaps are built for ranges of at most keyBitsPerKey values per
// key, or keyBitsSmall in all.
const (
	keyBitsPerKey = 64
	keyBitsSmall  = 1 << 23
	bloomBits     = 16 // per key
)

// KeySetBytes is the memory Publish takes for keys build keys over the
// range lo…hi.
func KeySetBytes(keys int, lo, hi int64) int64 {
	if exactKeys(keys, lo, hi) {
		return int64((uint64(hi)-uint64(lo))/64+1) * 8
	}
	return int64(bloomWords(keys)) * 8
}

// exactKeys reports whether keys values over lo…hi get an exact bitmap
// (else a Bloom filter).
func exactKeys(keys int, lo, hi int64) bool {
	span := uint64(hi) - uint64(lo)
	return span < keyBitsSmall || span/keyBitsPerKey < uint64(keys)
}

func bloomWords(keys int) int {
	return 1 << bits.Len(uint(max(1, keys*bloomBits/64)-1))
}

// Publish sets the keys: the non-NULL values of the int64 or date32 arrays
// cols, whose range is lo…hi and which count keys values in all. share is
// the share of the probe side's rows expected to pass, which orders the
// scan's row tests. Publish once, before or while the scan runs; batches
// decoded before it are not filtered.
func (f *KeyFilter) Publish(cols []arrow.Array, keys int, lo, hi int64, share float64) {
	s := &keySet{lo: lo, hi: hi, share: share}
	if exactKeys(keys, lo, hi) {
		s.words = make([]uint64, (uint64(hi)-uint64(lo))/64+1)
	} else {
		s.bloom = true
		s.words = make([]uint64, bloomWords(keys))
		s.shift = uint8(64 - bits.Len(uint(len(s.words)-1)))
	}
	for _, c := range cols {
		switch a := c.(type) {
		case *array.Int64:
			addKeys(s, a.Int64Values(), a)
		case *array.Date32:
			addKeys(s, a.Date32Values(), a)
		}
	}
	f.set.Store(s)
}

func addKeys[T int64 | arrow.Date32](s *keySet, vals []T, a arrow.Array) {
	for i, v := range vals {
		if a.IsNull(i) {
			continue
		}
		if s.bloom {
			w, m := s.bloomSlot(int64(v))
			s.words[w] |= m
			continue
		}
		k := uint64(int64(v)) - uint64(s.lo)
		s.words[k>>6] |= 1 << (k & 63)
	}
}

// bloomSlot is the word of v and the 4 bits it sets there.
func (s *keySet) bloomSlot(v int64) (int, uint64) {
	h := uint64(v) * 0x9e3779b97f4a7c15
	w := int(h >> s.shift)
	h ^= h >> 29
	h *= 0xbf58476d1ce4e5b9
	return w, 1<<(h&63) | 1<<(h>>6&63) | 1<<(h>>12&63) | 1<<(h>>18&63)
}

func (f *KeyFilter) String() string { return fmt.Sprintf("%s IN (a join's keys)", f.Name) }

// prune proves nothing: the keys are not known when the scan plans.
func (f *KeyFilter) prune([]ColumnStats) (neverTrue, neverFalse bool) { return false, false }

// keyTest is a KeyFilter as a row test.
type keyTest struct{ f *KeyFilter }

func keyTestOf(schema *arrow.Schema, p Predicate) (rowTest, bool) {
	f, ok := p.(*KeyFilter)
	if !ok || f.Col < 0 || f.Col >= schema.NumFields() {
		return nil, false
	}
	switch schema.Field(f.Col).Type.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.DATE32:
		return keyTest{f}, true
	}
	return nil, false
}

func (t keyTest) column() int { return t.f.Col }

// estimate: not yet published, every row passes without a test; then the
// batch's bounds outside the keys' range pass none.
func (t keyTest) estimate(st ColumnStats) (share float64, all bool) {
	s := t.f.set.Load()
	if s == nil {
		return 1, true
	}
	if st.HasBounds && st.Min.Kind == KindInt && st.Max.Kind == KindInt && (st.Max.I < s.lo || st.Min.I > s.hi) {
		return 0, false
	}
	return s.share, false
}

func (t keyTest) keep(c *filterCol, sel []int32, all bool, n int) []int32 {
	s := t.f.set.Load()
	if s == nil || c.isNarrow { // a narrowed column is a decimal: never a key here
		return sel
	}
	a := c.arr
	d := a.Data()
	off := d.Offset()
	vals := d.Buffers()[1].Bytes()
	var out []int32
	switch a.DataType().ID() {
	case arrow.INT8:
		out = keepKeys(s, arrow.GetData[int8](vals)[off:], sel, all, n)
	case arrow.INT16:
		out = keepKeys(s, arrow.GetData[int16](vals)[off:], sel, all, n)
	case arrow.INT32, arrow.DATE32:
		out = keepKeys(s, arrow.GetData[int32](vals)[off:], sel, all, n)
	case arrow.INT64:
		out = keepKeys(s, arrow.GetData[int64](vals)[off:], sel, all, n)
	case arrow.UINT8:
		out = keepKeys(s, arrow.GetData[uint8](vals)[off:], sel, all, n)
	case arrow.UINT16:
		out = keepKeys(s, arrow.GetData[uint16](vals)[off:], sel, all, n)
	case arrow.UINT32:
		out = keepKeys(s, arrow.GetData[uint32](vals)[off:], sel, all, n)
	default:
		return sel
	}
	if a.NullN() > 0 {
		kept := out[:0]
		for _, r := range out {
			if a.IsValid(int(r)) {
				kept = append(kept, r)
			}
		}
		out = kept
	}
	before := len(sel)
	if all {
		before = n
	}
	t.f.Dropped.Add(int64(before - len(out)))
	return out
}

// keepKeys returns the rows of sel (every row of n when all; sel is then
// scratch of n) whose value may be in s, written over sel.
func keepKeys[T int8 | int16 | int32 | int64 | uint8 | uint16 | uint32](s *keySet, vals []T, sel []int32, all bool, n int) []int32 {
	words, lo := s.words, uint64(s.lo)
	span := uint64(s.hi) - lo
	may := func(v int64) bool {
		if uint64(v)-lo > span {
			return false
		}
		if s.bloom {
			w, m := s.bloomSlot(v)
			return words[w]&m == m
		}
		k := uint64(v) - lo
		return words[k>>6]&(1<<(k&63)) != 0
	}
	if all { // every row: no selection of all rows written first to be read back
		sel = sel[:0]
		for i, v := range vals[:n] {
			if may(int64(v)) {
				sel = append(sel, int32(i))
			}
		}
		return sel
	}
	out := sel[:0] // written behind the reading
	for _, r := range sel {
		if may(int64(vals[r])) {
			out = append(out, r)
		}
	}
	return out
}
