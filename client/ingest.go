package client

import (
	"context"
	"fmt"
	"runtime"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/ipc"

	"github.com/quiverdb/quiver/convert"
	"github.com/quiverdb/quiver/convert/input"
	"github.com/quiverdb/quiver/internal/arrowsize"
	"github.com/quiverdb/quiver/internal/pull"
)

// Mode says what an ingest does when the table exists, and when not.
type Mode int

const (
	Create  Mode = iota // make the table; fail if it exists
	Append              // add to the table; fail if it does not exist (or the schemas differ)
	Replace             // make the table, or replace it whole
)

func (m Mode) String() string {
	switch m {
	case Create:
		return "create"
	case Append:
		return "append"
	case Replace:
		return "replace"
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// ParseMode reads create, append or replace.
func ParseMode(s string) (Mode, error) {
	for _, m := range []Mode{Create, Append, Replace} {
		if s == m.String() {
			return m, nil
		}
	}
	return Create, fmt.Errorf("%w: ingest mode must be create, append or replace, not %q", ErrOptions, s)
}

func (m Mode) definition() (*flightsql.TableDefinitionOptions, error) {
	var d flightsql.TableDefinitionOptions
	switch m {
	case Create:
		d.IfNotExist, d.IfExists = flightsql.TableDefinitionOptionsTableNotExistOptionCreate, flightsql.TableDefinitionOptionsTableExistsOptionFail
	case Append:
		d.IfNotExist, d.IfExists = flightsql.TableDefinitionOptionsTableNotExistOptionFail, flightsql.TableDefinitionOptionsTableExistsOptionAppend
	case Replace:
		d.IfNotExist, d.IfExists = flightsql.TableDefinitionOptionsTableNotExistOptionCreate, flightsql.TableDefinitionOptionsTableExistsOptionReplace
	default:
		return nil, fmt.Errorf("%w: ingest mode %v", ErrOptions, m)
	}
	return &d, nil
}

// IngestOptions configure an upload.
type IngestOptions struct {
	Mode Mode
	// Codec compresses the upload: none, lz4, zstd, or auto (the zero
	// value): none to this machine, zstd elsewhere. arrow-go writes the
	// upload and has no zstd level.
	Codec string
	// OnBatch, if set, is called after each batch is taken for sending
	// with the counts so far (a progress line).
	OnBatch func(IngestProgress)
}

// IngestProgress counts what an upload has taken for sending.
type IngestProgress struct {
	Rows, Batches int64
	Arrow         int64 // Arrow buffer bytes of the batches (arrowsize.Record)
}

// UploadCodec resolves an upload codec for the target (auto to none or
// zstd) and returns arrow-go's IPC options for it.
func (t Target) UploadCodec(text string) (ipcOpts []ipc.Option, resolved string, err error) {
	if text == "" || text == "auto" {
		text = "zstd"
		if t.Loopback() {
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
	return nil, "", fmt.Errorf("%w: upload codec must be none, lz4, zstd or auto, not %q (arrow-go's upload has no zstd level)", ErrOptions, text)
}

// Ingest uploads every batch of rr into table with Flight SQL bulk
// ingest and returns the rows the server loaded. The server loads the
// table whole or not at all. Each batch must fit the server's message
// limit (64 MiB by default); IngestFile cuts batches to fit.
func (c *Client) Ingest(ctx context.Context, table string, rr array.RecordReader, opts IngestOptions) (int64, error) {
	if table == "" {
		return 0, fmt.Errorf("%w: the table name is empty", ErrOptions)
	}
	defs, err := opts.Mode.definition()
	if err != nil {
		return 0, err
	}
	ipcOpts, _, err := c.target.UploadCodec(opts.Codec)
	if err != nil {
		return 0, err
	}
	ipcOpts = append(ipcOpts, ipc.WithAllocator(c.opts.Alloc))
	if opts.OnBatch != nil {
		rr = &progressReader{RecordReader: rr, onBatch: opts.OnBatch}
	}
	n, err := c.fs.ExecuteIngestWithIPC(ctx, rr, &flightsql.ExecuteIngestOpts{Table: table, TableDefinitionOptions: defs}, ipcOpts)
	return n, c.explain(err, "invalid input")
}

// IngestFileBatchBytes caps the Arrow bytes of one batch IngestFile
// sends, well under the 64 MiB a quiver server accepts in one message by
// default (compression only shrinks it).
const IngestFileBatchBytes = 32 << 20

// IngestFile uploads a CSV, TSV, Parquet or Arrow IPC file (told as
// input.Open tells it) into table, in batches of in.Convert's rows (at
// most IngestFileBatchBytes each unless in.Convert.MaxBytes says
// otherwise). A file that does not parse fails before anything is sent.
func (c *Client) IngestFile(ctx context.Context, table, path string, in input.Options, opts IngestOptions) (int64, error) {
	if in.Convert.MaxBytes == 0 {
		in.Convert.MaxBytes = IngestFileBatchBytes
	}
	if in.Convert.Alloc == nil {
		in.Convert.Alloc = c.opts.Alloc
	}
	if in.IPC.Alloc == nil {
		in.IPC.Alloc = c.opts.Alloc
	}
	in.KeepIPC = false // re-batched to fit a message
	f, err := input.Open(ctx, path, in)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	r, err := convert.NewReader(f.Source, in.Convert)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", path, err)
	}
	defer r.Release()
	up := pull.Records(r.Schema(), r.Next)
	defer up.Release()
	return c.Ingest(ctx, table, up, opts)
}

// progressReader reports each batch arrow-go's ingest pulls, after the
// pull, with the counts so far.
type progressReader struct {
	array.RecordReader
	p       IngestProgress
	onBatch func(IngestProgress)
}

func (p *progressReader) Next() bool {
	if !p.RecordReader.Next() {
		return false
	}
	rec := p.RecordBatch()
	p.p.Rows += rec.NumRows()
	p.p.Batches++
	p.p.Arrow += arrowsize.Record(rec)
	p.onBatch(p.p)
	return true
}
