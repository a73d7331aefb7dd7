package bench

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/quiverdb/quiver/cache"
)

// CacheReport is what RunCache measured.
type CacheReport struct {
	Config    CacheConfig
	Relations []RelationResult
	// LoadBefore and LoadAfter are /proc/loadavg around the run, when
	// the system has one: the machine is shared, and load explains noise.
	LoadBefore, LoadAfter string
	Targets               []TargetResult
}

// RelationResult is every cell measured on one relation.
type RelationResult struct {
	Name       string // "comet", "int100"…
	Rows       int
	Columns    int
	Records    int
	ArrowBytes int64
	Queries    []string // the reads' labels: "read 0"…"read 6", "filter"
	Filter     string   // the filter's SQL, or ""
	// Cells are the settings in the order configured, then the peers.
	Cells []CellResult
}

// CellResult is one way of holding the relation.
type CellResult struct {
	Name      string // a cache setting, "uncompressed", "arrow-go lz4" or "arrow-go zstd"
	Peer      bool
	Footprint int64 // bytes
	Ratio     float64
	// Choices says what the cache's columns use ("codecs …; encodings …").
	Choices string
	// Materialize is every run's time, in order; nil for the
	// uncompressed records, which are not built by the cell.
	Materialize []time.Duration
	Reads       [][]time.Duration // per query, every run in order
	// Decoded of Batches are the batches each query decoded (last run).
	Decoded, Batches []int
}

// relationResult orders the cells for display: settings as configured,
// then the peers.
func relationResult(rel *relation, cells []*cacheCell, codecs []cache.CodecSetting) RelationResult {
	r := RelationResult{Name: rel.spec.Name(), Rows: rel.spec.Rows, Columns: rel.columns(), Records: len(rel.recs), ArrowBytes: rel.bytes}
	for _, q := range rel.queries {
		r.Queries = append(r.Queries, q.label)
		if q.filter != nil {
			r.Filter = fmt.Sprintf("%s BETWEEN %d AND %d", rel.schema.Field(q.filter.col).Name, q.filter.lo, q.filter.hi)
		}
	}
	order := func(c *cacheCell) int {
		if c.kind != cellCache {
			return len(codecs) + int(c.kind)
		}
		return slices.IndexFunc(codecs, func(s cache.CodecSetting) bool { return s.String() == c.name })
	}
	for _, c := range slices.SortedStableFunc(slices.Values(cells), func(a, b *cacheCell) int { return order(a) - order(b) }) {
		res := CellResult{
			Name: c.name, Peer: c.kind != cellCache, Footprint: c.footprint,
			Ratio: float64(rel.bytes) / float64(c.footprint), Choices: c.choices,
			Reads: c.reads, Decoded: c.decoded, Batches: c.batches,
		}
		if c.kind != cellMemory {
			res.Materialize = c.materialize
		}
		r.Cells = append(r.Cells, res)
	}
	return r
}

// Cell returns the cell named name.
func (r RelationResult) Cell(name string) (CellResult, bool) {
	i := slices.IndexFunc(r.Cells, func(c CellResult) bool { return c.Name == name })
	if i < 0 {
		return CellResult{}, false
	}
	return r.Cells[i], true
}

// Query returns the index of the query labelled label, or -1.
func (r RelationResult) Query(label string) int { return slices.Index(r.Queries, label) }

// Write prints a table per relation, every run, and the targets.
func (r *CacheReport) Write(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Cache benchmark (Comet's): medians of %d interleaved runs, in ms; Put, Scan and the peers run with GOMAXPROCS = goroutines = %d. Footprint in MiB (2^20 B); ratio = Arrow buffer bytes ÷ footprint. Every read sums the values it reads, and every answer is checked against the uncompressed records'.\n",
		r.Config.Runs, r.Config.Goroutines)
	b.WriteString("Peers: uncompressed = the records as built, summed in place (the physical limit of a read); arrow-go lz4/zstd = ipc.Writer WithLZ4()/WithZstd() into a bytes.Buffer (footprint: its length), read with ipc.NewReader, which decodes every column whatever the read needs; the buffer keeps its capacity from run to run.\n\n")
	if r.LoadBefore != "" {
		fmt.Fprintf(&b, "Load average (1, 5, 15 min) before: %s; after: %s.\n\n", r.LoadBefore, r.LoadAfter)
	}
	for _, rel := range r.Relations {
		rel.write(&b)
		b.WriteString("\n")
	}

	b.WriteString("Every run, ms in run order (cells of one run are measured back to back; a slow column is load from elsewhere)\n\n")
	t := newTable("relation", "setting", "materialize", "read all", "filter")
	for _, rel := range r.Relations {
		all, filter := rel.Query("read "+fmt.Sprint(rel.Columns)), rel.Query("filter")
		for _, c := range rel.Cells {
			f := ""
			if filter >= 0 {
				f = perRunMs(c.Reads[filter])
			}
			t.add(rel.Name, c.Name, perRunMs(c.Materialize), perRunMs(c.Reads[all]), f)
		}
	}
	t.write(&b)

	b.WriteString("\n")
	writeTargets(&b, r.Targets)
	_, err := io.WriteString(w, b.String())
	return err
}

// write prints one relation's table and what the cache's columns use.
func (r RelationResult) write(b *strings.Builder) {
	if r.Name == "comet" {
		fmt.Fprintf(b, "comet: %s rows × 6 columns (id, k, v int64; s1, s2, s3 utf8; each null 1 row in 8)", commas(int64(r.Rows)))
	} else {
		fmt.Fprintf(b, "%s: %s rows × %d nullable int64 columns (c_j row i = i·(j+1) + noise 0..15, null when (i+j)%%10 = 0)", r.Name, commas(int64(r.Rows)), r.Columns)
	}
	batches := "batches"
	if r.Records == 1 {
		batches = "batch"
	}
	fmt.Fprintf(b, " in %d %s, %s bytes of Arrow buffers. read N = the first N columns", r.Records, batches, commas(r.ArrowBytes))
	if r.Query("read 0") >= 0 {
		b.WriteString(" (0: count(*))")
	}
	if r.Filter != "" {
		fmt.Fprintf(b, "; filter = %s over all %d columns, summing the passing %s", r.Filter, r.Columns, strings.Fields(r.Filter)[0])
	}
	b.WriteString(".\n\n")

	head := []string{"setting", ">materialize ms", ">footprint MiB", ">ratio"}
	for _, q := range r.Queries {
		head = append(head, ">"+q+" ms")
	}
	filter := r.Query("filter")
	if filter >= 0 {
		head = append(head, ">filter decoded")
	}
	t := newTable(head...)
	for _, c := range r.Cells {
		mat := "-"
		if c.Materialize != nil {
			mat = fmtMs(median(c.Materialize))
		}
		row := []string{c.Name, mat, fmt.Sprintf("%.2f", float64(c.Footprint)/(1<<20)), fmtRatio(c.Ratio)}
		for _, ds := range c.Reads {
			row = append(row, fmtMs(median(ds)))
		}
		if filter >= 0 {
			row = append(row, fmt.Sprintf("%d of %d", c.Decoded[filter], c.Batches[filter]))
		}
		t.add(row...)
	}
	t.write(b)
	for _, c := range r.Cells {
		if c.Choices != "" && !c.Peer {
			fmt.Fprintf(b, "  %s: %s\n", c.Name, c.Choices)
		}
	}
}

// fmtMs prints a duration in ms, with two decimals below 10 ms.
func fmtMs(d time.Duration) string {
	ms := float64(d) / float64(time.Millisecond)
	if ms < 10 {
		return fmt.Sprintf("%.2f", ms)
	}
	return fmt.Sprintf("%.1f", ms)
}

func perRunMs(ds []time.Duration) string {
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = fmtMs(d)
	}
	return strings.Join(parts, " ")
}
