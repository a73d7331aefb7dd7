package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/quiverdb/quiver/client"
	"github.com/quiverdb/quiver/codec"
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
	start := time.Now()
	if q.codec != "" {
		if err := conn.SetResultCodec(ctx, q.codec); err != nil {
			return withHints(err)
		}
	}
	rs, err := conn.Query(ctx, q.sql)
	if err != nil {
		return withHints(err)
	}
	// Release ends the fetch on the server whenever we stop reading
	// before the end (an error, a failed write).
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
		return withHints(err)
	}
	printFetchSummary(stderr, rs.Stats(), time.Since(start))
	return nil
}

// arrowCodec is the codec of an .arrow --out file: --out-codec, else the
// codec the result came with (at the zstd level --codec asked for, else
// zstd's default level; the level is not on the wire).
func (q remoteQuery) arrowCodec(st client.Stats) codec.Setting {
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
func printFetchSummary(w io.Writer, st client.Stats, el time.Duration) {
	how := "none"
	if st.CodecKnown {
		how = st.Codec.String()
	}
	fmt.Fprintf(w, "%s in %s; %s; %v\n", plural(st.Rows, "row", "rows"), plural(st.Batches, "batch", "batches"),
		describeTransfer("received", st.Wire, st.Arrow, how), el.Round(time.Millisecond))
}

// describeTransfer says plainly what crossed the wire: wire bytes in all
// (the schema and message headers included) for data bytes of Arrow
// buffers, compressed with codecName or not ("none"), and what that
// saved or cost. Tiny results cost more than their data: the schema and
// headers dominate them.
func describeTransfer(verb string, wire, data int64, codecName string) string {
	if codecName == "none" {
		s := fmt.Sprintf("%s %s uncompressed for %s of Arrow data", verb, humanBytes(wire), humanBytes(data))
		if wire > data {
			s += fmt.Sprintf(" (%s of schema and message headers)", humanBytes(wire-data))
		}
		return s
	}
	s := fmt.Sprintf("%s %s with %s for %s of Arrow data", verb, humanBytes(wire), codecName, humanBytes(data))
	if d := data - wire; d > 0 {
		return s + fmt.Sprintf(": compression saved %s (%.0f%%)", humanBytes(d), 100*float64(d)/float64(data))
	}
	return s + fmt.Sprintf(": nothing saved, %s more than the data (schema, message headers and compression framing)", humanBytes(wire-data))
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
