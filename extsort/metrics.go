package extsort

import (
	"fmt"
	"time"
)

// Metrics say what a sort did.
type Metrics struct {
	InputRows, OutputRows int64
	// Runs is the sorted runs spilled from memory; SpillFiles counts
	// those and the runs merge passes wrote.
	Runs, SpillFiles int
	// SpilledBytes is the bytes of all spill files written (on disk,
	// compressed); SpilledRows the rows written to them.
	SpilledBytes, SpilledRows int64
	// SpillTime is the time spent in spill writes (encoding, compressing,
	// writing), not counting sorting or merging.
	SpillTime time.Duration
	// RowsKept is the rows the final merge read from memory: the last
	// run, never spilled.
	RowsKept int64
	// MergePasses is the merges that wrote a run (0: one final merge, or
	// none).
	MergePasses int
	// Compactions is how often a top-k cut its rows back to k.
	Compactions int
	// PeakMemory is the most bytes the sort held at once, as accounted
	// against its budget.
	PeakMemory int64
}

func (m Metrics) String() string {
	return fmt.Sprintf("rows %d in, %d out; %d runs, %d spill files, %d bytes (%d rows) spilled in %v, %d rows kept in memory; %d merge passes; peak memory %d",
		m.InputRows, m.OutputRows, m.Runs, m.SpillFiles, m.SpilledBytes, m.SpilledRows, m.SpillTime.Round(time.Millisecond), m.RowsKept, m.MergePasses, m.PeakMemory)
}
