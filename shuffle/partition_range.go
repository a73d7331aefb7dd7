package shuffle

import (
	"bytes"
	"fmt"
	"sort"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/quiverdb/quiver/sortkey"
)

// Partitioner gives each row of a batch a partition: the ids a
// Repartitioner's Add and Split take. HashPartitioner spreads keys
// (equal keys together, any order between partitions); RangePartitioner
// cuts the sort order into ranges (partition p's keys all sort before
// partition p+1's). Neither is safe for concurrent use: one per
// goroutine.
type Partitioner interface {
	// Partition appends to dst the partition of each of the n rows of
	// keys (its key columns).
	Partition(dst []uint16, keys []arrow.Array, n int) ([]uint16, error)
	// Release frees the partitioner's buffers.
	Release()
}

var (
	_ Partitioner = (*HashPartitioner)(nil)
	_ Partitioner = (*RangePartitioner)(nil)
)

// RangePartitioner maps rows to partitions by ranges of their sort key,
// as Spark's RangePartitioner does: a row's key is its normalized key
// (package sortkey: bytes.Compare order is the ORDER BY order, NULLS
// FIRST or LAST and DESC included), and R-1 increasing bounds, normalized
// keys too, cut the order into R ranges. Partition p holds the keys above
// bound p-1 and up to bound p (Spark's rule: the first bound at or above
// the key; past the last bound, the last partition). So every key of
// partition p sorts at or before every key of p+1, equal keys share a
// partition, and sorting each partition and concatenating them in order
// sorts the whole.
//
// The bounds come from a sample of the keys (KeySampler, RangeBounds),
// the same for every map task of a shuffle. Fewer bounds than R-1 (a
// sample of few distinct keys) leave the last partitions empty.
type RangePartitioner struct {
	enc      *sortkey.Encoder
	bounds   [][]byte
	prefixes []uint64 // of bounds: most comparisons end on them
	rows     sortkey.Rows
}

// NewRangePartitioner returns a partitioner by the sort key of fields
// into len(bounds)+1 partitions (at most 65,536). bounds must be strictly
// increasing normalized keys of fields (RangeBounds returns such).
func NewRangePartitioner(fields []sortkey.SortField, bounds [][]byte) (*RangePartitioner, error) {
	if len(bounds) >= 1<<16 {
		return nil, fmt.Errorf("shuffle: %d range bounds, at most 65535", len(bounds))
	}
	for i := 1; i < len(bounds); i++ {
		if bytes.Compare(bounds[i-1], bounds[i]) >= 0 {
			return nil, fmt.Errorf("shuffle: range bound %d does not sort after bound %d", i, i-1)
		}
	}
	enc, err := sortkey.NewEncoder(fields)
	if err != nil {
		return nil, err
	}
	p := &RangePartitioner{enc: enc, bounds: bounds, prefixes: make([]uint64, len(bounds))}
	for i, b := range bounds {
		p.prefixes[i] = sortkey.Prefix(b)
	}
	return p, nil
}

// Fanout returns the partitions: the bounds and one.
func (p *RangePartitioner) Fanout() int { return len(p.bounds) + 1 }

// Partition appends to dst the partition of each of the n rows of keys,
// the sort-key columns in the order of the partitioner's fields.
func (p *RangePartitioner) Partition(dst []uint16, keys []arrow.Array, n int) ([]uint16, error) {
	if len(p.bounds) == 0 {
		for range n {
			dst = append(dst, 0)
		}
		return dst, nil
	}
	p.rows.Reset()
	if err := p.enc.Encode(&p.rows, keys); err != nil {
		return dst, err
	}
	if p.rows.Len() != n {
		return dst, fmt.Errorf("shuffle: range partition of %d rows, the key columns hold %d", n, p.rows.Len())
	}
	for i := range n {
		dst = append(dst, uint16(p.search(p.rows.Row(i))))
	}
	return dst, nil
}

// search returns the first bound at or above key (len(bounds) past them
// all): a binary search on the bounds' 8-byte prefixes, the full keys
// compared only where the prefixes tie.
func (p *RangePartitioner) search(key []byte) int {
	kp := sortkey.Prefix(key)
	return sort.Search(len(p.bounds), func(i int) bool {
		if bp := p.prefixes[i]; bp != kp {
			return bp > kp
		}
		return bytes.Compare(p.bounds[i], key) >= 0
	})
}

// Release frees the key buffer.
func (p *RangePartitioner) Release() { p.rows = sortkey.Rows{} }
