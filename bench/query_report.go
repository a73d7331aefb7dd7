package bench

import (
	"fmt"
	"io"
	"strings"
	"time"

	engine "github.com/quiverdb/quiver/query"
)

// QueryReport is what RunQuery measured.
type QueryReport struct {
	Config  QueryConfig
	Rows    int64 // of lineitem
	Batches int
	// Footprint is lineitem's compressed bytes in the cache.
	Footprint int64
	// Peer names DuckDB's version; PeerNote says why it is missing.
	Peer, PeerNote        string
	Queries               []QueryResult
	LoadBefore, LoadAfter string
	Targets               []TargetResult
}

// QueryResult is one query in both engines.
type QueryResult struct {
	Label, SQL string
	// Answer is the digest both engines agreed on.
	Answer string
	// Quiver and DuckDB are every run's time, in run order; DuckDB is
	// nil without the peer.
	Quiver, DuckDB []time.Duration
	// Decoded, Skipped of Batches: the batches quiver's scan decoded and
	// pruning skipped (last run).
	Decoded, Skipped, Batches int
	// Spill and PeakMemory are what quiver's last run spilled and held
	// at most (query.Stats).
	Spill      engine.SpillStats
	PeakMemory int64
}

// Query returns the result labelled label.
func (r *QueryReport) Query(label string) (QueryResult, bool) {
	for _, q := range r.Queries {
		if q.Label == label {
			return q, true
		}
	}
	return QueryResult{}, false
}

// Write prints the report: the queries' medians and ratios, every run,
// and the targets.
func (r *QueryReport) Write(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Query benchmark: TPC-H lineitem at SF %v (%s rows, %d batches, %.1f MiB in the cache, codec auto); medians of %d interleaved runs in ms, GOMAXPROCS = scan goroutines = DuckDB threads = %d.\n",
		r.Config.SF, commas(r.Rows), r.Batches, float64(r.Footprint)/(1<<20), r.Config.Runs, r.Config.Goroutines)
	if r.Peer != "" {
		fmt.Fprintf(&b, "Peer: %s, the same rows loaded from Parquet into an in-memory table; each query runs in quiver then in DuckDB, back to back, and both answers' rows agreed in a warm-up pass.\n", r.Peer)
	} else {
		fmt.Fprintf(&b, "%s.\n", r.PeerNote)
	}
	if r.LoadBefore != "" {
		fmt.Fprintf(&b, "Load average (1, 5, 15 min) before: %s; after: %s.\n", r.LoadBefore, r.LoadAfter)
	}
	b.WriteString("\n")
	t := newTable("query", ">quiver ms", ">spread", ">DuckDB ms", ">quiver ÷ DuckDB", "batches decoded / skipped / all", "answer")
	for _, q := range r.Queries {
		duck, ratio := "-", "-"
		if len(q.DuckDB) > 0 {
			duck, ratio = fmtMs(median(q.DuckDB)), fmtTarget(timeRatio(q.Quiver, q.DuckDB))
		}
		t.add(q.Label, fmtMs(median(q.Quiver)), fmtPct(spread(q.Quiver)), duck, ratio,
			fmt.Sprintf("%d / %d / %d", q.Decoded, q.Skipped, q.Batches), q.Answer)
	}
	t.write(&b)
	b.WriteString("\nThe queries:\n\n")
	for _, q := range r.Queries {
		fmt.Fprintf(&b, "- %s: `%s`\n", q.Label, strings.Join(strings.Fields(q.SQL), " "))
	}
	b.WriteString("\nEvery run, ms in run order (quiver; DuckDB)\n\n")
	t = newTable("query", "quiver", "DuckDB")
	for _, q := range r.Queries {
		t.add(q.Label, perRunMs(q.Quiver), perRunMs(q.DuckDB))
	}
	t.write(&b)
	b.WriteString("\n")
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	return writeTargets(w, r.Targets)
}

// Issue 5's targets, as ratios within one run: Q1 and Q6 within 2×
// DuckDB's time, and the count over a range pruning can use at least 10×
// faster than the same count over the whole table (the range predicate
// written so that it cannot be pushed into the scan).
const (
	maxVsDuckDB  = 2.0
	maxPrunedCnt = 0.1
)

func (r *QueryReport) targets() []TargetResult {
	var ts []TargetResult
	for _, label := range []string{"Q1", "Q6", windowLabel, timestampLabel, stringsLabel} {
		q, ok := r.Query(label)
		x := TargetResult{Name: label + ": quiver ÷ DuckDB", Need: fmt.Sprintf("≤ %.2f", maxVsDuckDB), Got: "-", OfMedians: "-"}
		switch {
		case !ok:
			x.Note = "not run"
		case len(q.DuckDB) == 0:
			x.Note = r.PeerNote
		default:
			got := timeRatio(q.Quiver, q.DuckDB)
			x.Got, x.OfMedians = fmtTarget(got), fmtTarget(ratioOfMedians(q.Quiver, q.DuckDB))
			x.Measured, x.Pass = true, got <= maxVsDuckDB
		}
		ts = append(ts, x)
	}
	pruned, ok1 := r.Query("count orderkey range")
	full, ok2 := r.Query("count orderkey range, unpruned")
	x := TargetResult{Name: "pruned count ÷ full-table count", Need: fmt.Sprintf("≤ %.2f", maxPrunedCnt), Got: "-", OfMedians: "-"}
	if ok1 && ok2 {
		got := timeRatio(pruned.Quiver, full.Quiver)
		x.Got, x.OfMedians = fmtTarget(got), fmtTarget(ratioOfMedians(pruned.Quiver, full.Quiver))
		x.Measured, x.Pass = true, got <= maxPrunedCnt
		x.Note = fmt.Sprintf("decoded %d of %d batches", pruned.Decoded, pruned.Batches)
	}
	return append(ts, x)
}
