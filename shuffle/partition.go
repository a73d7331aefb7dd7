package shuffle

import (
	"fmt"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/quiverdb/quiver/query/agg"
)

// HashPartitioner maps rows to partitions by their key columns: one seeded
// hash of the tuple of keys (agg.KeyHasher, the hash of GROUP BY's and a
// join's tables, with a seed of its own), whose top bits are the
// partition. Equal tuples go to one partition, whatever batch or side
// they come from, so two sides partitioned with the same seed and fanout
// join partition by partition. A hash table built over one partition
// draws its own random seed: its slots are spread by bits independent of
// the ones that chose the partition. Partitioning one partition again
// with another seed splits it about evenly, unless its rows share one
// key. The engine's grace hash join partitions with it, and a map task
// of a shuffle would (Split then cuts a batch by the ids).
//
// Without keys every row is in partition 0. A row with a NULL key is
// placed like any other (NULL hashes as a value); the caller decides
// what such rows mean (the grace join writes NULL keys aside).
type HashPartitioner struct {
	h      *agg.KeyHasher // nil without keys
	shift  uint           // 64 - log2(fanout)
	fanout int
	hashes []uint64
	rows   []uint32
}

// NewHashPartitioner returns a partitioner into fanout partitions (a
// power of two, at most 1<<16) by keys of the given types (those
// agg.NewKeyHasher takes: the engine's). Release it when done.
func NewHashPartitioner(types []arrow.DataType, seed uint64, fanout int) (*HashPartitioner, error) {
	if fanout < 1 || fanout > 1<<16 || fanout&(fanout-1) != 0 {
		return nil, fmt.Errorf("shuffle: partitioner fanout %d is not a power of two up to 65536", fanout)
	}
	p := &HashPartitioner{fanout: fanout, shift: uint(64 - bits.TrailingZeros(uint(fanout)))}
	if len(types) == 0 {
		return p, nil
	}
	h, err := agg.NewKeyHasher(types, seed)
	if err != nil {
		return nil, err
	}
	p.h = h
	return p, nil
}

// Partition appends to dst the partition of each of the n rows of keys.
// A HashPartitioner is not safe for concurrent use: one per goroutine.
func (p *HashPartitioner) Partition(dst []uint16, keys []arrow.Array, n int) ([]uint16, error) {
	if p.h == nil || p.fanout == 1 {
		for range n {
			dst = append(dst, 0)
		}
		return dst, nil
	}
	if cap(p.hashes) < n {
		p.hashes = make([]uint64, n)
	}
	p.hashes = p.hashes[:n]
	if cap(p.rows) < n {
		p.rows = make([]uint32, n)
		for r := range p.rows {
			p.rows[r] = uint32(r)
		}
	}
	if err := p.h.Hash(keys, p.rows[:n], p.hashes); err != nil {
		return dst, err
	}
	for _, h := range p.hashes[:n] {
		dst = append(dst, uint16(h>>p.shift))
	}
	return dst, nil
}

// Release frees the hasher's buffers.
func (p *HashPartitioner) Release() {
	if p.h != nil {
		p.h.Release()
	}
}
