package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/datagen/tpcds"
	"github.com/quiverdb/quiver/internal/netlimit"
)

// ServeConfig configures RunServe. Zero fields take the defaults given.
type ServeConfig struct {
	// Rows of catalog_sales fetched whole and as its 8 numeric columns;
	// default 2,000,000 (issue 6: at least 2 million).
	Rows int64
	// LinkRows is the rows of the whole (34-column) result fetched over
	// the throttled link, where Rows would take minutes per fetch at
	// 20 MB/s; default min(Rows, 500,000). The numeric result goes over
	// the link at Rows.
	LinkRows int64
	// BatchRows is the rows of the generated batches, which the peer
	// sends as they are and the cache stores; default 10,000 (Spark's
	// maxRecordsPerBatch, Kyuubi's batches).
	BatchRows int
	// Runs is how many times each cell is measured; the report gives
	// medians. Default 3.
	Runs int
	// LinkMBps is the throttled link's rate in MB/s (10^6 bytes) each
	// way; default 20 (Kyuubi's cross-subnet link).
	LinkMBps float64
	// Codecs are the result codecs quiver's server is measured with
	// (session option quiver.result.codec); default none, lz4, zstd:1,
	// zstd:3, zstd:19. "auto" is measured over loopback whether listed or
	// not (its target compares it there); over the link it would be none,
	// since the proxy reaches the server from loopback.
	Codecs []string
	// Alloc allocates the records, the cache, the server and the client;
	// default Go's allocator for the records, the peer and the client, and
	// the cache's and server's own defaults (the recycling allocator, as
	// `quiver serve` runs) for quiver. Tests pass a CheckedAllocator.
	Alloc memory.Allocator
	// quiverDefaults is set when Alloc was not given: quiver's cache and
	// server then use their own defaults.
	quiverDefaults bool
	// Progress, when set, gets a line per phase.
	Progress io.Writer
}

// DefaultServeCodecs are the codecs issue 6 measures.
var DefaultServeCodecs = []string{"none", "lz4", "zstd:1", "zstd:3", "zstd:19"}

func (c ServeConfig) withDefaults() ServeConfig {
	if c.Rows == 0 {
		c.Rows = 2_000_000
	}
	if c.LinkRows == 0 {
		c.LinkRows = min(c.Rows, 500_000)
	}
	if c.BatchRows == 0 {
		c.BatchRows = tpcds.DefaultBatchRows
	}
	if c.Runs == 0 {
		c.Runs = 3
	}
	if c.LinkMBps == 0 {
		c.LinkMBps = 20
	}
	if c.Codecs == nil {
		c.Codecs = DefaultServeCodecs
	}
	if c.Alloc == nil {
		c.quiverDefaults = true
		c.Alloc = memory.DefaultAllocator
	}
	return c
}

// Validate reports a field that cannot be used.
func (c ServeConfig) Validate() error {
	if c.Rows < 0 || c.LinkRows < 0 || c.BatchRows < 0 || c.Runs < 0 {
		return fmt.Errorf("bench: negative Rows %d, LinkRows %d, BatchRows %d or Runs %d", c.Rows, c.LinkRows, c.BatchRows, c.Runs)
	}
	if c.LinkRows > c.Rows && c.Rows != 0 {
		return fmt.Errorf("bench: LinkRows %d above Rows %d", c.LinkRows, c.Rows)
	}
	if c.LinkMBps < 0 || math.IsNaN(c.LinkMBps) || math.IsInf(c.LinkMBps, 0) || (c.LinkMBps > 0 && c.LinkMBps*1e6 < 1) {
		return fmt.Errorf("bench: LinkMBps %v", c.LinkMBps)
	}
	for _, s := range c.Codecs {
		if s == "auto" {
			continue
		}
		if _, err := codec.ParseSetting(s); err != nil {
			return fmt.Errorf("bench: codec %q: %w", s, err)
		}
	}
	return nil
}

// Result names.
const (
	resultFull    = "full"
	resultNumeric = "numeric"
	serverQuiver  = "quiver"
	serverPeer    = "arrow-go"
)

// serveCell is one measured combination: a result, a server and codec,
// loopback or the link.
type serveCell struct {
	Result, Server, Codec string
	Link                  bool
	Rows                  int64
	RawBytes              int64 // Arrow buffer bytes of the result
	schema                *arrow.Schema
	open                  openFunc
	proxy                 *netlimit.Proxy // link cells
	want                  resultDigest

	IPCBytes   int64 // FlightData bytes, as the client counts them
	WireBytes  int64 // TCP payload through the proxy, link cells
	SchemaNote string
	Times      []time.Duration
}

// serveData is the generated results: the whole table at Rows and at
// LinkRows, and the numeric projection at Rows.
type serveData struct {
	results map[string]peerResult // "full", "numeric", "full-link"
	tables  map[string]peerResult // what the cache holds
	digests map[string]resultDigest
}

func (d *serveData) release() {
	for _, r := range d.results {
		release(r.recs)
	}
	for _, t := range d.tables {
		release(t.recs)
	}
}

const (
	tableMain = "catalog_sales"
	tableLink = "catalog_sales_link"
)

func generateServeData(cfg ServeConfig) (*serveData, error) {
	gen := func(rows int64) ([]arrow.RecordBatch, error) {
		r := tpcds.CatalogSales(cfg.Alloc, rows, cfg.BatchRows)
		defer r.Release()
		var recs []arrow.RecordBatch
		for r.Next() {
			rec := r.RecordBatch()
			rec.Retain()
			recs = append(recs, rec)
		}
		return recs, r.Err()
	}
	d := &serveData{results: map[string]peerResult{}, tables: map[string]peerResult{}, digests: map[string]resultDigest{}}
	full, err := gen(cfg.Rows)
	if err != nil {
		return nil, err
	}
	link := full
	if cfg.LinkRows != cfg.Rows {
		if link, err = gen(cfg.LinkRows); err != nil {
			release(full)
			return nil, err
		}
	}
	var numeric []arrow.RecordBatch
	for _, rec := range full {
		cols := make([]arrow.Array, len(tpcds.NumericColumns))
		for i, c := range tpcds.NumericColumns {
			cols[i] = rec.Column(c)
		}
		numeric = append(numeric, array.NewRecordBatch(tpcds.NumericSchema, cols, rec.NumRows()))
	}
	// Every map entry holds its own reference; the generator's go at the
	// end.
	retained := func(recs []arrow.RecordBatch) []arrow.RecordBatch {
		for _, r := range recs {
			r.Retain()
		}
		return recs
	}
	d.results[resultFull] = peerResult{tpcds.CatalogSalesSchema, retained(full)}
	d.results[resultNumeric] = peerResult{tpcds.NumericSchema, numeric}
	d.results[resultFull+"-link"] = peerResult{tpcds.CatalogSalesSchema, retained(link)}
	d.tables[tableMain] = peerResult{tpcds.CatalogSalesSchema, retained(full)}
	if cfg.LinkRows != cfg.Rows {
		d.tables[tableLink] = peerResult{tpcds.CatalogSalesSchema, retained(link)}
		release(link)
	}
	release(full)
	for name, r := range d.results {
		if d.digests[name], err = digestOf(r.recs); err != nil {
			d.release()
			return nil, err
		}
	}
	return d, nil
}

// RunServe measures fetching catalog_sales from quiver's Flight SQL
// server, per result codec, and from a plain arrow-go Flight server with
// and without zstd, over loopback and through a TCP proxy that limits the
// link to cfg.LinkMBps. Every cell is fetched once first and its values
// checked against the generated table; then each run fetches every cell
// once, back to back. The report gives bytes, medians and the targets.
func RunServe(ctx context.Context, cfg ServeConfig, out io.Writer) (*ServeReport, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	logf := progressf(cfg.Progress)
	rep := &ServeReport{Config: cfg, LoadBefore: loadAverage(), Procs: runtime.GOMAXPROCS(0)}

	start := time.Now()
	data, err := generateServeData(cfg)
	if err != nil {
		return nil, err
	}
	defer data.release()
	rep.FullBytes = ArrowBytes(data.results[resultFull].recs)
	rep.NumericBytes = ArrowBytes(data.results[resultNumeric].recs)
	logf("bench: catalog_sales: %s rows, %.0f MB of Arrow buffers (numeric columns %.0f MB), generated in %v",
		commas(cfg.Rows), float64(rep.FullBytes)/1e6, float64(rep.NumericBytes)/1e6, time.Since(start).Round(time.Millisecond))

	env, err := startServeEnv(ctx, cfg, data)
	if err == nil {
		logf("bench: quiver's server at %s, the arrow-go peer at %s, links at %v MB/s through %s and %s",
			env.quiver.addr(), env.peer.addr(), cfg.LinkMBps, env.quiverLink.Addr(), env.peerLink.Addr())
		err = measureServe(ctx, cfg, env, data, rep, logf)
	}
	if cerr := env.close(); err == nil && cerr != nil {
		err = fmt.Errorf("bench: stopping the servers: %w", cerr)
	}
	if err != nil {
		return nil, err
	}
	rep.LoadAfter = loadAverage()
	rep.Targets = rep.targets()
	return rep, rep.Write(out)
}

// measureServe builds the cells, warms them up and measures cfg.Runs
// runs into rep.
func measureServe(ctx context.Context, cfg ServeConfig, env *serveEnv, data *serveData, rep *ServeReport, logf func(string, ...any)) error {
	cells, err := env.cells(ctx, cfg, data)
	if err != nil {
		return err
	}
	if err := warmUpServe(ctx, cfg.Alloc, cells, logf); err != nil {
		return err
	}
	for run := range cfg.Runs {
		logf("bench: run %d of %d", run+1, cfg.Runs)
		for _, c := range cells {
			f, err := fetch(ctx, c.open, cfg.Alloc, nil)
			if err != nil {
				return fmt.Errorf("bench: %s: %w", c.name(), err)
			}
			if f.Rows != c.Rows {
				return fmt.Errorf("bench: %s: %d rows, want %d", c.name(), f.Rows, c.Rows)
			}
			c.Times = append(c.Times, f.Elapsed)
		}
	}
	rep.Cells = make([]ServeCellResult, len(cells))
	for i, c := range cells {
		rep.Cells[i] = c.result()
	}
	return nil
}

func (c *serveCell) name() string {
	where := "loopback"
	if c.Link {
		where = "link"
	}
	return fmt.Sprintf("%s %s %s over %s", c.Result, c.Server, c.Codec, where)
}

// warmUpServe fetches every cell once, checks its values against the
// generated result, and records its bytes.
func warmUpServe(ctx context.Context, mem memory.Allocator, cells []*serveCell, logf func(string, ...any)) error {
	for _, c := range cells {
		var before netlimit.Stats
		if c.proxy != nil {
			before = c.proxy.Stats()
		}
		var d resultDigest
		f, err := fetch(ctx, c.open, mem, &d)
		if err != nil {
			return fmt.Errorf("bench: %s: %w", c.name(), err)
		}
		if !d.equal(c.want) {
			return fmt.Errorf("bench: %s: the values fetched (%d rows) differ from those generated (%d rows)", c.name(), d.Rows, c.want.Rows)
		}
		c.IPCBytes = f.IPCBytes
		c.SchemaNote = schemaDiff(c.schema, f.Schema)
		if c.proxy != nil {
			c.WireBytes = c.proxy.Stats().Down - before.Down
		}
		logf("bench: %s: %s rows, %s bytes in %d batches, %v", c.name(), commas(f.Rows), commas(f.IPCBytes), f.Batches, f.Elapsed.Round(time.Millisecond))
	}
	return nil
}

// serveEnv is what a run needs running: both servers, a link to each,
// and the clients.
type serveEnv struct {
	mem                  memory.Allocator
	peer                 *peerServer
	quiver               *quiverSide
	peerLink, quiverLink *netlimit.Proxy
	peerClients          []flight.Client
	quiverClients        map[string]*flightsql.Client // by codec and path
}

func startServeEnv(ctx context.Context, cfg ServeConfig, data *serveData) (*serveEnv, error) {
	env := &serveEnv{mem: cfg.Alloc, quiverClients: map[string]*flightsql.Client{}}
	var err error
	if env.peer, err = startPeer(cfg.Alloc, data.results); err != nil {
		return env, err
	}
	quiverMem := cfg.Alloc
	if cfg.quiverDefaults {
		quiverMem = nil
	}
	if env.quiver, err = startQuiver(ctx, quiverMem, data.tables); err != nil {
		return env, err
	}
	rate := int64(cfg.LinkMBps * 1e6)
	if env.peerLink, err = netlimit.Listen("127.0.0.1:0", env.peer.addr(), rate); err != nil {
		return env, err
	}
	env.quiverLink, err = netlimit.Listen("127.0.0.1:0", env.quiver.addr(), rate)
	return env, err
}

// close stops everything started, clients first so the servers' graceful
// stops do not wait on them.
func (e *serveEnv) close() error {
	var errs []error
	for _, c := range e.peerClients {
		errs = append(errs, c.Close())
	}
	for _, c := range e.quiverClients {
		errs = append(errs, c.Close())
	}
	for _, p := range []*netlimit.Proxy{e.peerLink, e.quiverLink} {
		if p != nil {
			errs = append(errs, p.Close())
		}
	}
	if e.peer != nil {
		errs = append(errs, e.peer.stop())
	}
	if e.quiver != nil {
		errs = append(errs, e.quiver.stop())
	}
	return errors.Join(errs...)
}

// cells builds every cell in measuring order: per path, per result, the
// peer without and with zstd, then quiver per codec.
func (e *serveEnv) cells(ctx context.Context, cfg ServeConfig, data *serveData) ([]*serveCell, error) {
	var cells []*serveCell
	for _, link := range []bool{false, true} {
		addr, peerAddr, proxy := e.quiver.addr(), e.peer.addr(), (*netlimit.Proxy)(nil)
		if link {
			addr, peerAddr = e.quiverLink.Addr().String(), e.peerLink.Addr().String()
			proxy = e.quiverLink
		}
		pc, err := dialPeer(peerAddr)
		if err != nil {
			return nil, err
		}
		e.peerClients = append(e.peerClients, pc)
		codecs := slices.Clone(cfg.Codecs)
		if !link && !slices.Contains(codecs, "auto") {
			codecs = append(codecs, "auto")
		}
		if link {
			codecs = slices.DeleteFunc(codecs, func(s string) bool { return s == "auto" })
		}
		for _, result := range []string{resultNumeric, resultFull} {
			key, table, rows := result, tableMain, cfg.Rows
			if link && result == resultFull {
				key, rows = resultFull+"-link", cfg.LinkRows
				if cfg.LinkRows != cfg.Rows {
					table = tableLink
				}
			}
			res := data.results[key]
			cell := func(server, codec string, open openFunc, p *netlimit.Proxy) *serveCell {
				return &serveCell{Result: result, Server: server, Codec: codec, Link: link, Rows: rows,
					RawBytes: ArrowBytes(res.recs), schema: res.schema, open: open, proxy: p, want: data.digests[key]}
			}
			peerProxy := (*netlimit.Proxy)(nil)
			if link {
				peerProxy = e.peerLink
			}
			for _, comp := range []string{"none", "zstd"} {
				cells = append(cells, cell(serverPeer, comp, peerOpen(pc, key, comp), peerProxy))
			}
			sql := selectSQL(table, res.schema)
			for _, codec := range codecs {
				cl, err := e.quiverClient(ctx, addr, codec, link)
				if err != nil {
					return nil, err
				}
				open, err := quiverOpen(ctx, cl, sql)
				if err != nil {
					return nil, err
				}
				cells = append(cells, cell(serverQuiver, codec, open, proxy))
			}
		}
	}
	return cells, nil
}

// quiverClient returns the session for codec on one path, dialling it
// the first time: one session per codec, as a client that sets the
// option once would have.
func (e *serveEnv) quiverClient(ctx context.Context, addr, codec string, link bool) (*flightsql.Client, error) {
	key := fmt.Sprintf("%s|%v", codec, link)
	if cl := e.quiverClients[key]; cl != nil {
		return cl, nil
	}
	cl, err := dialQuiver(ctx, addr, codec)
	if err != nil {
		return nil, err
	}
	e.quiverClients[key] = cl
	return cl, nil
}
