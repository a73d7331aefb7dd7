package query

import (
	"slices"
	"sync"
	"sync/atomic"

	"github.com/quiverdb/quiver/shuffle"
)

// Map outputs held in memory. The grace hash join's and the spilling
// GROUP BY's shuffles (partSet) run because memory is short, yet their
// map outputs are the rows compressed (lz4 or zstd:1 by the spill
// codec), often a third or less of what the rows held: when they fit,
// they stay in memory (shuffle.WriterOptions.Memory) and are read back
// from there, and no file is written. The policy that keeps them from
// starving the operators they serve:
//
//   - Only when memory is what made the operator spill: not without a
//     memory limit, nor under Options.ForceJoinSpill, which forces the
//     spill path to test it, files included (difftest -forcejoinspill).
//   - At most half of the limit is held (heldBudget): a map writer's run
//     past it, or past what the tracker has left, goes to disk with the
//     rest of its output, as always. A writer never moves other outputs
//     to disk to make room for its own.
//   - Any other reservation of the query (a partition's build, a table's
//     growth, a sort's run) that would pass the limit first moves
//     finished outputs held in memory to disk, oldest first, then what
//     open writers hold of theirs (whose rest then goes to the file),
//     until it fits (memTracker.tryGrow, evict; shuffle.MapOutput.ToDisk,
//     MapWriter.ToDisk). So a build that fitted when the outputs were on
//     disk fits now: what the outputs hold is memory lent, not taken.
//     Readers open on a moved output read on from memory until they end.
//     A charge that cannot be refused (memTracker.force: a spilling
//     table's growth, a sort's run) moves them the same way, checking
//     the room and taking it in one step, and passes the limit only when
//     nothing held is left to move.
//   - The grace join's plans that ask what fits (a partition's build,
//     the partitions kept while the probe side is written, a nested
//     loop's chunks) and a sort's Available count held outputs as room
//     (memTracker.firm), since asking for it moves them. The GROUP BY's
//     choice of pieces kept at the end of its input does not: they are
//     charged, not reserved, so it counts the outputs as taken.
//
// EXPLAIN ANALYZE says how many outputs stayed in memory, and how many
// were moved to disk after (graceStats); Stats.Spill counts the files.

// heldShareDiv: held map outputs take at most limit ÷ heldShareDiv.
const heldShareDiv = 2

// heldMaps is what a query's shuffles hold in memory: part of its
// memTracker.
type heldMaps struct {
	bytes   atomic.Int64 // held by outputs and open writers, counted in the tracker's used too
	mu      sync.Mutex
	outs    []heldMap    // finished outputs held, oldest first (some removed or moved since)
	writers []heldWriter // writers whose outputs are held so far, oldest first
}

// heldMap is a finished map output held in memory and the set it is of.
type heldMap struct {
	out *shuffle.MapOutput
	set *partSet
}

// heldWriter is a map writer keeping its output in memory and the set
// it writes.
type heldWriter struct {
	w   *shuffle.MapWriter
	set *partSet
}

// heldBudget is the shuffle.Budget of a query's map writers: the
// tracker, without moving anything to disk, within a share of the limit.
type heldBudget struct{ mt *memTracker }

func (b heldBudget) TryGrow(n int64) bool {
	h := &b.mt.held
	if h.bytes.Add(n) > b.mt.limit/heldShareDiv {
		h.bytes.Add(-n)
		return false
	}
	if _, ok := b.mt.reserve(n); !ok {
		h.bytes.Add(-n)
		return false
	}
	return true
}

func (b heldBudget) Shrink(n int64) {
	b.mt.held.bytes.Add(-n)
	b.mt.shrink(n)
}

// addWriter records a map writer that keeps its output in memory while
// the budget grants it, which a reservation may move to disk.
func (h *heldMaps) addWriter(w *shuffle.MapWriter, set *partSet) {
	h.mu.Lock()
	h.writers = append(h.writers, heldWriter{w: w, set: set})
	h.mu.Unlock()
}

// finishWriter runs finish, which finishes w and returns its output, and
// records the output if it is held in memory (held). The writer's bytes
// become the output's without a moment when a reservation could not
// move them: evict waits.
func (h *heldMaps) finishWriter(w *shuffle.MapWriter, finish func() (*shuffle.MapOutput, error)) (out *shuffle.MapOutput, held bool, err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	out, err = finish()
	i := slices.IndexFunc(h.writers, func(e heldWriter) bool { return e.w == w })
	if i < 0 {
		return out, false, err
	}
	set := h.writers[i].set
	h.writers = slices.Delete(h.writers, i, i+1)
	if err == nil && out != nil && out.InMemory() {
		h.outs = append(h.outs, heldMap{out: out, set: set})
		held = true
	}
	return out, held, err
}

// forget drops set's outputs and writers: the set is being removed.
func (h *heldMaps) forget(set *partSet) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.outs = slices.DeleteFunc(h.outs, func(e heldMap) bool { return e.set == set })
	h.writers = slices.DeleteFunc(h.writers, func(e heldWriter) bool { return e.set == set })
}

// evict moves finished outputs to disk, oldest first, then what open
// writers hold of the outputs they write, while over (the bytes past the
// limit, asked again after each: another goroutine may have moved some
// while this one waited) is positive, or until none is left; a failure
// (the spill quota, a full disk) stops it, the output staying in memory.
// It reports whether asking for the bytes again may succeed: it moved
// some, or over was not positive. False: none is left to move (or one
// failed) and the bytes are still over.
func (h *heldMaps) evict(over func() int64) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	i, j, again := 0, 0, false
	for {
		if over() <= 0 {
			again = true
			break
		}
		var n int64
		var err error
		if i < len(h.outs) {
			e := h.outs[i]
			if n, err = e.out.ToDisk(); err != nil {
				break
			}
			if n > 0 {
				e.set.moved(n)
			}
			i++
		} else if j < len(h.writers) {
			// The writer stays listed (finishWriter drops it): its later
			// runs go to the file, and its output counts as a file.
			e := h.writers[j]
			if n, err = e.w.ToDisk(); err != nil {
				break
			}
			if n > 0 {
				e.set.env.st.moved.Add(1)
			}
			j++
		} else {
			break
		}
		again = again || n > 0
	}
	h.outs = h.outs[i:]
	return again
}
