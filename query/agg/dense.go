package agg

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// A dense index maps a single integer key straight to its tuple id,
// without hashing: ids[v-lo] is the id + 1 of key v, 0 when no tuple has
// it. DuckDB calls this a perfect hash join. Most join keys of a star or
// snowflake schema are dense integers (TPC-H's: 1…n, or a quarter of
// 1…4n for orders), so a build side of n keys spans a few n values, and
// its index is an array of a few n uint32s: a probe row costs a
// subtraction, a compare and one load, where the hash table costs a hash,
// a slot walk with a branch that mispredicts whenever matches and misses
// mix, and a key compare.
//
//	ids:  [ id(lo)+1 | 0 | id(lo+2)+1 | … | id(hi)+1 ]   span = hi-lo+1 entries
type denseIndex struct {
	lo  int64
	ids []uint32
	// A table UseDense made numbers its own keys: groups of them, the
	// NULL key's id null (NoKey until one is inserted).
	built  bool
	groups int
	null   uint32
}

// Dense indexes are built when they take at most denseSlack uint32s per
// tuple (16 bytes, what the hash table's slots and keys take) or at most
// denseSmall entries in all (256 KiB, which a small build side's table
// takes anyway in a cache line per probe).
const (
	denseSlack = 4
	denseSmall = 1 << 16
)

// denseKeys returns the table's keys as int64s when a dense index suits
// it: one key column of int64 or date32, no NULL tuple, at least one tuple.
func (t *KeyTable) denseKeys() (lo, hi int64, ok bool) {
	if len(t.cols) != 1 || !t.sealed || t.len == 0 || t.dense != nil {
		return 0, 0, false
	}
	switch c := t.cols[0].(type) {
	case *fixedKeys[int64]:
		if c.nulls > 0 {
			return 0, 0, false
		}
		lo, hi = spanOf(c.vals)
	case *fixedKeys[arrow.Date32]:
		if c.nulls > 0 {
			return 0, 0, false
		}
		lo, hi = spanOf(c.vals)
	default:
		return 0, 0, false
	}
	return lo, hi, DenseFits(lo, hi, t.len)
}

// DenseFits reports whether keys spanning lo…hi, n of them (or at most n),
// suit a dense index: at most 4 values of the range per key, or 65,536
// values in all.
func DenseFits(lo, hi int64, n int) bool {
	span := uint64(hi) - uint64(lo) // no overflow: hi ≥ lo
	return hi >= lo && (span < denseSmall || span < uint64(n)*denseSlack)
}

// UseDense makes an empty table a dense index over lo…hi from the start,
// when its caller knows the range of every key it will insert (a join's
// build side, collected before it is inserted): Insert then numbers keys
// with the index alone, without hashing, and a key outside lo…hi is an
// error. One key column of int64 or date32 only; DenseFits should hold.
// MemoryUsage counts the index.
func (t *KeyTable) UseDense(lo, hi int64) error {
	if len(t.cols) != 1 || t.sealed || t.released || t.tab.groups() > 0 || t.dense != nil || hi < lo {
		return fmt.Errorf("%w: UseDense on a used table, a range %d…%d or keys %v", ErrInput, lo, hi, t.types)
	}
	switch t.cols[0].(type) {
	case *fixedKeys[int64], *fixedKeys[arrow.Date32]:
	default:
		return fmt.Errorf("%w: UseDense on a key of type %v", ErrInput, t.types[0])
	}
	ids, err := scratch(&t.acct, []uint32(nil), int(hi-lo+1)) // new, so zeroed
	if err != nil {
		return err
	}
	t.dense = &denseIndex{lo: lo, ids: ids, null: NoKey, built: true}
	return nil
}

// denseKey is what a dense index numbers: the keys stored as fixedKeys
// of int64 (BIGINT, and TIMESTAMP and TIME, whose values are int64: keys.go)
// or of date32. Insert and lookup take each of their array types: a
// lookup that skipped one would leave every row's id as it was.
type denseKey interface {
	int64 | arrow.Date32 | arrow.Timestamp | arrow.Time64
}

// insert is Insert into a table UseDense made.
func (d *denseIndex) insert(key arrow.Array, rows []uint32, ids []uint32) error {
	var err error
	switch a := key.(type) {
	case *array.Int64:
		err = insertDense(d, a.Int64Values(), key, rows, ids)
	case *array.Date32:
		err = insertDense(d, a.Date32Values(), key, rows, ids)
	case *array.Timestamp:
		err = insertDense(d, a.TimestampValues(), key, rows, ids)
	case *array.Time64:
		err = insertDense(d, a.Time64Values(), key, rows, ids)
	default:
		err = fmt.Errorf("agg: a dense index of %s keys", key.DataType())
	}
	return err
}

func insertDense[T denseKey](d *denseIndex, vals []T, key arrow.Array, rows []uint32, ids []uint32) error {
	dense, lo := d.ids, uint64(d.lo)
	span := uint64(len(dense))
	nulls := key.NullN() > 0
	for _, r := range rows {
		if nulls && key.IsNull(int(r)) {
			if d.null == NoKey {
				d.null, d.groups = uint32(d.groups), d.groups+1
			}
			ids[r] = d.null
			continue
		}
		k := uint64(int64(vals[r])) - lo
		if k >= span {
			return fmt.Errorf("%w: key %d outside the range %d…%d given to UseDense", ErrInput, int64(vals[r]), d.lo, d.lo+int64(span)-1)
		}
		if dense[k] == 0 {
			if d.groups >= maxGroups {
				return fmt.Errorf("%w: more than %d keys", ErrMemoryLimit, maxGroups)
			}
			d.groups++
			dense[k] = uint32(d.groups)
		}
		ids[r] = dense[k] - 1
	}
	return nil
}

func spanOf[T denseKey](vals []T) (lo, hi int64) {
	lo, hi = int64(vals[0]), int64(vals[0])
	for _, v := range vals[1:] {
		lo, hi = min(lo, int64(v)), max(hi, int64(v))
	}
	return lo, hi
}

// DenseBytes is the memory Densify would take, 0 when the table's keys do
// not suit a dense index (more than one key, a non-integer key, a NULL
// key, or values spread over more than 4 per tuple and 65,536 in all).
// Call it after Seal.
func (t *KeyTable) DenseBytes() int64 {
	lo, hi, ok := t.denseKeys()
	if !ok {
		return 0
	}
	return (hi - lo + 1) * 4
}

// Densify builds the dense index DenseBytes sized, if the keys suit one,
// and frees the hash slots, which lookups then no longer read. Call it
// after Seal and before the first NewProber. MemoryUsage counts the index.
func (t *KeyTable) Densify() error {
	lo, hi, ok := t.denseKeys()
	if !ok || t.dense != nil {
		return nil
	}
	ids, err := scratch(&t.acct, []uint32(nil), int(hi-lo+1)) // new, so zeroed
	if err != nil {
		return err
	}
	switch c := t.cols[0].(type) {
	case *fixedKeys[int64]:
		fillDense(ids, lo, c.vals)
	case *fixedKeys[arrow.Date32]:
		fillDense(ids, lo, c.vals)
	}
	t.dense = &denseIndex{lo: lo, ids: ids, null: NoKey}
	t.tab.slots = drop(&t.acct, t.tab.slots)
	return nil
}

func fillDense[T denseKey](ids []uint32, lo int64, vals []T) {
	for id, v := range vals {
		ids[int64(v)-lo] = uint32(id) + 1
	}
}

// lookup sets ids[r] for every r in rows from key's values: a value
// outside lo…hi, a value no tuple has and a NULL all give NoKey. The
// unsigned difference wraps a value below lo past the span too.
func (d *denseIndex) lookup(key arrow.Array, rows []uint32, ids []uint32) {
	switch a := key.(type) {
	case *array.Int64:
		probeDense(d, a.Int64Values(), rows, ids)
	case *array.Date32:
		probeDense(d, a.Date32Values(), rows, ids)
	case *array.Timestamp: // a TIMESTAMP's and a TIME's keys are int64 (keys.go)
		probeDense(d, a.TimestampValues(), rows, ids)
	case *array.Time64:
		probeDense(d, a.Time64Values(), rows, ids)
	default: // no dense index is made of other keys (denseKeys); none matches
		for _, r := range rows {
			ids[r] = NoKey
		}
	}
	if key.NullN() > 0 {
		for _, r := range rows {
			if key.IsNull(int(r)) {
				ids[r] = d.null
			}
		}
	}
}

func probeDense[T denseKey](d *denseIndex, vals []T, rows []uint32, ids []uint32) {
	dense, lo := d.ids, uint64(d.lo)
	span := uint64(len(dense))
	for _, r := range rows {
		k := uint64(int64(vals[r])) - lo
		id := uint32(NoKey)
		if k < span {
			id = dense[k] - 1 // 0, no tuple, wraps to NoKey
		}
		ids[r] = id
	}
}
