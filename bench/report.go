package bench

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"
)

// CodecsReport is what RunCodecs measured. Speeds are MB/s of ArrowBytes
// (see the package doc); spreads are (max-min)/median over the runs.
type CodecsReport struct {
	Config     CodecsConfig
	Rows       int
	Records    int
	Buffers    int
	ArrowBytes int64
	IPC        []IPCResult
	Alone      []AloneResult
	C          []CResult
	// CNote says why C is missing (built without -tags cref).
	CNote string
	// CVersions names the C libraries measured.
	CVersions string
	// LoadBefore and LoadAfter are /proc/loadavg around the run, when
	// the system has one: the machine is shared, and load explains noise.
	LoadBefore, LoadAfter string
	Targets               []TargetResult
}

// IPCResult is one side × codec × concurrency, end to end.
type IPCResult struct {
	Impl       string // "quiver" or "arrow-go"
	Codec      string
	Goroutines int
	Bytes      int64 // the whole stream
	Ratio      float64
	EncodeMBps float64 // median
	DecodeMBps float64
	EncodeBest float64 // fastest run: the least disturbed by other load
	DecodeBest float64
	EncodeSpread,
	DecodeSpread float64
	Encode, Decode []time.Duration // every run, in order
}

// AloneResult is one codec × concurrency over the records' buffers.
type AloneResult struct {
	Codec          string // a codec setting, or "copy()"
	Goroutines     int
	Bytes          int64
	Ratio          float64
	CompressMBps   float64 // median
	DecompressMBps float64
	DecompressBest float64 // fastest run
	CompressSpread,
	DecompressSpread float64
	Compress, Decompress []time.Duration // every run, in order
}

// CResult is a C library decoding the frames a quiver codec wrote.
type CResult struct {
	Impl   string // e.g. "C LZ4F_decompress"
	Codec  string // whose frames
	MBps   float64
	Best   float64
	Spread float64
	// QuiverOverC is quiver's one-goroutine decode speed of the same
	// frames ÷ this one's, the median of the per-run ratios.
	QuiverOverC float64
	Runs        []time.Duration
}

// TargetResult is one speed target, evaluated on this run.
type TargetResult struct {
	Name string
	Need string // e.g. "≥ 2.00"
	// Got is the median over runs of the ratio within each run (the two
	// cells run back to back); OfMedians is the ratio of the medians.
	Got       string
	OfMedians string
	Measured  bool
	Pass      bool
	Note      string
}

// fill turns the cells' runs into results and evaluates the targets.
func (r *CodecsReport) fill(ipcs []*ipcCell, alone []*aloneCell, cs []*cCell) {
	for _, c := range ipcs {
		r.IPC = append(r.IPC, IPCResult{
			Impl: c.impl, Codec: c.codec, Goroutines: c.goroutines, Bytes: c.bytes,
			Ratio:        float64(r.ArrowBytes) / float64(c.bytes),
			EncodeMBps:   mbps(r.ArrowBytes, median(c.encode)),
			DecodeMBps:   mbps(r.ArrowBytes, median(c.decode)),
			EncodeBest:   mbps(r.ArrowBytes, slices.Min(c.encode)),
			DecodeBest:   mbps(r.ArrowBytes, slices.Min(c.decode)),
			EncodeSpread: spread(c.encode), DecodeSpread: spread(c.decode),
			Encode: c.encode, Decode: c.decode,
		})
	}
	for _, c := range alone {
		r.Alone = append(r.Alone, AloneResult{
			Codec: c.run.name, Goroutines: c.goroutines, Bytes: c.bytes,
			Ratio:          float64(r.ArrowBytes) / float64(c.bytes),
			CompressMBps:   mbps(r.ArrowBytes, median(c.compress)),
			DecompressMBps: mbps(r.ArrowBytes, median(c.decompress)),
			DecompressBest: mbps(r.ArrowBytes, slices.Min(c.decompress)),
			CompressSpread: spread(c.compress), DecompressSpread: spread(c.decompress),
			Compress: c.compress, Decompress: c.decompress,
		})
	}
	for _, c := range cs {
		res := CResult{Impl: c.dec.Name(), Codec: c.codec, MBps: mbps(r.ArrowBytes, median(c.runs)),
			Best: mbps(r.ArrowBytes, slices.Min(c.runs)), Spread: spread(c.runs), Runs: c.runs}
		if q, ok := r.alone(c.codec, 1); ok {
			res.QuiverOverC = pairedRatio(q.Decompress, c.runs)
		}
		r.C = append(r.C, res)
	}
	r.Targets = r.targets()
}

func (r *CodecsReport) ipc(impl, codec string, g int) (IPCResult, bool) {
	for _, x := range r.IPC {
		if x.Impl == impl && x.Codec == codec && x.Goroutines == g {
			return x, true
		}
	}
	return IPCResult{}, false
}

func (r *CodecsReport) alone(codec string, g int) (AloneResult, bool) {
	for _, x := range r.Alone {
		if x.Codec == codec && x.Goroutines == g {
			return x, true
		}
	}
	return AloneResult{}, false
}

// Write prints the tables and the targets.
func (r *CodecsReport) Write(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Comet relation: %s rows in %d records, %d buffers, %s bytes of Arrow buffers (the MB/s numerator; MB = 10^6 B). Medians of %d interleaved runs; spread = (max-min)/median. Each cell runs with GOMAXPROCS = goroutines.\n\n",
		commas(int64(r.Rows)), r.Records, r.Buffers, commas(r.ArrowBytes), r.Config.Runs)
	if r.LoadBefore != "" {
		fmt.Fprintf(&b, "Load average (1, 5, 15 min) before: %s; after: %s.\n\n", r.LoadBefore, r.LoadAfter)
	}

	b.WriteString("End to end (quiver: Encoder.Encode per record into a stream, read back with a StreamReader that decodes 2n batches ahead at n goroutines > 1; arrow-go: ipc.Writer / ipc.Reader on an in-memory stream, reading serially at any goroutines)\n\n")
	t := newTable("impl", "codec", ">goroutines", ">bytes", ">ratio", ">encode MB/s", ">enc best", ">enc spread", ">decode MB/s", ">dec best", ">dec spread")
	for _, x := range r.IPC {
		t.add(x.Impl, x.Codec, fmt.Sprint(x.Goroutines), commas(x.Bytes), fmtRatio(x.Ratio),
			fmtMBps(x.EncodeMBps), fmtMBps(x.EncodeBest), fmtPct(x.EncodeSpread),
			fmtMBps(x.DecodeMBps), fmtMBps(x.DecodeBest), fmtPct(x.DecodeSpread))
	}
	t.write(&b)

	b.WriteString("\nCodec alone (Compress/Decompress per Arrow buffer, no IPC; copy() is the physical limit)\n\n")
	t = newTable("codec", ">goroutines", ">bytes", ">ratio", ">compress MB/s", ">comp spread", ">decompress MB/s", ">dec best", ">dec spread")
	for _, x := range r.Alone {
		t.add(x.Codec, fmt.Sprint(x.Goroutines), commas(x.Bytes), fmtRatio(x.Ratio),
			fmtMBps(x.CompressMBps), fmtPct(x.CompressSpread),
			fmtMBps(x.DecompressMBps), fmtMBps(x.DecompressBest), fmtPct(x.DecompressSpread))
	}
	t.write(&b)

	b.WriteString("\nC libraries decoding the same frames (one goroutine)")
	if r.CVersions != "" {
		b.WriteString(", " + r.CVersions)
	}
	b.WriteString("\n\n")
	if r.CNote != "" {
		b.WriteString("Not measured: " + r.CNote + ".\n")
	} else {
		t = newTable("C decoder", "frames of", ">decode MB/s", ">best", ">spread", ">quiver ÷ C")
		for _, x := range r.C {
			t.add(x.Impl, x.Codec, fmtMBps(x.MBps), fmtMBps(x.Best), fmtPct(x.Spread), fmtRatio(x.QuiverOverC))
		}
		t.write(&b)
	}

	b.WriteString("\nEvery run, MB/s in run order (cells of one run are measured back to back; a slow column is load from elsewhere)\n\n")
	t = newTable("impl", "codec", ">goroutines", "encode", "decode")
	for _, x := range r.IPC {
		t.add(x.Impl, x.Codec, fmt.Sprint(x.Goroutines), r.perRun(x.Encode), r.perRun(x.Decode))
	}
	for _, x := range r.Alone {
		t.add("alone", x.Codec, fmt.Sprint(x.Goroutines), r.perRun(x.Compress), r.perRun(x.Decompress))
	}
	for _, x := range r.C {
		t.add(x.Impl, x.Codec, "1", "", r.perRun(x.Runs))
	}
	t.write(&b)

	b.WriteString("\n")
	writeTargets(&b, r.Targets)
	_, err := io.WriteString(w, b.String())
	return err
}

// perRun lists the speed of every run.
func (r *CodecsReport) perRun(ds []time.Duration) string {
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = fmtMBps(mbps(r.ArrowBytes, d))
	}
	return strings.Join(parts, " ")
}

// loadAverage is the first three fields of /proc/loadavg, or "".
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}
