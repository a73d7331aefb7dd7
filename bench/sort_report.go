package bench

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/extsort"
)

// SortReport is what RunSort measured.
type SortReport struct {
	Config SortConfig
	Rows   int64 // of lineitem
	// Peer names DuckDB's version; PeerNote says why it is missing.
	Peer, PeerNote        string
	Results               []SortResult
	LoadBefore, LoadAfter string
	Targets               []TargetResult
}

// SortResult is one query with one spill codec, or in DuckDB.
type SortResult struct {
	Query, SQL string
	Codec      string // a codec setting, or "DuckDB"
	// Times is every run's time, in run order.
	Times []time.Duration
	// Failed says why the peer has no times (DuckDB out of memory).
	Failed string
	// Rows out and the sort's metrics, of the last run (quiver only).
	Rows    int64
	Metrics extsort.Metrics

	q      sortQuery
	codec  codec.Setting
	duck   bool
	viaSQL bool // through the query engine: Metrics has only what Stats says (-1: not known)
	// sortWorkers is the engine's Options.SortWorkers with viaSQL (0: serial).
	sortWorkers int
}

func (r *SortReport) result(query, codec string) (SortResult, bool) {
	for _, x := range r.Results {
		if x.Query == query && x.Codec == codec {
			return x, true
		}
	}
	return SortResult{}, false
}

func fmtMiB(n int64) string { return fmt.Sprintf("%.1f", float64(n)/(1<<20)) }

// Write prints the report: per query and codec the median time, the
// spilled bytes and files, DuckDB's time and the ratio, every run, and the
// targets.
func (r *SortReport) Write(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Sort benchmark: DataFusion's sort_tpch queries on TPC-H lineitem at SF %v (%s rows, in the cache with codec auto), memory limit %s MiB; medians of %d interleaved runs in ms, GOMAXPROCS = scan goroutines = DuckDB threads = %d.\n",
		r.Config.SF, commas(r.Rows), fmtMiB(r.Config.Memory), r.Config.Runs, r.Config.Goroutines)
	if r.Peer != "" {
		fmt.Fprintf(&b, "Peer: %s with memory_limit = %s MiB and a temp directory next to quiver's spill files, the same rows in a database file; its time is EXPLAIN ANALYZE of the query (the sort runs to the end and the rows are not sent to Go).\n", r.Peer, fmtMiB(r.Config.Memory))
	} else {
		fmt.Fprintf(&b, "%s.\n", r.PeerNote)
	}
	fmt.Fprintf(&b, "Each codec row sorts through package extsort directly (the cache scan's batches into a Sorter); \"(SQL)\" is the same query through the query engine's ORDER BY with Options.Spill, the memory limit being the whole query's, and \"(SQL, n sort workers)\" that ORDER BY sorted on n workers and gathered by a merge (Options.SortWorkers). Spill files compress a batch's buffers on %d goroutines.\n", r.Config.Goroutines)
	if r.LoadBefore != "" {
		fmt.Fprintf(&b, "Load average (1, 5, 15 min) before: %s; after: %s.\n", r.LoadBefore, r.LoadAfter)
	}
	b.WriteString("\n")
	t := newTable("query", "spill codec", ">ms", ">spread", ">÷ DuckDB", ">spilled MiB", ">files", ">runs", ">merge passes", ">rows kept in memory", ">peak MiB", ">spill write ms")
	for _, x := range r.Results {
		ratio := "-"
		if d, ok := r.result(x.Query, "DuckDB"); ok && !x.duck && d.Failed == "" {
			ratio = fmtTarget(timeRatio(x.Times, d.Times))
		}
		if x.Failed != "" {
			t.add(x.Query, x.Codec, x.Failed, "-", "-", "-", "-", "-", "-", "-", "-", "-")
			continue
		}
		if x.duck {
			t.add(x.Query, x.Codec, fmtMs(median(x.Times)), fmtPct(spread(x.Times)), "-", "-", "-", "-", "-", "-", "-", "-")
			continue
		}
		m := x.Metrics
		known := func(n int64) string {
			if n < 0 {
				return "-"
			}
			return commas(n)
		}
		t.add(x.Query, x.Codec, fmtMs(median(x.Times)), fmtPct(spread(x.Times)), ratio, fmtMiB(m.SpilledBytes),
			fmt.Sprint(m.SpillFiles), known(int64(m.Runs)), known(int64(m.MergePasses)), known(m.RowsKept), fmtMiB(m.PeakMemory), fmtMs(m.SpillTime))
	}
	t.write(&b)
	b.WriteString("\nThe queries:\n\n")
	seen := map[string]bool{}
	for _, x := range r.Results {
		if !seen[x.Query] {
			seen[x.Query] = true
			fmt.Fprintf(&b, "- %s: `%s`\n", x.Query, x.SQL)
		}
	}
	b.WriteString("\nEvery run, ms in run order\n\n")
	t = newTable("query", "spill codec", "runs")
	for _, x := range r.Results {
		t.add(x.Query, x.Codec, perRunMs(x.Times))
	}
	t.write(&b)
	b.WriteString("\n")
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	return writeTargets(w, r.Targets)
}

// Issue 7's targets at SF 1, 200 MiB: spilled bytes with zstd at most
// 0.75× what DataFusion spilled after #26960 (its MB are MiB: DataFusion
// prints sizes in units of 2^20), measured with zstd:1, the query engine's
// spill codec; and time within 1.5× DuckDB's, shown for every codec run
// (the issue does not tie it to one).
const (
	maxSpillVsDataFusion = 0.75
	maxSortVsDuckDB      = 1.5
	targetCodec          = "zstd:1"
)

func (r *SortReport) targets() []TargetResult {
	var ts []TargetResult
	atSF1 := r.Config.SF == 1 && r.Config.Memory == DefaultSortMemory
	for _, q := range sortQueries {
		if x, ok := r.result(q.label, targetCodec); ok {
			bytes := TargetResult{
				Name: fmt.Sprintf("%s: spilled bytes with %s ÷ DataFusion's %.1f MiB", q.label, targetCodec, q.dfSpilledMiB),
				Need: fmt.Sprintf("≤ %.2f", maxSpillVsDataFusion), Got: "-", OfMedians: "-",
			}
			got := float64(x.Metrics.SpilledBytes) / (q.dfSpilledMiB * (1 << 20))
			if atSF1 {
				bytes.Got, bytes.OfMedians = fmtTarget(got), fmtTarget(got)
				bytes.Measured, bytes.Pass = true, got <= maxSpillVsDataFusion
			} else {
				bytes.Note = fmt.Sprintf("DataFusion's figure is SF 1 at 200 MiB; here %s MiB spilled", fmtMiB(x.Metrics.SpilledBytes))
			}
			ts = append(ts, bytes)
		}
		for _, x := range r.Results {
			if x.Query != q.label || x.duck {
				continue
			}
			speed := TargetResult{
				Name: fmt.Sprintf("%s: time with %s ÷ DuckDB's", q.label, x.Codec),
				Need: fmt.Sprintf("≤ %.2f", maxSortVsDuckDB), Got: "-", OfMedians: "-",
			}
			if d, ok := r.result(q.label, "DuckDB"); ok && d.Failed != "" {
				speed.Note = d.Failed
			} else if ok {
				got := timeRatio(x.Times, d.Times)
				speed.Got, speed.OfMedians = fmtTarget(got), fmtTarget(ratioOfMedians(x.Times, d.Times))
				speed.Measured, speed.Pass = true, got <= maxSortVsDuckDB
			} else {
				speed.Note = r.PeerNote
			}
			ts = append(ts, speed)
		}
	}
	return ts
}
