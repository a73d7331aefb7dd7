package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/quiverdb/quiver/batch"
	"github.com/quiverdb/quiver/codec"
)

func runInspect(_ context.Context, args []string, stdout, _ io.Writer) error {
	fs := flag.NewFlagSet("inspect", flag.ContinueOnError)
	verify := fs.Bool("verify", false, "decode every buffer and check every array; exit 1 naming the batch and column of the first corruption")
	perBatch := fs.Bool("batches", false, "print one line per batch")
	maxBody := fs.Int64("max-body", batch.DefaultLimits.MaxBody, "largest message body to accept, in bytes")
	pos, err := parseFlags(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return printHelp(stdout, fs, "inspect [--verify] [--batches] FILE|DIR",
			"Reads an Arrow IPC file or stream (any writer's, compressed or not) and prints its\nschema, batch count, rows, codec per batch, and per column the stored and decoded\nbytes and ratio. Bytes are treated as hostile: a corrupt file is an error, never a crash.\n\nGiven a serve --data-dir DIR (even a running server's: it is read, not locked), prints\neach table's footprint and the tables that cannot be served and why; --verify reads\nevery chunk and checks its checksum.")
	}
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return fmt.Errorf("%w: want exactly one FILE, got %d arguments", errUsage, len(pos))
	}
	f, err := os.Open(pos[0])
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if st.IsDir() {
		return inspectDataDir(stdout, pos[0], *verify)
	}
	sum := newInspectSummary()
	opts := batch.ReadOptions{Limits: batch.Limits{MaxBody: *maxBody}}
	var lines *tabwriter.Writer
	if *perBatch {
		lines = tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(lines, "message\tindex\trows\tcodec\tstored\tdecoded\tratio\t")
	}
	schema, isFile, ierr := batch.Inspect(f, st.Size(), opts, *verify, func(m *batch.MessageInfo) error {
		sum.add(m)
		if lines != nil {
			stored, decoded := m.Totals()
			kind := "record"
			if m.Dictionary {
				kind = fmt.Sprintf("dict %d", m.DictID)
			}
			fmt.Fprintf(lines, "%s\t%d\t%d\t%s\t%d\t%d\t%s\t\n", kind, m.Index, m.Rows, m.Codec, stored, decoded, ratio(decoded, stored))
		}
		return nil
	})
	if schema == nil {
		return fmt.Errorf("%s: %w", pos[0], ierr)
	}
	format := "stream"
	if isFile {
		format = "file"
	}
	fmt.Fprintf(stdout, "%s: Arrow IPC %s, %d bytes\n\nschema:\n", pos[0], format, st.Size())
	for _, fld := range schema.Fields() {
		null := ""
		if fld.Nullable {
			null = " (nullable)"
		}
		fmt.Fprintf(stdout, "  %s: %s%s\n", fld.Name, fld.Type, null)
	}
	fmt.Fprintln(stdout)
	if lines != nil {
		lines.Flush()
		fmt.Fprintln(stdout)
	}
	sum.print(stdout)
	if ierr != nil {
		return fmt.Errorf("%s: %w", pos[0], ierr)
	}
	if *verify {
		fmt.Fprintln(stdout, "\nverify: every buffer decoded and every array checked: OK")
	}
	return nil
}

// inspectSummary totals messages per column and per codec.
type inspectSummary struct {
	records, dicts int
	rows           int64
	codecs         map[codec.Kind]int
	order          []string
	cols           map[string]*batch.ColumnInfo
}

func newInspectSummary() *inspectSummary {
	return &inspectSummary{codecs: map[codec.Kind]int{}, cols: map[string]*batch.ColumnInfo{}}
}

func (s *inspectSummary) add(m *batch.MessageInfo) {
	if m.Dictionary {
		s.dicts++
	} else {
		s.records++
		s.rows += m.Rows
		s.codecs[m.Codec]++
	}
	for _, c := range m.Columns {
		t, ok := s.cols[c.Name]
		if !ok {
			t = &batch.ColumnInfo{Name: c.Name}
			s.cols[c.Name] = t
			s.order = append(s.order, c.Name)
		}
		t.Stored += c.Stored
		t.Decoded += c.Decoded
		t.Buffers += c.Buffers
		t.Raw += c.Raw
	}
}

func (s *inspectSummary) print(w io.Writer) {
	var codecs []string
	for _, k := range []codec.Kind{codec.None, codec.LZ4, codec.Zstd} {
		if n := s.codecs[k]; n > 0 {
			codecs = append(codecs, fmt.Sprintf("%s ×%d", k, n))
		}
	}
	fmt.Fprintf(w, "batches: %d record batches, %d dictionary batches, %d rows; codecs: %s\n\n",
		s.records, s.dicts, s.rows, strings.Join(codecs, ", "))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "column\tstored bytes\tdecoded bytes\tratio\tbuffers\traw\t")
	var stored, decoded int64
	for _, name := range s.order {
		c := s.cols[name]
		stored += c.Stored
		decoded += c.Decoded
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%d\t%d\t\n", name, c.Stored, c.Decoded, ratio(c.Decoded, c.Stored), c.Buffers, c.Raw)
	}
	fmt.Fprintf(tw, "total\t%d\t%d\t%s\t\t\t\n", stored, decoded, ratio(decoded, stored))
	tw.Flush()
}

func ratio(decoded, stored int64) string {
	if stored == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", float64(decoded)/float64(stored))
}
