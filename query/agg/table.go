package agg

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// minSlots is the smallest table: 8 KiB, so that a handful of groups
// rarely share a home slot (a shared one makes the probe length vary from
// row to row, which costs a branch miss each time).
const minSlots = 1024

// maxGroups bounds group ids: a slot holds id+1 in 32 bits, 0 meaning empty.
const maxGroups = 1<<32 - 2

// table maps key tuples to dense group ids 0, 1, 2, … in first-seen order.
// It is open addressing with linear probing over slots of 64 bits: the high
// 32 bits of the key's hash as a tag (bit 0 forced on, so no tag is 0),
// the low 32 the group id + 1 (0 is an empty slot). The keys themselves
// live column-wise in cols, and each group's full hash in hashes, so
// growing never rehashes a key and a probe touches a key only when the tag
// matches. Load stays at most 1/2.
//
// insert is vectorized the way DuckDB's aggregate hash table is: a pass
// walks every pending row to its first empty or tag-matching slot (claiming
// an empty one as a new group), the new groups' keys are appended one
// column at a time, the tag matches are compared one column at a time, and
// the rows that did not match go around again from the next slot.
type table struct {
	acct   *account
	cols   []keyColumn
	slots  []uint64
	mask   uint64
	hashes []uint64 // per group
	sink   uint64   // prefetch's sum

	// Per-batch scratch: lists of rows.
	todo, next []uint32
	cand       []uint32
	fresh      []uint32
	claims     []uint32 // the row that created each group of the batch
}

func newTable(a *account, cols []keyColumn) *table { return &table{acct: a, cols: cols} }

func (t *table) groups() int { return len(t.hashes) }

// noGroup in gids marks a row to probe from its home slot.
const noGroup = math.MaxUint32

// insert sets gids[r] to the group of row r of the bound columns for every
// r in rows, adding groups for keys not seen before; h[r] is the row's
// hash. On error some groups may have been added: truncate removes them.
//
// A row whose tag matched a group of another key goes around again and
// resumes after that group's slot, found by walking from home (tag
// collisions are rare, so no per-row probe position is kept). After the
// slots grow, rows start over from home. A key that went around may so get
// its group after a key first seen later in the batch; renumber then
// restores first-seen order.
func (t *table) insert(rows []uint32, h []uint64, gids []uint32) error {
	if err := t.prepare(len(rows)); err != nil {
		return err
	}
	if len(t.slots) >= prefetchSlots {
		t.prefetch(rows, h)
	}
	todo, next := rows, t.todo[:0] // rows is the caller's: never written
	first, late := true, false
	old, claims := len(t.hashes), t.claims[:0]
	for len(todo) > 0 {
		cand, fresh := t.cand[:0], t.fresh[:0]
		slots, mask := t.slots, t.mask
		grew := false
		for i := 0; i < len(todo); i++ {
			r := todo[i]
			hr := h[r]
			tag := hr>>32 | 1 // never 0, so an empty slot never matches
			p := hr & mask
			if !first && !grew && gids[r] != noGroup {
				for uint32(slots[p]) != gids[r]+1 {
					p = (p + 1) & mask
				}
				p = (p + 1) & mask
			}
			for {
				e := slots[p]
				if e>>32 == tag {
					gids[r] = uint32(e) - 1
					cand = append(cand, r)
					break
				}
				if e == 0 {
					gid := len(t.hashes) + len(fresh)
					if gid+1 > len(slots)/2 {
						if err := t.flush(fresh, h); err != nil {
							return err
						}
						fresh = fresh[:0]
						if err := t.grow(); err != nil {
							return err
						}
						slots, mask, grew = t.slots, t.mask, true
						p = hr & mask
						continue
					}
					if gid >= maxGroups {
						return fmt.Errorf("%w: more than %d groups", ErrMemoryLimit, maxGroups)
					}
					slots[p] = tag<<32 | uint64(gid+1)
					gids[r] = uint32(gid)
					fresh = append(fresh, r)
					claims = append(claims, r)
					late = late || !first
					break
				}
				p = (p + 1) & mask
			}
		}
		if err := t.flush(fresh, h); err != nil {
			return err
		}
		sel, miss := cand, next[:0]
		for _, c := range t.cols {
			sel, miss = c.equal(sel, gids, miss)
		}
		if grew { // the slots moved under the candidates: start over
			for _, r := range miss {
				gids[r] = noGroup
			}
		}
		if first {
			todo, next = miss, t.next[:0]
		} else {
			todo, next = miss, todo[:0]
		}
		first = false
	}
	if late {
		return t.renumber(old, claims, rows, gids)
	}
	return nil
}

// prefetchSlots is the table size (512 KiB) from which insert first touches
// every row's home slot in a loop of independent loads, so the cache
// misses overlap; in the probe loop each miss sits behind a branch the CPU
// often mispredicts, and they would come one at a time.
const prefetchSlots = 1 << 16

func (t *table) prefetch(rows []uint32, h []uint64) {
	// Kept so the loads are not optimized away; per table, since tables
	// of parallel workers prefetch at once (a package variable raced).
	t.sink = touchSlots(t.slots, t.mask, rows, h)
}

// touchSlots loads the home slot of every row and returns their sum.
func touchSlots(slots []uint64, mask uint64, rows []uint32, h []uint64) uint64 {
	var x uint64
	for _, r := range rows {
		x += slots[h[r]&mask]
	}
	return x
}

// renumber gives the groups created by a batch, from old on, ids in the
// order of the rows that created them (claims, by group): keys, hashes,
// slots and the rows' gids are permuted. It runs only when a tag
// collision delayed a new key, and touches only the batch's new groups.
func (t *table) renumber(old int, claims, rows, gids []uint32) error {
	if slices.IsSorted(claims) {
		return nil
	}
	k := len(claims)
	perm := make([]uint32, k) // new id - old → old id - old
	for i := range perm {
		perm[i] = uint32(i)
	}
	slices.SortFunc(perm, func(a, b uint32) int { return cmp.Compare(claims[a], claims[b]) })
	bytes := int64(k) * (4 + 4 + 8 + 8)
	if err := t.acct.charge(bytes); err != nil {
		return err
	}
	defer t.acct.credit(bytes)
	inv := make([]uint32, k)
	for i, p := range perm {
		inv[p] = uint32(i)
	}
	pos := make([]uint64, k) // every new group's slot, found before any changes
	for j := range k {
		hv := t.hashes[old+j]
		p := hv & t.mask
		for uint32(t.slots[p]) != uint32(old+j+1) {
			p = (p + 1) & t.mask
		}
		pos[j] = p
	}
	for j, p := range pos {
		t.slots[p] = t.slots[p]>>32<<32 | uint64(old+int(inv[j])+1)
	}
	hashes := slices.Clone(t.hashes[old:])
	for i, p := range perm {
		t.hashes[old+i] = hashes[p]
	}
	for _, c := range t.cols {
		c.permuteTail(old, perm)
	}
	for _, r := range rows {
		if g := gids[r]; int(g) >= old {
			gids[r] = uint32(old) + inv[int(g)-old]
		}
	}
	return nil
}

// prepare sizes the scratch for rows and makes sure the table has slots.
func (t *table) prepare(rows int) error {
	var err error
	for _, s := range []*[]uint32{&t.todo, &t.next, &t.cand, &t.fresh, &t.claims} {
		if *s, err = scratch(t.acct, *s, rows); err != nil {
			return err
		}
	}
	if len(t.slots) == 0 {
		return t.grow()
	}
	return nil
}

// flush appends the keys and hashes of the rows that claimed slots.
func (t *table) flush(fresh []uint32, h []uint64) error {
	if len(fresh) == 0 {
		return nil
	}
	for _, c := range t.cols {
		if err := c.appendRows(fresh); err != nil {
			return err
		}
	}
	n := len(t.hashes)
	hashes, err := extend(t.acct, t.hashes, len(fresh))
	if err != nil {
		return err
	}
	for i, r := range fresh {
		hashes[n+i] = h[r]
	}
	t.hashes = hashes
	return nil
}

// grow doubles the slots and places every group again from its hash.
func (t *table) grow() error { return t.growTo(max(2*len(t.slots), minSlots)) }

// growTo makes the table size slots (a power of two, more than it has) and
// places every group again from its hash.
func (t *table) growTo(size int) error {
	if err := t.acct.charge(int64(size) * 8); err != nil {
		return err
	}
	t.slots = drop(t.acct, t.slots)
	t.slots = make([]uint64, size)
	t.mask = uint64(size - 1)
	t.place(0)
	return nil
}

// place puts groups from on into slots known to have none of them.
func (t *table) place(from int) {
	for g := from; g < len(t.hashes); g++ {
		hv := t.hashes[g]
		p := hv & t.mask
		for t.slots[p] != 0 {
			p = (p + 1) & t.mask
		}
		t.slots[p] = (hv>>32|1)<<32 | uint64(g+1)
	}
}

// truncate drops the groups from n on, leaving the table as if they had
// never been inserted. Slots claimed by a failed insert whose keys were
// never appended go too: every slot naming a group ≥ n is cleared. That is
// safe with linear probing because groups < n were all placed before any
// group ≥ n, so no probe sequence of theirs runs through a cleared slot.
func (t *table) truncate(n int) {
	for i, e := range t.slots {
		if e != 0 && int(uint32(e)-1) >= n {
			t.slots[i] = 0
		}
	}
	for _, c := range t.cols {
		c.truncate(n)
	}
	if n < len(t.hashes) {
		t.hashes = t.hashes[:n]
	}
}

// dropInsertState frees what only insert reads: the groups' hashes and
// the batch scratch. The table can then be looked up, not inserted into.
func (t *table) dropInsertState() {
	t.hashes = drop(t.acct, t.hashes)
	t.todo = drop(t.acct, t.todo)
	t.next = drop(t.acct, t.next)
	t.cand = drop(t.acct, t.cand)
	t.fresh = drop(t.acct, t.fresh)
	t.claims = drop(t.acct, t.claims)
}

func (t *table) release() {
	for _, c := range t.cols {
		c.release()
	}
	t.slots = drop(t.acct, t.slots)
	t.hashes = drop(t.acct, t.hashes)
	t.todo = drop(t.acct, t.todo)
	t.next = drop(t.acct, t.next)
	t.cand = drop(t.acct, t.cand)
	t.fresh = drop(t.acct, t.fresh)
	t.claims = drop(t.acct, t.claims)
}
