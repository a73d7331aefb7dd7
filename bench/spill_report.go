package bench

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// SpillReport is what RunSpill measured.
type SpillReport struct {
	Config                SpillConfig
	Datasets              []SpillDatasetResult
	LoadBefore, LoadAfter string
	Targets               []TargetResult
}

// SpillDatasetResult is one dataset under every cell.
type SpillDatasetResult struct {
	Name       string
	Schema     string
	Rows       int64
	ArrowBytes int64 // the MB/s numerator
	Cells      []SpillResult
}

// SpillResult is one implementation × codec: the file's size and every
// run's write and read time.
type SpillResult struct {
	Impl, Codec string
	Bytes       int64
	Write, Read []time.Duration
}

func (d SpillDatasetResult) cell(impl, codec string) (SpillResult, bool) {
	for _, c := range d.Cells {
		if c.Impl == impl && c.Codec == codec {
			return c, true
		}
	}
	return SpillResult{}, false
}

// Issue 7's spill_io target: on the string datasets (q16, wide) a zstd
// spill is at most 0.7× the bytes of plain zstd IPC and writes and reads
// at least as fast. arrow-go's zstd is klauspost's SpeedDefault (about
// level 3) and has no other level, so both quiver levels are held to it.
const (
	maxSpillVsZstd = 0.7
	needSpillSpeed = 1.0
)

var (
	spillTargetSets   = []string{"q16", "wide"}
	spillTargetCodecs = []string{"zstd:1", "zstd:3"}
)

func (r *SpillReport) targets() []TargetResult {
	var ts []TargetResult
	for _, name := range spillTargetSets {
		for _, level := range spillTargetCodecs {
			ts = append(ts, r.spillTargets(name, level)...)
		}
	}
	return ts
}

// spillTargets are the three targets of one dataset and quiver codec.
func (r *SpillReport) spillTargets(name, codecName string) []TargetResult {
	var d SpillDatasetResult
	for _, x := range r.Datasets {
		if x.Name == name {
			d = x
		}
	}
	q, ok1 := d.cell("quiver", codecName)
	a, ok2 := d.cell("arrow-go", "zstd")
	var ts []TargetResult
	add := func(what, need string, measure func() (got, ofMedians float64, pass bool)) {
		t := TargetResult{Name: fmt.Sprintf("%s: quiver %s %s arrow-go zstd", name, codecName, what), Need: need, Got: "-", OfMedians: "-"}
		if !ok1 || !ok2 {
			t.Note = "not run"
		} else {
			got, om, pass := measure()
			t.Got, t.OfMedians, t.Measured, t.Pass = fmtTarget(got), fmtTarget(om), true, pass
		}
		ts = append(ts, t)
	}
	add("bytes ÷", fmt.Sprintf("≤ %.2f", maxSpillVsZstd), func() (float64, float64, bool) {
		x := float64(q.Bytes) / float64(a.Bytes)
		return x, x, x <= maxSpillVsZstd
	})
	// Speeds as arrow-go's time ÷ quiver's: above 1 is faster.
	add("write speed ÷", fmt.Sprintf("≥ %.2f", needSpillSpeed), func() (float64, float64, bool) {
		x := pairedRatio(q.Write, a.Write)
		return x, float64(median(a.Write)) / float64(median(q.Write)), x >= needSpillSpeed
	})
	add("read speed ÷", fmt.Sprintf("≥ %.2f", needSpillSpeed), func() (float64, float64, bool) {
		x := pairedRatio(q.Read, a.Read)
		return x, float64(median(a.Read)) / float64(median(q.Read)), x >= needSpillSpeed
	})
	return ts
}

// Write prints a table per dataset, every run, and the targets.
func (r *SpillReport) Write(w io.Writer) error {
	var b strings.Builder
	c := r.Config
	fmt.Fprintf(&b, "Spill benchmark: DataFusion's spill_io datasets, %d batches × %s rows each; MB/s of the batches' Arrow buffer bytes (MB = 10^6 B), medians of %d interleaved runs, GOMAXPROCS = %d.\n",
		c.Batches, commas(int64(c.BatchRows)), c.Runs, c.Goroutines)
	b.WriteString("write = create the file, write every batch, close it (no fsync: the page cache, as a spill); read = open it and decode every batch into Arrow memory. quiver: spill.Manager / spill.Reader; arrow-go: ipc.Writer and ipc.Reader over 1 MiB bufio on an os.File, same dir.\n")
	if r.LoadBefore != "" {
		fmt.Fprintf(&b, "Load average (1, 5, 15 min) before: %s; after: %s.\n", r.LoadBefore, r.LoadAfter)
	}
	for _, d := range r.Datasets {
		fmt.Fprintf(&b, "\n%s: %s rows, %s bytes of Arrow buffers; %s\n\n", d.Name, commas(d.Rows), commas(d.ArrowBytes), d.Schema)
		zstd, hasZstd := d.cell("arrow-go", "zstd")
		t := newTable("impl", "codec", ">bytes on disk", ">Arrow ÷ disk", ">÷ arrow-go zstd", ">write MB/s", ">spread", ">read MB/s", ">spread")
		for _, x := range d.Cells {
			vs := "-"
			if hasZstd {
				vs = fmtRatio(float64(x.Bytes) / float64(zstd.Bytes))
			}
			t.add(x.Impl, x.Codec, commas(x.Bytes), fmtRatio(float64(d.ArrowBytes)/float64(x.Bytes)), vs,
				fmtMBps(mbps(d.ArrowBytes, median(x.Write))), fmtPct(spread(x.Write)),
				fmtMBps(mbps(d.ArrowBytes, median(x.Read))), fmtPct(spread(x.Read)))
		}
		t.write(&b)
	}
	b.WriteString("\nEvery run, MB/s in run order (write; read)\n\n")
	t := newTable("dataset", "impl", "codec", "write", "read")
	for _, d := range r.Datasets {
		for _, x := range d.Cells {
			t.add(d.Name, x.Impl, x.Codec, perRunMBps(d.ArrowBytes, x.Write), perRunMBps(d.ArrowBytes, x.Read))
		}
	}
	t.write(&b)
	b.WriteString("\n")
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	return writeTargets(w, r.Targets)
}

func perRunMBps(bytes int64, ds []time.Duration) string {
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = fmtMBps(mbps(bytes, d))
	}
	return strings.Join(parts, " ")
}
