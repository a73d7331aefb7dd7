package agg

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
)

// KeyHasher hashes tuples of keys as a KeyTable does (hash.go: equal
// tuples hash equal, -0.0 as 0.0, every NaN as one, NULL as nullHash), but
// with a seed the caller chooses instead of a random one: a hash join that
// partitions its sides by key needs both sides, and every run of the
// partitioning, to agree, and a seed of its own so that the rows of one
// partition still spread over its hash table's slots.
//
// It is not safe for concurrent use; each goroutine makes its own.
type KeyHasher struct {
	types []arrow.DataType
	acct  account
	cols  []keyColumn
	seed  uint64
}

// NewKeyHasher returns a hasher of tuples of keys of keyTypes (engine
// types, as NewKeyTable takes).
func NewKeyHasher(keyTypes []arrow.DataType, seed uint64) (*KeyHasher, error) {
	if len(keyTypes) == 0 {
		return nil, fmt.Errorf("%w: a hasher of no keys", ErrInput)
	}
	h := &KeyHasher{types: keyTypes, seed: seed}
	for i, dt := range keyTypes {
		if !supported(dt) {
			return nil, fmt.Errorf("%w: key %d of type %v", ErrUnsupported, i, dt)
		}
		h.cols = append(h.cols, newKeyColumn(&h.acct, dt))
	}
	return h, nil
}

// Hash sets hashes[r], for every r in rows, to the hash of the tuple
// (keys[0][r], keys[1][r], …). keys are arrays of the hasher's types and
// of one length n, which hashes must cover.
func (h *KeyHasher) Hash(keys []arrow.Array, rows []uint32, hashes []uint64) error {
	if len(keys) != len(h.types) {
		return fmt.Errorf("%w: %d keys, want %d", ErrInput, len(keys), len(h.types))
	}
	n := -1
	for j, a := range keys {
		want := h.types[j]
		if sameScaleDecimals(a.DataType(), want) {
			want = a.DataType() // hashed by its unscaled value, as KeyTable keys are
		}
		if err := checkColumn(a, want, "key", j, &n); err != nil {
			return err
		}
	}
	if len(hashes) < n {
		return fmt.Errorf("%w: %d hashes for %d rows", ErrInput, len(hashes), n)
	}
	return bindHash(h.cols, keys, h.seed, hashes, rows)
}

// Release frees the hasher's scratch.
func (h *KeyHasher) Release() {
	for _, c := range h.cols {
		c.release()
	}
}
