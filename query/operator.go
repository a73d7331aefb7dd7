package query

import (
	"context"
	"io"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/spill"
)

// operator is one step of a running query: it yields record batches
// (columns in the table's stored types, engine types where converted or
// computed; see doc.go) until io.EOF. Operators pull from their
// input batch by batch; only sort, aggregate and a join's build side hold
// more than a batch, and they account what they hold to the query's memory
// tracker.
type operator interface {
	Schema() *arrow.Schema
	// Next returns the next batch, which the caller releases, or io.EOF.
	Next(ctx context.Context) (arrow.RecordBatch, error)
	// Close releases what the operator and its inputs hold. It is safe
	// to call more than once.
	Close()
}

// runtime is what the operators of one query share.
type runtime struct {
	mem     memory.Allocator
	mt      *memTracker
	workers int // goroutines a hash aggregate or a join runs its inputs on
	// sortWorkers: an ORDER BY's sorters (op_sort_gather.go); 1: serial.
	sortWorkers int
	// sortByRanges: those sorters each sort a key range
	// (op_sort_range.go), not a share of the input merged.
	sortByRanges bool
	// exchange: GROUP BY through a hash exchange (op_aggexchange.go).
	exchange bool
	// sortSpill: GROUP BY spills sorted runs, not through the shuffle
	// (Options.GroupBySortSpill).
	sortSpill bool
	// spill is where sorts and aggregates spill past the memory limit;
	// nil: they fail with ErrMemory instead.
	spill  *spill.Manager
	spills *spillRegistry // the operators that may spill, for Stats
	topK   *topKLink      // a top-k sort's threshold, for the scan's Skip
	// maxJoinPairs bounds the pairs a nested-loop join examines
	// (Options.MaxJoinPairs); 0: no limit.
	maxJoinPairs int64
	joinSpill    joinSpillTuning // when hash joins spill (op_gracejoin.go)
	// broadcastBytes: a hash join's build side of fewer bytes is
	// broadcast, a larger one partitioned (plan_joinx.go); negative:
	// every one partitioned.
	broadcastBytes int64
	aggFanout      int // a test's first-level fanout of a GROUP BY's shuffle spill; 0: by the estimate
}

// memTracker counts the bytes a query's sorts, aggregates and joins hold
// against its limit (0: no limit).
type memTracker struct {
	limit int64
	names memNames // for its errors
	used  atomic.Int64
	peak  atomic.Int64
	// held: the map outputs of the query's shuffles held in memory, which
	// a reservation that would pass the limit moves to disk
	// (shuffle_held.go).
	held heldMaps
}

// grow accounts n more bytes held, failing with ErrMemory past the limit.
func (m *memTracker) grow(n int64, what string) error {
	if held, ok := m.tryGrow(n); !ok {
		return m.limitError(what, n, held) // memerr.go
	}
	return nil
}

// tryGrow accounts n more bytes held unless that passes the limit, and
// returns the bytes held before. Map outputs held in memory are moved to
// disk first when that lets n fit.
//
// The check and the count are one step (reserve's), retried after each
// move: a goroutine that moved outputs for n and then counted n could
// find the room it made taken by another's reservation in between, and
// pass the limit.
func (m *memTracker) tryGrow(n int64) (int64, bool) {
	for {
		held, ok := m.reserve(n)
		if ok || !m.makeRoom(n) {
			return held, ok
		}
	}
}

// makeRoom moves map outputs held in memory to disk until n more bytes
// fit the limit, or none is left, and reports whether reserving n again
// may succeed (heldMaps.evict).
func (m *memTracker) makeRoom(n int64) bool {
	if m.limit <= 0 || m.held.bytes.Load() == 0 {
		return false
	}
	return m.held.evict(func() int64 { return m.used.Load() + n - m.limit })
}

// force accounts n more bytes that cannot be refused (evalMem's
// allocations, a sort's run, a spilling table's growth): within the
// limit, moving map outputs held in memory to disk as tryGrow does,
// while it can; past it only when what is left is not held outputs.
func (m *memTracker) force(n int64) {
	if _, ok := m.tryGrow(n); !ok {
		m.notePeak(m.used.Add(n))
	}
}

// firm returns the bytes held but the map outputs held in memory, which
// a reservation would move to disk: what the plans that ask what fits
// count as taken.
func (m *memTracker) firm() int64 { return m.used.Load() - m.held.bytes.Load() }

// reserve is tryGrow without moving map outputs to disk.
func (m *memTracker) reserve(n int64) (int64, bool) {
	used := m.used.Add(n)
	if m.limit > 0 && used > m.limit {
		m.used.Add(-n)
		return used - n, false
	}
	m.notePeak(used)
	return used - n, true
}

// notePeak records used as the peak if it is the most held yet.
func (m *memTracker) notePeak(used int64) {
	for {
		p := m.peak.Load()
		if used <= p || m.peak.CompareAndSwap(p, used) {
			return
		}
	}
}

func (m *memTracker) shrink(n int64) { m.used.Add(-n) }

// charge accounts delta bytes without a limit check (evalMem's
// allocations, which cannot fail; it checks before the large ones):
// force's, when delta is positive.
func (m *memTracker) charge(delta int64) {
	if delta > 0 {
		m.force(delta)
		return
	}
	m.used.Add(delta)
}

// drain reads op to the end, passing each batch to fn (which must not keep
// it without retaining it).
func drain(ctx context.Context, op operator, fn func(arrow.RecordBatch) error) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		rec, err := op.Next(ctx)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		err = fn(rec)
		rec.Release()
		if err != nil {
			return err
		}
	}
}
