package query

import (
	"fmt"
	"sync"
	"time"
)

// SpillStats say what a query's sorts, aggregates and hash joins wrote to
// spill files (Options.Spill): what Stats and EXPLAIN ANALYZE report.
type SpillStats struct {
	Files int64         // spill files written, by spills, merge passes and join partitions
	Bytes int64         // their bytes on disk (compressed)
	Rows  int64         // rows written to them
	Time  time.Duration // spent spilling: sorting and writing runs, merge passes, writing join partitions
	// Held, HeldBytes: map outputs of the grace join's and GROUP BY's
	// shuffles kept in memory, compressed, instead of written to files
	// (not in Files; Rows counts their rows).
	Held, HeldBytes int64
}

// Add returns the sum of s and o.
func (s SpillStats) Add(o SpillStats) SpillStats {
	return SpillStats{Files: s.Files + o.Files, Bytes: s.Bytes + o.Bytes, Rows: s.Rows + o.Rows, Time: s.Time + o.Time,
		Held: s.Held + o.Held, HeldBytes: s.HeldBytes + o.HeldBytes}
}

func (s SpillStats) String() string {
	text := fmt.Sprintf("%d files, %d bytes, %d rows in %v", s.Files, s.Bytes, s.Rows, s.Time.Round(time.Microsecond))
	if s.Held > 0 {
		text += fmt.Sprintf(" (and %d map outputs, %d bytes, held in memory)", s.Held, s.HeldBytes)
	}
	return text
}

// spillReporter is an operator that may spill; spillStats is what it has
// spilled so far, safe to call from any goroutine.
type spillReporter interface {
	spillStats() SpillStats
}

// spillRegistry collects a query's spilling operators so Result.Stats
// can sum them.
type spillRegistry struct {
	mu  sync.Mutex
	ops []spillReporter
}

// add registers an operator that may spill.
func (r *spillRegistry) add(op spillReporter) {
	if r == nil {
		return
	}
	r.mu.Lock()
	r.ops = append(r.ops, op)
	r.mu.Unlock()
}

// total sums what every registered operator spilled.
func (r *spillRegistry) total() SpillStats {
	var s SpillStats
	if r == nil {
		return s
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, op := range r.ops {
		s = s.Add(op.spillStats())
	}
	return s
}
