package agg

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
)

// KeyTable is GROUP BY's hash table (table.go: seeded hashes, a tag per
// slot, keys stored column-wise) without aggregates, for a hash join's
// build side: Insert numbers each distinct tuple of keys with a dense id
// 0, 1, 2, … in first-seen order; once the inserts are done, Probers look
// tuples up, concurrently, without inserting. Keys compare as group keys
// do: NULL equals NULL, -0.0 equals 0.0 and NaN equals NaN; a join, where
// a NULL key matches nothing, leaves rows with a NULL key out of the rows
// it passes.
//
// What it holds is on the Go heap, counted by MemoryUsage. It is not safe
// for concurrent use; its Probers are, each on its own goroutine, while
// nothing inserts.
type KeyTable struct {
	types    []arrow.DataType
	acct     account
	cols     []keyColumn
	tab      *table
	seed     uint64
	hashes   []uint64 // per row of the batch being inserted
	sealed   bool
	len      int         // at Seal; before, the table's groups
	dense    *denseIndex // Densify's (dense.go), which lookups then use
	released bool
}

// NoKey is the id Lookup gives a row whose keys are not in the table.
const NoKey = noGroup

// NewKeyTable returns an empty table of tuples of keys of keyTypes (engine
// types: boolean, int64, float64, decimal128, utf8, date32).
func NewKeyTable(keyTypes []arrow.DataType) (*KeyTable, error) {
	if len(keyTypes) == 0 {
		return nil, fmt.Errorf("%w: a key table of no keys", ErrInput)
	}
	t := &KeyTable{types: keyTypes, seed: newSeed()}
	for i, dt := range keyTypes {
		if !supported(dt) {
			return nil, fmt.Errorf("%w: key %d of type %v", ErrUnsupported, i, dt)
		}
		t.cols = append(t.cols, newKeyColumn(&t.acct, dt))
	}
	t.tab = newTable(&t.acct, t.cols)
	return t, nil
}

// Len is the number of distinct tuples inserted.
func (t *KeyTable) Len() int {
	switch {
	case t.sealed:
		return t.len
	case t.dense != nil && t.dense.built:
		return t.dense.groups
	}
	return t.tab.groups()
}

// MemoryUsage is the bytes the table holds: the capacity of its slots,
// hashes, keys and scratch.
func (t *KeyTable) MemoryUsage() int64 { return t.acct.used }

// Insert sets ids[r] to the id of the tuple (keys[0][r], keys[1][r], …)
// for every r in rows, adding the tuples not seen before. keys are arrays
// of the table's types and of one length n; rows index them, and ids has
// at least n elements. On error (ErrInput, or ErrMemoryLimit past maxGroups
// tuples) the table may hold some of the batch's tuples.
func (t *KeyTable) Insert(keys []arrow.Array, rows []uint32, ids []uint32) error {
	if t.released {
		return errReleased
	}
	if t.sealed {
		return fmt.Errorf("%w: Insert into a sealed KeyTable", ErrInput)
	}
	n, err := checkKeys(t.types, keys, ids)
	if err != nil {
		return err
	}
	if t.dense != nil {
		return t.dense.insert(keys[0], rows, ids)
	}
	if t.hashes, err = scratch(&t.acct, t.hashes, n); err != nil {
		return err
	}
	if err := bindHash(t.cols, keys, t.seed, t.hashes, rows); err != nil {
		return err
	}
	// In a large table, a block of rows at a time, as lookup: the home
	// slots insert touches first would not stay in cache for a whole
	// batch. First-seen order holds across blocks.
	for len(rows) > 0 {
		k := len(rows)
		if len(t.tab.slots) >= prefetchSlots {
			k = min(k, lookupBlock)
		}
		if err := t.tab.insert(rows[:k], t.hashes, ids); err != nil {
			return err
		}
		rows = rows[k:]
	}
	return nil
}

// checkKeys checks keys against types and returns their length, which ids
// must cover.
func checkKeys(types []arrow.DataType, keys []arrow.Array, ids []uint32) (int, error) {
	if len(keys) != len(types) {
		return 0, fmt.Errorf("%w: %d keys, want %d", ErrInput, len(keys), len(types))
	}
	n := -1
	for j, a := range keys {
		want := types[j]
		if sameScaleDecimals(a.DataType(), want) {
			want = a.DataType() // a key is its unscaled value: precision does not matter
		}
		if err := checkColumn(a, want, "key", j, &n); err != nil {
			return 0, err
		}
	}
	if len(ids) < n {
		return 0, fmt.Errorf("%w: %d ids for %d rows", ErrInput, len(ids), n)
	}
	return n, nil
}

// bindHash binds cols to keys and sets h[r], for r in rows, to the hash
// of row r's keys.
func bindHash(cols []keyColumn, keys []arrow.Array, seed uint64, h []uint64, rows []uint32) error {
	for _, r := range rows {
		h[r] = seed
	}
	for i, c := range cols {
		if err := c.bind(keys[i]); err != nil {
			return err
		}
		c.hash(h, rows)
	}
	return nil
}

// Reserve sizes the table for n tuples in all, so that inserting up to n
// does not grow it again: each growth places every tuple inserted so far
// again, at random places of the new slots, which costs a table of a
// million keys a third of its inserts' time.
func (t *KeyTable) Reserve(n int) error {
	if t.released || t.sealed {
		return fmt.Errorf("%w: Reserve on a released or sealed KeyTable", ErrInput)
	}
	if t.dense != nil {
		return nil // sized for every key already
	}
	n = min(n, maxGroups)
	size := minSlots
	for size/2 < n {
		size *= 2
	}
	if size <= len(t.tab.slots) {
		return nil
	}
	return t.tab.growTo(size)
}

// Seal ends the inserts: it frees what only Insert uses (each tuple's
// hash, kept to place it again when the table grows, and the scratch of a
// batch), which lookups do not need. Insert fails after it.
func (t *KeyTable) Seal() {
	t.len, t.sealed = t.Len(), true
	t.hashes = drop(&t.acct, t.hashes)
	t.tab.dropInsertState()
}

// Release frees what the table holds. Its Probers must be released first.
func (t *KeyTable) Release() {
	if t.released {
		return
	}
	t.released = true
	if t.dense != nil {
		t.dense.ids = drop(&t.acct, t.dense.ids)
		t.dense = nil
	}
	t.tab.release()
	t.hashes = drop(&t.acct, t.hashes)
}

// Prober looks tuples up in a KeyTable without inserting. Each goroutine
// has its own; they share the table's slots and keys, which must not
// change while they are used (no Insert after the first NewProber).
type Prober struct {
	t      *KeyTable
	acct   account
	cols   []keyColumn // views of the table's key columns
	hashes []uint64
	s      lookupScratch
}

// NewProber returns a Prober of t, which must not be inserted into while
// the Prober is used. Release it when done.
func (t *KeyTable) NewProber() *Prober {
	p := &Prober{t: t}
	for _, c := range t.cols {
		p.cols = append(p.cols, c.view(&p.acct))
	}
	return p
}

// Lookup sets ids[r] to the id of the tuple of row r's keys, or NoKey when
// the table does not hold it, for every r in rows; keys and ids as for
// Insert.
func (p *Prober) Lookup(keys []arrow.Array, rows []uint32, ids []uint32) error {
	if p.t.released {
		return errReleased
	}
	n, err := checkKeys(p.t.types, keys, ids)
	if err != nil {
		return err
	}
	if d := p.t.dense; d != nil {
		d.lookup(keys[0], rows, ids)
		return nil
	}
	if p.hashes, err = scratch(&p.acct, p.hashes, n); err != nil {
		return err
	}
	if err := p.s.size(&p.acct, len(rows)); err != nil {
		return err
	}
	if err := bindHash(p.cols, keys, p.t.seed, p.hashes, rows); err != nil {
		return err
	}
	p.t.tab.lookup(p.cols, rows, p.hashes, ids, &p.s)
	return nil
}

// MemoryUsage is the bytes of the Prober's own scratch.
func (p *Prober) MemoryUsage() int64 { return p.acct.used }

// Release frees the Prober's scratch; the table is untouched.
func (p *Prober) Release() {
	for _, c := range p.cols {
		c.releaseInput()
	}
	p.hashes = drop(&p.acct, p.hashes)
	p.s.release(&p.acct)
}

// sameScaleDecimals reports two decimal128 types of one scale: their
// values compare as keys by their unscaled integers, whatever the
// precisions (a join of decimal(15,2) with decimal(10,2)).
func sameScaleDecimals(a, b arrow.DataType) bool {
	da, ok1 := a.(*arrow.Decimal128Type)
	db, ok2 := b.(*arrow.Decimal128Type)
	return ok1 && ok2 && da.Scale == db.Scale
}
