package agg

// lookupScratch is what one lookup caller owns: the lists of rows of a
// batch still to probe, and their candidates.
type lookupScratch struct {
	todo, next, cand []uint32
	sink             uint64 // touchSlots' sum, kept so the loads stay
}

// size makes room for n rows.
func (s *lookupScratch) size(a *account, n int) error {
	var err error
	for _, b := range []*[]uint32{&s.todo, &s.next, &s.cand} {
		if *b, err = scratch(a, *b, n); err != nil {
			return err
		}
	}
	return nil
}

func (s *lookupScratch) release(a *account) {
	s.todo = drop(a, s.todo)
	s.next = drop(a, s.next)
	s.cand = drop(a, s.cand)
}

// lookupBlock is the rows lookup touches the home slots of before it
// probes them, in a large table.
const lookupBlock = 1024

// lookup sets gids[r] to the group of row r's key for every r in rows, or
// to noGroup when no group has it, without inserting. cols are views of
// the table's key columns (keyColumn.view) bound to the input and hashed
// into h. The table is only read, so any number of lookups, each with its
// own views and scratch (sized for rows), may run at once while nothing
// inserts.
//
// It runs as insert does: a pass walks each row from its home slot to its
// first tag match (a candidate) or empty slot (a miss); the candidates are
// compared one key column at a time; a row whose tag matched another key
// goes around again from the slot after that key's.
func (t *table) lookup(cols []keyColumn, rows []uint32, h []uint64, gids []uint32, s *lookupScratch) {
	if len(t.slots) == 0 {
		for _, r := range rows {
			gids[r] = noGroup
		}
		return
	}
	if len(t.slots) >= prefetchSlots && len(rows) > lookupBlock {
		// Touch and probe a block at a time: the lines a whole batch
		// touches (64Ki rows: 4 MiB) would not stay in cache until probed.
		for len(rows) > 0 {
			k := min(len(rows), lookupBlock)
			t.lookup(cols, rows[:k], h, gids, s)
			rows = rows[k:]
		}
		return
	}
	slots, mask := t.slots, t.mask
	if len(slots) >= prefetchSlots {
		s.sink = touchSlots(slots, mask, rows, h)
	}
	todo, next := rows, s.todo[:0] // rows is the caller's: never written
	first := true
	for len(todo) > 0 {
		cand := s.cand[:0]
		for _, r := range todo {
			hr := h[r]
			tag := hr>>32 | 1
			p := hr & mask
			if !first { // resume after the slot of the key that did not match
				for uint32(slots[p]) != gids[r]+1 {
					p = (p + 1) & mask
				}
				p = (p + 1) & mask
			}
			for {
				e := slots[p]
				if e == 0 {
					gids[r] = noGroup
					break
				}
				if e>>32 == tag {
					gids[r] = uint32(e) - 1
					cand = append(cand, r)
					break
				}
				p = (p + 1) & mask
			}
		}
		sel, miss := cand, next[:0]
		for _, c := range cols {
			sel, miss = c.equal(sel, gids, miss)
		}
		if first {
			todo, next = miss, s.next[:0]
		} else {
			todo, next = miss, todo[:0]
		}
		first = false
	}
}
