package shuffle

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/quiverdb/quiver/sortkey"
)

// WeightedKey is a sampled normalized key and the rows it stands for.
type WeightedKey struct {
	Key    []byte
	Weight float64
}

// KeySampler draws a uniform sample of the normalized keys of the rows
// added (reservoir sampling, Vitter's algorithm R): a map task's sample,
// as Spark's RangePartitioner.sketch draws one per partition of the
// input. Every key of the sample stands for Seen()/len rows (Sample), so
// samples of map tasks of different sizes combine by concatenation. Not
// safe for concurrent use.
type KeySampler struct {
	enc  *sortkey.Encoder
	size int
	seen int64
	keys [][]byte
	rng  *rand.Rand
	rows sortkey.Rows
	last []byte // the key of the last row added
	up   int64  // rows whose key is above the row's before
	down int64  // rows whose key is below the row's before
}

// NewKeySampler returns a sampler of up to size keys of fields, drawn by
// a generator of the given seed (a fixed seed, a repeatable sample).
func NewKeySampler(fields []sortkey.SortField, size int, seed uint64) (*KeySampler, error) {
	if size < 1 {
		return nil, fmt.Errorf("shuffle: key sample of %d keys", size)
	}
	enc, err := sortkey.NewEncoder(fields)
	if err != nil {
		return nil, err
	}
	return &KeySampler{enc: enc, size: size, rng: rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))}, nil
}

// Add samples the rows of keys, the sort-key columns in the order of the
// sampler's fields.
func (s *KeySampler) Add(keys []arrow.Array) error {
	s.rows.Reset()
	if err := s.enc.Encode(&s.rows, keys); err != nil {
		return err
	}
	for i := range s.rows.Len() {
		k := s.rows.Row(i)
		if s.seen > 0 {
			switch c := bytes.Compare(k, s.last); {
			case c > 0:
				s.up++
			case c < 0:
				s.down++
			}
		}
		s.last = append(s.last[:0], k...)
		s.seen++
		switch {
		case len(s.keys) < s.size:
			s.keys = append(s.keys, slices.Clone(k))
		default:
			if j := s.rng.Int64N(s.seen); j < int64(s.size) {
				s.keys[j] = append(s.keys[j][:0], k...)
			}
		}
	}
	return nil
}

// Ordered returns how much the rows added were in key order already: of
// the consecutive rows whose keys differ, the share whose key goes the
// way most of them go, up or down (1: sorted one way or the other; about
// one half: no order; 0 without two different keys). A sample of rows
// that came in key order stands for the rows before and after them only
// when the order is not the input's: an input clustered by the key
// shows it here.
func (s *KeySampler) Ordered() float64 {
	if s.up+s.down == 0 {
		return 0
	}
	return float64(max(s.up, s.down)) / float64(s.up+s.down)
}

// Seen returns the rows added.
func (s *KeySampler) Seen() int64 { return s.seen }

// Sample returns the keys drawn, each weighing the rows it stands for.
// They are the sampler's own: Add may change them.
func (s *KeySampler) Sample() []WeightedKey {
	out := make([]WeightedKey, len(s.keys))
	w := float64(s.seen) / float64(max(len(s.keys), 1))
	for i, k := range s.keys {
		out[i] = WeightedKey{Key: k, Weight: w}
	}
	return out
}

// RangeBounds chooses up to partitions-1 strictly increasing bounds from
// a weighted sample (of one sampler or the concatenated samples of many)
// that cut it into ranges of about equal weight: Spark's
// RangePartitioner.determineBounds, with two changes for skew. The
// target of each range is the weight left over the ranges left, not a
// fixed step, so one heavy key that overfills a range does not make the
// ranges after it tiny; and where a range's target falls inside the
// weight of one key (a heavy key: equal keys share a range), the bound
// is that key or the one before it, whichever leaves the range nearer
// its target, and a key that outweighs a range's share is closed in a
// range of its own. No bound is the largest key (that would leave the
// last range empty). Returns nil, one range, for a sample of one
// distinct key or none. Keys of no positive weight are left out. The
// sample's slice is sorted in place.
func RangeBounds(sample []WeightedKey, partitions int) [][]byte {
	if partitions < 2 || len(sample) == 0 {
		return nil
	}
	slices.SortFunc(sample, func(a, b WeightedKey) int { return bytes.Compare(a.Key, b.Key) })
	keys := sample[:0:0]
	total := 0.0
	for _, k := range sample { // distinct keys, their weights summed
		if !(k.Weight > 0) {
			continue // no rows (or NaN): not a key of the input
		}
		total += k.Weight
		if n := len(keys); n > 0 && bytes.Equal(keys[n-1].Key, k.Key) {
			keys[n-1].Weight += k.Weight
			continue
		}
		keys = append(keys, k)
	}
	var bounds [][]byte
	closed, cum := 0.0, 0.0 // the weight of the ranges closed; of the keys so far
	prev := -1              // the key of the last bound
	last := len(keys) - 1
	for i, k := range keys {
		if len(bounds) == partitions-1 {
			break
		}
		target := (total - closed) / float64(partitions-len(bounds))
		before := cum - closed
		cum += k.Weight
		after := cum - closed
		if after < target {
			continue
		}
		if i-1 > prev && (i == last || target-before < after-target) {
			// The range ends before k, which starts the next one,
			// and closes it too when it outweighs that one's share.
			bounds = append(bounds, slices.Clone(keys[i-1].Key))
			closed, prev = cum-k.Weight, i-1
			if i < last && len(bounds) < partitions-1 && k.Weight >= (total-closed)/float64(partitions-len(bounds)) {
				bounds = append(bounds, slices.Clone(k.Key))
				closed, prev = cum, i
			}
			continue
		}
		if i < last {
			bounds = append(bounds, slices.Clone(k.Key))
			closed, prev = cum, i
		}
	}
	return bounds
}
