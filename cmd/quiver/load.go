package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"google.golang.org/grpc/codes"

	"github.com/quiverdb/quiver/client"
	"github.com/quiverdb/quiver/convert"
	"github.com/quiverdb/quiver/convert/input"
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

func runLoad(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("load", flag.ContinueOnError)
	var remote remoteFlags
	remote.register(fs, "grpc://"+server.DefaultListen)
	modeText := fs.String("mode", "create", "create (NAME must not exist), append (NAME must exist) or replace")
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
	mode, err := client.ParseMode(*modeText)
	if err != nil {
		return fmt.Errorf("%w: --mode must be create, append or replace, not %q", errUsage, *modeText)
	}
	if *batchRows <= 0 {
		return fmt.Errorf("%w: --batch-rows must be positive", errUsage)
	}
	if _, _, err := (client.Target{}).UploadCodec(*codecText); err != nil {
		return fmt.Errorf("%w: --codec: %v", errUsage, err)
	}
	format, err := input.ParseFormat(*from)
	if err != nil {
		return fmt.Errorf("%w: --from: %v", errUsage, err)
	}
	cfg := convert.Config{BatchRows: *batchRows}
	copts, err := csvf.options(cfg)
	if err != nil {
		return err
	}
	in := input.Options{Format: format, CSV: copts, Convert: cfg}

	conn, err := remote.connect(stderr)
	if err != nil {
		return err
	}
	defer conn.Close()
	_, codecName, _ := conn.Target().UploadCodec(*codecText)
	start := time.Now()
	var last client.IngestProgress
	opts := client.IngestOptions{Mode: mode, Codec: *codecText, OnBatch: func(p client.IngestProgress) { last = p }}
	if !*quiet {
		p := newFetchProgress(stderr, "sent")
		opts.OnBatch = func(ip client.IngestProgress) {
			last = ip
			p.update(ip.Rows, conn.Sent())
		}
		defer p.done()
	}
	n, err := conn.IngestFile(ctx, name, file, in, opts)
	if err != nil {
		return loadError(withHints(err), mode)
	}
	if !*quiet {
		fmt.Fprintf(stderr, "%d rows loaded into %s (%s) in %s; %s; %v\n",
			n, name, mode, plural(last.Batches, "batch", "batches"), describeTransfer("sent", conn.Sent(), last.Arrow, codecName), time.Since(start).Round(time.Millisecond))
	}
	return nil
}

// loadError names the --mode that loads into a table that is there, or
// makes one that is not. The server's own words ("ingest with append or
// replace") are Flight SQL's, which a user of this command cannot type.
func loadError(err error, mode client.Mode) error {
	var ce *client.Error
	if !errors.As(err, &ce) {
		return err
	}
	switch {
	case ce.Code() == codes.AlreadyExists && mode == client.Create:
		ce.Hint = "load into it with --mode append or --mode replace"
	case ce.Code() == codes.NotFound && mode == client.Append:
		ce.Hint = "make it with --mode create"
	}
	return err
}
