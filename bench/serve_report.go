package bench

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// ServeReport is what RunServe measured.
type ServeReport struct {
	Config ServeConfig
	Procs  int // GOMAXPROCS of the run
	// FullBytes and NumericBytes are the Arrow buffer bytes of the two
	// results at Config.Rows.
	FullBytes, NumericBytes int64
	Cells                   []ServeCellResult
	Targets                 []TargetResult
	LoadBefore, LoadAfter   string
}

// ServeCellResult is one cell: a result from one server with one codec,
// over loopback or the link.
type ServeCellResult struct {
	Result, Server, Codec string
	Link                  bool
	Rows                  int64
	RawBytes              int64 // Arrow buffer bytes of the result
	IPCBytes              int64 // FlightData bytes the client received
	WireBytes             int64 // TCP payload through the proxy (link cells)
	// SchemaNote says how the result's schema differed from the table's
	// (the values were equal, or the run would have failed).
	SchemaNote string
	Times      []time.Duration
}

func (c *serveCell) result() ServeCellResult {
	return ServeCellResult{Result: c.Result, Server: c.Server, Codec: c.Codec, Link: c.Link, Rows: c.Rows,
		RawBytes: c.RawBytes, IPCBytes: c.IPCBytes, WireBytes: c.WireBytes, SchemaNote: c.SchemaNote, Times: c.Times}
}

// Cell returns the cell of result from server with codec, over the link
// or loopback.
func (r *ServeReport) Cell(result, server, codec string, link bool) (ServeCellResult, bool) {
	for _, c := range r.Cells {
		if c.Result == result && c.Server == server && c.Codec == codec && c.Link == link {
			return c, true
		}
	}
	return ServeCellResult{}, false
}

// Write prints the loopback and link tables, every run and the targets.
func (r *ServeReport) Write(w io.Writer) error {
	cfg := r.Config
	var b strings.Builder
	fmt.Fprintf(&b, "Serve benchmark: TPC-DS catalog_sales (package tpcds), %s rows in %s-row batches, fetched whole (34 columns, %.0f MB of Arrow buffers) and as 8 numeric columns (%.0f MB); medians of %d runs.\n",
		commas(cfg.Rows), commas(int64(cfg.BatchRows)), float64(r.FullBytes)/1e6, float64(r.NumericBytes)/1e6, cfg.Runs)
	fmt.Fprintf(&b, "quiver: its Flight SQL server over the cache, one DoGet of a SELECT per fetch, codec set per session (%s). arrow-go: a plain Flight server streaming the same records from memory (flight.NewRecordWriter; zstd is ipc.WithZstd(), about level 3). Client: arrow-go's Flight reader, decoding every batch; gRPC's default 4 MiB receive limit for quiver, raised for the peer, which sends each batch as one message. Client, servers and proxies share one process, GOMAXPROCS %d.\n",
		"quiver.result.codec", r.Procs)
	if r.LoadBefore != "" {
		fmt.Fprintf(&b, "Load average (1, 5, 15 min) before: %s; after: %s.\n", r.LoadBefore, r.LoadAfter)
	}

	b.WriteString("\nLoopback (bytes: FlightData header and body bytes the client received; ÷ none: of the same server's none)\n\n")
	t := newTable("result", "server", "codec", ">rows", ">bytes", ">÷ none", ">ms", ">spread", ">MB/s")
	for _, c := range r.Cells {
		if c.Link {
			continue
		}
		t.add(c.Result, c.Server, c.Codec, commas(c.Rows), commas(c.IPCBytes), r.bytesVsNone(c),
			fmtMs(median(c.Times)), fmtPct(spread(c.Times)), fmtMBps(mbps(c.RawBytes, median(c.Times))))
	}
	t.write(&b)
	r.writeSchemaNotes(&b)

	fmt.Fprintf(&b, "\nThrough the link: %v MB/s each way (netlimit, in-process). The numeric result at %s rows, the whole result at %s rows so that one uncompressed fetch takes seconds, not minutes. Wire bytes: TCP payload from server to client (gRPC framing included); time ÷ none: median of the per-run ratios to the same server's none.\n\n",
		cfg.LinkMBps, commas(cfg.Rows), commas(cfg.LinkRows))
	t = newTable("result", "server", "codec", ">rows", ">wire bytes", ">÷ none", ">ms", ">spread", ">time ÷ none")
	for _, c := range r.Cells {
		if !c.Link {
			continue
		}
		vsNone := "-"
		if none, ok := r.Cell(c.Result, c.Server, "none", true); ok {
			vsNone = fmtTarget(timeRatio(c.Times, none.Times))
		}
		t.add(c.Result, c.Server, c.Codec, commas(c.Rows), commas(c.WireBytes), r.bytesVsNone(c),
			fmtMs(median(c.Times)), fmtPct(spread(c.Times)), vsNone)
	}
	t.write(&b)

	b.WriteString("\nEvery run, ms in run order\n\n")
	t = newTable("result", "server", "codec", "path", "runs")
	for _, c := range r.Cells {
		path := "loopback"
		if c.Link {
			path = "link"
		}
		t.add(c.Result, c.Server, c.Codec, path, perRunMs(c.Times))
	}
	t.write(&b)
	b.WriteString("\n")
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	return writeTargets(w, r.Targets)
}

// bytesVsNone is c's bytes over those of the same server's none on the
// same path.
func (r *ServeReport) bytesVsNone(c ServeCellResult) string {
	none, ok := r.Cell(c.Result, c.Server, "none", c.Link)
	num, den := c.IPCBytes, none.IPCBytes
	if c.Link {
		num, den = c.WireBytes, none.WireBytes
	}
	if !ok || den == 0 {
		return "-"
	}
	return fmtTarget(float64(num) / float64(den))
}

// Issue 6's targets (Kyuubi's figures in parentheses in the notes):
// zstd:1 sends at most 0.25× none's bytes on the numeric columns
// (Kyuubi 0.21); over the 20 MB/s link a zstd:1 fetch takes at most 0.35×
// none's time (Kyuubi 0.39 numeric, 0.46 whole); over loopback auto is
// within 1.1× of the arrow-go peer without compression, and lz4 within
// 1.3× of none.
const (
	maxZstdBytesVsNone = 0.25
	maxLinkTimeVsNone  = 0.35
	maxAutoVsPeer      = 1.1
	maxLZ4VsNone       = 1.3
	targetZstd         = "zstd:1"
)

func (r *ServeReport) targets() []TargetResult {
	var ts []TargetResult
	missing := func(name, need string) TargetResult {
		return TargetResult{Name: name, Need: need, Got: "-", OfMedians: "-", Note: "a cell was not measured"}
	}
	// Bytes are the same every run: got and of medians agree.
	name, need := "numeric: "+targetZstd+" bytes ÷ none bytes", fmt.Sprintf("≤ %.2f", maxZstdBytesVsNone)
	z, ok1 := r.Cell(resultNumeric, serverQuiver, targetZstd, false)
	n, ok2 := r.Cell(resultNumeric, serverQuiver, "none", false)
	if ok1 && ok2 && n.IPCBytes > 0 {
		got := float64(z.IPCBytes) / float64(n.IPCBytes)
		ts = append(ts, TargetResult{Name: name, Need: need, Got: fmtTarget(got), OfMedians: fmtTarget(got),
			Measured: true, Pass: got <= maxZstdBytesVsNone, Note: "Kyuubi 0.21"})
	} else {
		ts = append(ts, missing(name, need))
	}
	timeTarget := func(name string, num, den ServeCellResult, ok bool, limit float64, note string) TargetResult {
		need := fmt.Sprintf("≤ %.2f", limit)
		if !ok {
			return missing(name, need)
		}
		got := timeRatio(num.Times, den.Times)
		return TargetResult{Name: name, Need: need, Got: fmtTarget(got), OfMedians: fmtTarget(ratioOfMedians(num.Times, den.Times)),
			Measured: true, Pass: got <= limit, Note: note}
	}
	for _, res := range []string{resultNumeric, resultFull} {
		z, ok1 := r.Cell(res, serverQuiver, targetZstd, true)
		n, ok2 := r.Cell(res, serverQuiver, "none", true)
		kyuubi := map[string]string{resultNumeric: "Kyuubi 0.39", resultFull: "Kyuubi 0.46"}[res]
		ts = append(ts, timeTarget(fmt.Sprintf("%s over %v MB/s: %s time ÷ none time", res, r.Config.LinkMBps, targetZstd), z, n, ok1 && ok2, maxLinkTimeVsNone, kyuubi))
	}
	for _, res := range []string{resultNumeric, resultFull} {
		a, ok1 := r.Cell(res, serverQuiver, "auto", false)
		p, ok2 := r.Cell(res, serverPeer, "none", false)
		ts = append(ts, timeTarget(res+" loopback: auto time ÷ arrow-go none time", a, p, ok1 && ok2, maxAutoVsPeer, ""))
	}
	for _, res := range []string{resultNumeric, resultFull} {
		l, ok1 := r.Cell(res, serverQuiver, "lz4", false)
		n, ok2 := r.Cell(res, serverQuiver, "none", false)
		ts = append(ts, timeTarget(res+" loopback: lz4 time ÷ none time", l, n, ok1 && ok2, maxLZ4VsNone, ""))
	}
	return ts
}

// writeSchemaNotes lists, once per server and result, how the schema a
// server sent differed from the generated table's: the values matched,
// but wider types are more bytes to send.
func (r *ServeReport) writeSchemaNotes(b *strings.Builder) {
	seen := map[string]bool{}
	for _, c := range r.Cells {
		key := c.Server + " " + c.Result
		if c.SchemaNote == "" || seen[key] {
			continue
		}
		if len(seen) == 0 {
			b.WriteString("\nResult types that differ from the table's (values equal):\n")
		}
		seen[key] = true
		fmt.Fprintf(b, "- %s, %s result: %s\n", c.Server, c.Result, c.SchemaNote)
	}
}
