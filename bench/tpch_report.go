package bench

import (
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	engine "github.com/quiverdb/quiver/query"
)

// TPCHReport is what RunTPCH measured.
type TPCHReport struct {
	Config TPCHConfig
	// Rows and Footprint are the eight tables' rows and compressed bytes
	// in the cache.
	Rows, Footprint int64
	// Peer names DuckDB's version; PeerNote says why it is missing.
	Peer, PeerNote        string
	Queries               []TPCHResult
	LoadBefore, LoadAfter string
	Targets               []TargetResult
}

// TPCHResult is one TPC-H query in both engines.
type TPCHResult struct {
	N   int // the query's number, 1 to 22
	SQL string
	// Refused is quiver's error when it does not answer the query; it
	// is then not timed in quiver.
	Refused string
	// Answer is DuckDB's answer digest (quiver's without the peer);
	// Differ says how quiver's differed, when it did.
	Answer, Differ string
	// Quiver and DuckDB are every run's time, in run order.
	Quiver, DuckDB []time.Duration
	// Spill and PeakMemory are what quiver's warm-up run spilled and
	// held at most.
	Spill      engine.SpillStats
	PeakMemory int64
}

// Ratio is the median of the per-run ratios quiver ÷ DuckDB, or 0 when
// either engine was not timed or the answers differ.
func (q TPCHResult) Ratio() float64 {
	if len(q.Quiver) == 0 || len(q.DuckDB) == 0 || q.Differ != "" {
		return 0
	}
	return timeRatio(q.Quiver, q.DuckDB)
}

// GeoMean is the geometric mean of the ratios of the queries both
// engines answered alike, and how many those are.
func (r *TPCHReport) GeoMean() (float64, int) {
	sum, n := 0.0, 0
	for _, q := range r.Queries {
		if x := q.Ratio(); x > 0 {
			sum += math.Log(x)
			n++
		}
	}
	if n == 0 {
		return 0, 0
	}
	return math.Exp(sum / float64(n)), n
}

// Write prints the report: a row per query with the medians and ratio,
// the geometric mean, every run, and the targets.
func (r *TPCHReport) Write(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "TPC-H benchmark: the 22 queries (spec text, validation parameters) over the eight tables at SF %v (%s rows, %.1f MiB in the cache, codec auto); medians of %d interleaved runs in ms, GOMAXPROCS = scan goroutines = DuckDB threads = %d.\n",
		r.Config.SF, commas(r.Rows), float64(r.Footprint)/(1<<20), r.Config.Runs, r.Config.Goroutines)
	if r.Peer != "" {
		fmt.Fprintf(&b, "Peer: %s, the same rows loaded from Parquet into in-memory tables; each query runs in quiver then in DuckDB, back to back, and both answers' rows agreed in a warm-up pass where both answered.\n", r.Peer)
	} else {
		fmt.Fprintf(&b, "%s.\n", r.PeerNote)
	}
	if r.Config.SF == 1 {
		b.WriteString("Every answer's rows and first value were checked against TPC-H's reference answers at SF 1.\n")
	}
	if r.LoadBefore != "" {
		fmt.Fprintf(&b, "Load average (1, 5, 15 min) before: %s; after: %s.\n", r.LoadBefore, r.LoadAfter)
	}
	b.WriteString("\n")
	t := newTable("query", ">quiver ms", ">DuckDB ms", ">quiver ÷ DuckDB", "answer (DuckDB)", "quiver's answer")
	for _, q := range r.Queries {
		qms, dms, ratio := "-", "-", "-"
		if len(q.Quiver) > 0 {
			qms = fmtMs(median(q.Quiver))
		}
		if len(q.DuckDB) > 0 {
			dms = fmtMs(median(q.DuckDB))
		}
		if x := q.Ratio(); x > 0 {
			ratio = fmtTarget(x)
		}
		status := "the same"
		switch {
		case q.Refused != "":
			status = "refused: " + q.Refused
		case q.Differ != "":
			status = "ANSWERS DIFFER: " + q.Differ
		case r.Peer == "":
			status = "(no peer)"
		}
		t.add(fmt.Sprintf("Q%d", q.N), qms, dms, ratio, q.Answer, status)
	}
	t.write(&b)
	switch g, n := r.GeoMean(); {
	case n > 0:
		fmt.Fprintf(&b, "\nGeometric mean of quiver ÷ DuckDB over the %d queries both answered: %s.\n", n, fmtTarget(g))
	case r.Peer == "":
		b.WriteString("\nNo peer, so no geometric mean.\n")
	default:
		b.WriteString("\nNo query was answered by both engines: no geometric mean.\n")
	}
	if r.Config.QueryMemory > 0 {
		fmt.Fprintf(&b, "\nquiver ran with a memory limit of %.1f MiB per query, spilling past it (DuckDB without a limit); what each query held at most and spilled (warm-up run):\n\n", float64(r.Config.QueryMemory)/(1<<20))
		t = newTable("query", ">peak MiB", ">spill files", ">spilled MiB", ">spilled rows", ">spill ms")
		for _, q := range r.Queries {
			if q.Refused != "" {
				t.add(fmt.Sprintf("Q%d", q.N), "-", "-", "-", "-", "-")
				continue
			}
			t.add(fmt.Sprintf("Q%d", q.N), fmt.Sprintf("%.1f", float64(q.PeakMemory)/(1<<20)), commas(q.Spill.Files),
				fmt.Sprintf("%.1f", float64(q.Spill.Bytes)/(1<<20)), commas(q.Spill.Rows), fmtMs(q.Spill.Time))
		}
		t.write(&b)
	}
	b.WriteString("\nEvery run, ms in run order (quiver; DuckDB)\n\n")
	t = newTable("query", "quiver", "DuckDB")
	for _, q := range r.Queries {
		t.add(fmt.Sprintf("Q%d", q.N), perRunMs(q.Quiver), perRunMs(q.DuckDB))
	}
	t.write(&b)
	b.WriteString("\n")
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	return writeTargets(w, r.Targets)
}

// Issue 12's targets, as ratios within one run: every query within 2×
// DuckDB's time, the geometric mean within 1.3×, and every query
// answered.
const (
	maxTPCHQuery   = 2.0
	maxTPCHGeoMean = 1.3
)

func (r *TPCHReport) targets() []TargetResult {
	answered, worst, worstN := 0, 0.0, 0
	for _, q := range r.Queries {
		if q.Refused == "" && q.Differ == "" {
			answered++
		}
		if x := q.Ratio(); x > worst {
			worst, worstN = x, q.N
		}
	}
	ts := []TargetResult{{
		Name: "queries quiver answers", Need: fmt.Sprintf("%d", len(r.Queries)),
		Got: fmt.Sprintf("%d", answered), OfMedians: "-",
		Measured: true, Pass: answered == len(r.Queries),
	}}
	g, n := r.GeoMean()
	slow := TargetResult{Name: "slowest query: quiver ÷ DuckDB", Need: fmt.Sprintf("≤ %.2f", maxTPCHQuery), Got: "-", OfMedians: "-"}
	geo := TargetResult{Name: "geometric mean: quiver ÷ DuckDB", Need: fmt.Sprintf("≤ %.2f", maxTPCHGeoMean), Got: "-", OfMedians: "-"}
	switch {
	case r.Peer == "":
		slow.Note, geo.Note = r.PeerNote, r.PeerNote
	case n == 0:
		slow.Note, geo.Note = "no query answered by both", "no query answered by both"
	default:
		slow.Got, slow.Measured, slow.Pass, slow.Note = fmtTarget(worst), true, worst <= maxTPCHQuery, fmt.Sprintf("Q%d", worstN)
		geo.Got, geo.Measured, geo.Pass, geo.Note = fmtTarget(g), true, g <= maxTPCHGeoMean, fmt.Sprintf("over %d queries", n)
	}
	return append(ts, slow, geo)
}
