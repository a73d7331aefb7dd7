package agg

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// A GROUP BY on one integer column whose values the caller knows lie in
// a range only a few times the number of groups wide (TPC-H's l_orderkey:
// 1.5 million orders over 1…6 million) numbers its groups with a dense
// index, as a join's build side does (dense.go): ids[v-lo] is the group
// + 1 of key v, 0 before v is seen. A row then costs a subtraction and
// one load where the hash table costs a slot walk with a branch that
// mispredicts as new and old keys mix, and a key compare.
//
// The hash table's state is kept as if it had numbered the groups (their
// keys and hashes, in first-seen order), without slots. A batch with a
// NULL key or a key outside the range turns the index off for good: the
// table places every group in new slots and goes on hashing.

// DenseRange is the range every key of a one-column int64 or date32 GROUP
// BY falls in, from the statistics of the table it comes from.
type DenseRange struct{ Lo, Hi int64 }

// DenseGroupsFit reports whether keys spanning lo…hi with about groups
// distinct values suit a dense index: at most 8 values of the range per
// group, or 65,536 in all.
func DenseGroupsFit(lo, hi int64, groups int64) bool {
	if hi < lo || groups <= 0 {
		return false
	}
	span := uint64(hi) - uint64(lo)
	return span < denseSmall || span/8 < uint64(groups)
}

// denseGroups is a HashAggregator's dense index over lo…lo+len(ids)-1.
type denseGroups struct {
	lo    int64
	ids   []uint32
	fresh []uint32 // the batch's rows that made groups
}

// useDense gives the aggregator a dense index over r, when it has one key
// of int64 or date32 and the index's memory fits the limit; otherwise it
// hashes, as without r.
func (h *HashAggregator) useDense(r *DenseRange) {
	if r == nil || h.tab == nil || len(h.keyTypes) != 1 || r.Hi < r.Lo || uint64(r.Hi)-uint64(r.Lo) >= maxGroups*16 {
		return
	}
	switch h.keyTypes[0].ID() {
	case arrow.INT64, arrow.DATE32:
	default:
		return
	}
	ids, err := scratch(&h.acct, []uint32(nil), int(r.Hi-r.Lo+1)) // new, so zeroed
	if err != nil {
		return // over the memory limit: hash instead
	}
	h.dense = &denseGroups{lo: r.Lo, ids: ids}
}

// groupDense numbers the groups of the n rows of key (bound to h.cols[0];
// h.hashes holds the seed) with the dense index, and hashes the rows that
// make new groups, whose hashes the table keeps. When a row is NULL or
// out of range it turns the index off, changing nothing else, and reports
// false: the table hashes the batch.
func (h *HashAggregator) groupDense(n int, key arrow.Array) (bool, error) {
	if key.NullN() == 0 {
		switch a := key.(type) {
		case *array.Int64:
			if ok, err := denseGroup(h, a.Int64Values()[:n]); ok || err != nil {
				return ok, err
			}
		case *array.Date32:
			if ok, err := denseGroup(h, a.Date32Values()[:n]); ok || err != nil {
				return ok, err
			}
		}
	}
	return false, h.leaveDense()
}

func denseGroup[T int64 | arrow.Date32](h *HashAggregator, vals []T) (bool, error) {
	d := h.dense
	lo, span := uint64(d.lo), uint64(len(d.ids))
	for _, v := range vals {
		if uint64(int64(v))-lo >= span {
			return false, nil
		}
	}
	fresh, err := scratch(&h.acct, d.fresh, len(vals))
	if err != nil {
		return false, err
	}
	fresh = fresh[:0]
	ids, gids := d.ids, h.gids
	groups := h.tab.groups()
	for r, v := range vals {
		k := uint64(int64(v)) - lo
		g := ids[k]
		if g == 0 {
			if groups+len(fresh) >= maxGroups {
				d.fresh = fresh
				return false, fmt.Errorf("%w: more than %d groups", ErrMemoryLimit, maxGroups)
			}
			fresh = append(fresh, uint32(r))
			g = uint32(groups + len(fresh))
			ids[k] = g
		}
		gids[r] = g - 1
	}
	d.fresh = fresh
	// The groups' keys and hashes, so that the table can take over.
	for _, c := range h.cols {
		c.hash(h.hashes, fresh)
	}
	return true, h.tab.flush(fresh, h.hashes)
}

// leaveDense turns the dense index off: the table places the groups so
// far in slots of its own. On error (the slots pass the memory limit) the
// index stays.
func (h *HashAggregator) leaveDense() error {
	size := minSlots
	for size/2 <= h.tab.groups()+1 {
		size *= 2
	}
	if err := h.tab.growTo(size); err != nil {
		return err
	}
	h.dense.ids = drop(&h.acct, h.dense.ids)
	h.dense.fresh = drop(&h.acct, h.dense.fresh)
	h.dense = nil
	return nil
}

// truncate forgets the groups from n on.
func (d *denseGroups) truncate(n int) {
	if n == 0 {
		clear(d.ids)
		return
	}
	for k, g := range d.ids {
		if int(g) > n {
			d.ids[k] = 0
		}
	}
}

func (d *denseGroups) release(a *account) {
	d.ids = drop(a, d.ids)
	d.fresh = drop(a, d.fresh)
}
