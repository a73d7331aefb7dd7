package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"google.golang.org/grpc/codes"

	"github.com/quiverdb/quiver/convert"
	"github.com/quiverdb/quiver/internal/arrowsize"
	"github.com/quiverdb/quiver/internal/pull"
	"github.com/quiverdb/quiver/server"
)

const loadAbout = `Reads FILE (CSV/TSV, Parquet or Arrow IPC, told as 'quiver convert' tells them:
--from, else the magic bytes, else the extension) and loads it into a Flight SQL
server (quiver serve) as the table NAME with Flight SQL bulk ingest
(CommandStatementIngest). The upload is Arrow IPC compressed with --codec;
auto compresses with zstd unless the server is on this machine.

--mode create fails if NAME exists, append fails if it does not (and if the
schemas differ), replace creates NAME or replaces it. The server loads a table
whole or not at all.

The connection flags are those of 'quiver query --server': grpc://host:port,
grpc+tls://host:port (--tls-ca) or host:port; --token or the environment
variable QUIVER_TOKEN. Prints the rows loaded, the bytes sent and the time;
a progress line for uploads longer than a second.`

// loadMaxBatchBytes caps the Arrow bytes of one uploaded batch, well
// under the 64 MiB a quiver server accepts in one message by default
// (compression only shrinks it).
const loadMaxBatchBytes = 32 << 20

func runLoad(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("load", flag.ContinueOnError)
	var remote remoteFlags
	remote.register(fs, "grpc://"+server.DefaultListen)
	mode := fs.String("mode", "create", "create (NAME must not exist), append (NAME must exist) or replace")
	codecText := fs.String("codec", "auto", "upload compression: none, lz4, zstd, or auto (none to this machine, else zstd)")
	from := fs.String("from", "", "input format: csv, tsv, parquet or arrow (default: detect)")
	csvf := registerCSVFlags(fs)
	batchRows := fs.Int("batch-rows", convert.DefaultBatchRows, "rows per uploaded batch")
	quiet := fs.Bool("quiet", false, "no progress or summary on stderr")
	pos, err := parseFlags(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return printHelp(stdout, fs, "load [flags] NAME FILE", loadAbout)
	}
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return fmt.Errorf("%w: want NAME and FILE, got %d arguments", errUsage, len(pos))
	}
	name, file := pos[0], pos[1]
	if name == "" {
		return fmt.Errorf("%w: the table NAME is empty", errUsage)
	}
	defs, err := ingestMode(*mode)
	if err != nil {
		return err
	}
	if *batchRows <= 0 {
		return fmt.Errorf("%w: --batch-rows must be positive", errUsage)
	}
	target, err := parseTarget(remote.server)
	if err != nil {
		return err
	}
	ipcOpts, codecName, err := uploadCodec(*codecText, target)
	if err != nil {
		return err
	}

	cfg := convert.Config{BatchRows: *batchRows, MaxBytes: loadMaxBatchBytes, Alloc: remoteAlloc}
	copts, err := csvf.options(cfg)
	if err != nil {
		return err
	}
	src, closeIn, _, err := openInput(ctx, file, *from, copts)
	if err != nil {
		return err
	}
	defer closeIn()
	r, err := convert.NewReader(src, cfg)
	if err != nil {
		return err
	}
	defer r.Release()

	conn, err := remote.connect(stderr)
	if err != nil {
		return err
	}
	defer conn.Close()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	start := time.Now()
	var batches, arrowBytes int64
	var onBatch func(rows int64)
	up := pull.Records(r.Schema(), func() (arrow.RecordBatch, error) {
		rec, err := r.Next()
		if err == nil {
			batches++
			arrowBytes += arrowsize.Record(rec)
		}
		return rec, err
	})
	defer up.Release()
	if !*quiet {
		p := newFetchProgress(stderr, "sent")
		onBatch = func(rows int64) { p.update(rows, conn.sent.Load()) }
		defer p.done()
	}
	progress := &progressReader{Reader: up, onBatch: onBatch}
	n, err := conn.ExecuteIngestWithIPC(ctx, progress, &flightsql.ExecuteIngestOpts{Table: name, TableDefinitionOptions: defs}, ipcOpts)
	if err != nil {
		return loadError(conn.explain(err, "invalid input"), *mode)
	}
	if !*quiet {
		sent := conn.sent.Load()
		ratio := "-"
		if sent > 0 {
			ratio = fmt.Sprintf("%.2f", float64(arrowBytes)/float64(sent))
		}
		fmt.Fprintf(stderr, "%d rows loaded into %s (%s) in %s; %s sent (%s), %s as Arrow: ratio %s; %v\n",
			n, name, *mode, plural(batches, "batch", "batches"), humanBytes(sent), codecName, humanBytes(arrowBytes), ratio, time.Since(start).Round(time.Millisecond))
	}
	return nil
}

// ingestMode maps --mode to what Flight SQL ingest does when the table
// does not exist and when it does.
func ingestMode(mode string) (*flightsql.TableDefinitionOptions, error) {
	var d flightsql.TableDefinitionOptions
	switch mode {
	case "create":
		d.IfNotExist, d.IfExists = flightsql.TableDefinitionOptionsTableNotExistOptionCreate, flightsql.TableDefinitionOptionsTableExistsOptionFail
	case "append":
		d.IfNotExist, d.IfExists = flightsql.TableDefinitionOptionsTableNotExistOptionFail, flightsql.TableDefinitionOptionsTableExistsOptionAppend
	case "replace":
		d.IfNotExist, d.IfExists = flightsql.TableDefinitionOptionsTableNotExistOptionCreate, flightsql.TableDefinitionOptionsTableExistsOptionReplace
	default:
		return nil, fmt.Errorf("%w: --mode must be create, append or replace, not %q", errUsage, mode)
	}
	return &d, nil
}

// uploadCodec maps --codec to arrow-go's IPC options (arrow-go writes
// the upload; it has no zstd level) and the name to report.
func uploadCodec(text string, t target) ([]ipc.Option, string, error) {
	if text == "auto" {
		text = "zstd"
		if t.loopback() {
			text = "none"
		}
	}
	par := ipc.WithCompressConcurrency(runtime.GOMAXPROCS(0))
	switch text {
	case "none":
		return nil, text, nil
	case "lz4":
		return []ipc.Option{ipc.WithLZ4(), par}, text, nil
	case "zstd":
		return []ipc.Option{ipc.WithZstd(), par}, text, nil
	}
	return nil, "", fmt.Errorf("%w: --codec must be none, lz4, zstd or auto, not %q (arrow-go's upload has no zstd level)", errUsage, text)
}

// loadError adds what to do about a table that is, or is not, there,
// unless the server's message already says it (quiver's does, in Flight
// SQL's words).
func loadError(err error, mode string) error {
	var re *remoteError
	if !errors.As(err, &re) {
		return err
	}
	msg := strings.ToLower(re.st.Message())
	switch {
	case re.st.Code() == codes.AlreadyExists && mode == "create" && !strings.Contains(msg, "append"):
		re.hint = "--mode append or --mode replace to load into it"
	case re.st.Code() == codes.NotFound && mode == "append" && !strings.Contains(msg, "create"):
		re.hint = "--mode create to make it"
	}
	return err
}
