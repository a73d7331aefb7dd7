package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/protobuf/proto"

	"github.com/quiverdb/quiver/batch"
	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/server"
)

// remoteQuery is one quiver query --server.
type remoteQuery struct {
	remote   remoteFlags
	sql      string
	codec    string         // the session's result codec; "" leaves the server's default
	out      string         // write every row here rather than print
	outCodec *codec.Setting // .arrow codec; nil keeps the result's
	maxRows  int
}

// runRemoteQuery runs q.sql on the server and prints or writes its
// result, then a summary line on stderr.
func runRemoteQuery(ctx context.Context, q remoteQuery, stdout, stderr io.Writer) error {
	conn, err := q.remote.connect(stderr)
	if err != nil {
		return err
	}
	defer conn.Close()
	// Cancelling ends the DoGet on the server whenever we stop reading
	// before the end (an error, a failed write).
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	start := time.Now()
	if q.codec != "" {
		if err := setResultCodec(ctx, conn, q.codec); err != nil {
			return err
		}
	}
	info, err := conn.Execute(ctx, q.sql)
	if err != nil {
		return conn.explain(err, "invalid SQL")
	}
	opts := batch.ReadOptions{Alloc: remoteAlloc, Prefetch: max(2, min(4, runtime.GOMAXPROCS(0)))}
	rs, err := openResult(ctx, conn, info, opts)
	if err != nil {
		return conn.explain(err, "invalid SQL")
	}
	defer rs.Release()
	if q.out != "" {
		p := newFetchProgress(stderr, "received")
		err = writeResult(ctx, q.out, rs, func() codec.Setting { return q.arrowCodec(rs.Stats()) },
			func(rows, _ int64) { p.update(rows, rs.Stats().Wire) })
		p.done()
	} else {
		err = printResult(stdout, rs, q.maxRows)
	}
	if err != nil {
		return conn.explain(err, "invalid SQL")
	}
	printFetchSummary(stderr, rs.Stats(), time.Since(start))
	return nil
}

// setResultCodec sets the session option that chooses the codec of the
// results that follow on this connection (its cookie names the session).
func setResultCodec(ctx context.Context, conn *remoteConn, value string) error {
	opts, err := flight.NewSessionOptionValues(map[string]any{server.OptionResultCodec: value})
	if err != nil {
		return err
	}
	res, err := setSessionOptions(ctx, conn, &flight.SetSessionOptionsRequest{SessionOptions: opts})
	if err != nil {
		return conn.explain(err, "invalid --codec")
	}
	e, failed := res.GetErrors()[server.OptionResultCodec]
	switch {
	case !failed:
		return nil
	case e.GetValue() == flight.SetSessionOptionsResultErrorInvalidName:
		return fmt.Errorf("the server does not know the session option %q (is it a quiver server? leave out --codec)", server.OptionResultCodec)
	case e.GetValue() == flight.SetSessionOptionsResultErrorInvalidValue:
		return fmt.Errorf("the server refused --codec %q", value)
	}
	return fmt.Errorf("the server could not set --codec %q: %v", value, e.GetValue())
}

// setSessionOptions is flightsql.Client.SetSessionOptions, but reads the
// response headers before the stream ends. arrow-go's cookie middleware
// takes a stream's Set-Cookie when the stream finishes, and a goroutine
// watching the stream's context races that: when it wins (gRPC cancels
// the context as the stream completes) the headers are dropped, the
// session cookie is lost and the next call runs without the option (seen
// 2 times in 300 under -race). Header() hands them to the middleware at
// once, on this goroutine.
func setSessionOptions(ctx context.Context, conn *remoteConn, req *flight.SetSessionOptionsRequest) (*flight.SetSessionOptionsResult, error) {
	body, err := proto.Marshal(req)
	if err != nil {
		return nil, err
	}
	stream, err := conn.Client.Client.DoAction(ctx, &flight.Action{Type: flight.SetSessionOptionsActionType, Body: body})
	if err != nil {
		return nil, err
	}
	if _, err := stream.Header(); err != nil {
		return nil, err
	}
	msg, err := stream.Recv()
	if err != nil {
		return nil, err
	}
	var res flight.SetSessionOptionsResult
	if err := proto.Unmarshal(msg.GetBody(), &res); err != nil {
		return nil, fmt.Errorf("%w: the server's SetSessionOptions result: %v", batch.ErrCorrupt, err)
	}
	return &res, flight.ReadUntilEOF(stream)
}

// arrowCodec is the codec of an .arrow --out file: --out-codec, else the
// codec the result came with (at the zstd level --codec asked for, else
// zstd's default level; the level is not on the wire).
func (q remoteQuery) arrowCodec(st fetchStats) codec.Setting {
	if q.outCodec != nil {
		return *q.outCodec
	}
	if !st.CodecKnown {
		return codec.SettingNone
	}
	if asked, err := codec.ParseSetting(q.codec); err == nil && asked.Kind == st.Codec {
		return asked
	}
	return codec.Setting{Kind: st.Codec}
}

// printFetchSummary writes the line that ends a remote query on stderr.
func printFetchSummary(w io.Writer, st fetchStats, el time.Duration) {
	how := "no batches"
	if st.CodecKnown {
		how = st.Codec.String()
	}
	ratio := "-"
	if st.Wire > 0 {
		ratio = fmt.Sprintf("%.2f", st.Ratio())
	}
	fmt.Fprintf(w, "%d rows in %s; %s on the wire (%s), %s as Arrow: ratio %s; %v\n",
		st.Rows, plural(st.Batches, "batch", "batches"), humanBytes(st.Wire), how, humanBytes(st.Arrow), ratio, el.Round(time.Millisecond))
}

// humanBytes prints n in B, KiB, MiB or GiB.
func humanBytes(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	case n < 1<<30:
		return fmt.Sprintf("%.2f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
}

// plural writes n and the noun in the right number.
func plural(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
