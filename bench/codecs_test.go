package bench

import (
	"context"
	"errors"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/codec"
)

// TestRunCodecs runs the whole harness on a small relation, so CI
// exercises every cell, the round-trip checks and the report.
func TestRunCodecs(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	var out strings.Builder
	rep, err := RunCodecs(context.Background(), CodecsConfig{Rows: 50_000, Runs: 1, Alloc: mem}, &out)
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + out.String())
	// 4 quiver + 3 arrow-go settings, 4 codec-alone rows, at 1 and 2 goroutines.
	if len(rep.IPC) != 14 || len(rep.Alone) != 8 {
		t.Fatalf("%d IPC and %d codec-alone results, want 14 and 8", len(rep.IPC), len(rep.Alone))
	}
	for _, x := range rep.IPC {
		if x.Bytes <= 0 || x.EncodeMBps <= 0 || x.DecodeMBps <= 0 {
			t.Errorf("%+v: empty measurement", x)
		}
	}
	if rep.CNote == "" && len(rep.C) == 0 {
		t.Error("neither C results nor a note saying why not")
	}
	for _, want := range []string{"| quiver ", "| arrow-go ", "copy()", "Targets", "encode zstd:1"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q", want)
		}
	}
}

func TestTable(t *testing.T) {
	tb := newTable("name", ">n")
	tb.add("a", "1,234")
	tb.add("longer", "5")
	var b strings.Builder
	tb.write(&b)
	want := "| name   |     n |\n|--------|------:|\n| a      | 1,234 |\n| longer |     5 |\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", -1234567: "-1,234,567"} {
		if got := commas(n); got != want {
			t.Errorf("commas(%d) = %q, want %q", n, got, want)
		}
	}
}

var (
	reportRows = flag.Int("codecs.rows", 0, "run TestCodecsReport on this many rows (e.g. 5000000)")
	reportRuns = flag.Int("codecs.runs", 5, "runs per cell in TestCodecsReport")
)

// TestCodecsReport is the real measurement, skipped unless -codecs.rows is
// given:
//
//	go test -tags cref -run TestCodecsReport -timeout 2h -v ./bench -codecs.rows 5000000
func TestCodecsReport(t *testing.T) {
	if *reportRows == 0 {
		t.Skip("set -codecs.rows to run the full measurement")
	}
	_, err := RunCodecs(context.Background(), CodecsConfig{Rows: *reportRows, Runs: *reportRuns, Progress: os.Stderr}, os.Stdout)
	if err != nil {
		t.Fatal(err)
	}
}

// TestDecodeSpeedsC: with -tags cref the C decoders read quiver's frames;
// without it the call says how to get them.
func TestDecodeSpeedsC(t *testing.T) {
	want := [][]byte{[]byte(strings.Repeat("quiver ", 1000)), make([]byte, 5000)}
	for _, s := range []codec.Setting{codec.SettingLZ4, codec.SettingZstd} {
		c := codec.MustNew(s)
		var frames [][]byte
		for _, w := range want {
			frames = append(frames, c.Compress(nil, w))
		}
		speeds, err := DecodeSpeedsC(s.Kind, frames, want, 1)
		if err != nil {
			if errors.Is(err, ErrNoCref) {
				t.Skip(err)
			}
			t.Fatal(err)
		}
		for _, sp := range speeds {
			if sp.MBps <= 0 || sp.Bytes != 12000 {
				t.Errorf("%s: %+v", s, sp)
			}
		}
	}
}
