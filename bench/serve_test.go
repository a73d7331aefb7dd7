package bench

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestRunServe runs the serve benchmark small, through both servers,
// every default codec and both paths, with every allocation checked.
func TestRunServe(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer func() {
		// The server releases a stream's memory a moment after the
		// client has read its end.
		deadline := time.Now().Add(5 * time.Second)
		for mem.CurrentAlloc() != 0 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		mem.AssertSize(t, 0)
	}()
	var out strings.Builder
	cfg := ServeConfig{Rows: 25_000, LinkRows: 12_000, BatchRows: 5_000, Runs: 2, LinkMBps: 100, Codecs: DefaultServeCodecs, Alloc: mem, Progress: progress{t}}
	if testing.Short() { // zstd:19 under the race detector takes a minute
		cfg.Rows, cfg.LinkRows, cfg.BatchRows, cfg.Runs = 4_000, 2_000, 1_000, 1
		cfg.Codecs = []string{"none", "lz4", "zstd:1"}
	}
	rep, err := RunServe(context.Background(), cfg, &out)
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + out.String())
	// Per path and result: 2 peer cells and 5 codecs, plus auto on
	// loopback.
	if want := 2*(2*2+2*len(cfg.Codecs)) + 2; len(rep.Cells) != want {
		t.Fatalf("%d cells, want %d", len(rep.Cells), want)
	}
	for _, c := range rep.Cells {
		if len(c.Times) != cfg.Runs || c.IPCBytes <= 0 || (c.Link && c.WireBytes < c.IPCBytes) {
			t.Errorf("%+v", c)
		}
		wantRows := cfg.Rows
		if c.Link && c.Result == resultFull {
			wantRows = cfg.LinkRows
		}
		if c.Rows != wantRows {
			t.Errorf("%s %s %s link=%v: %d rows, want %d", c.Result, c.Server, c.Codec, c.Link, c.Rows, wantRows)
		}
	}
	// The codecs must change the bytes: zstd:1 under half of none; an
	// uncompressed stream carries at least the table's buffers, and the
	// peer's little more (quiver's may carry wider types: see the
	// schema notes).
	qn, _ := rep.Cell(resultFull, serverQuiver, "none", false)
	qz, _ := rep.Cell(resultFull, serverQuiver, "zstd:1", false)
	pn, _ := rep.Cell(resultFull, serverPeer, "none", false)
	if qz.IPCBytes >= qn.IPCBytes/2 || qn.IPCBytes < qn.RawBytes || pn.IPCBytes < pn.RawBytes || pn.IPCBytes > pn.RawBytes*101/100 {
		t.Errorf("bytes: quiver none %d, zstd:1 %d, arrow-go none %d, table %d", qn.IPCBytes, qz.IPCBytes, pn.IPCBytes, pn.RawBytes)
	}
	if pn.SchemaNote != "" {
		t.Errorf("the peer changed the schema: %s", pn.SchemaNote)
	}
	if len(rep.Targets) != 7 {
		t.Errorf("%d targets, want 7", len(rep.Targets))
	}
	for _, x := range rep.Targets {
		if !x.Measured {
			t.Errorf("target %q not measured: %s", x.Name, x.Note)
		}
	}
	for _, want := range []string{"Loopback", "Through the link", "| numeric | arrow-go | zstd ", "| full    | quiver   | auto ", "Targets", "PASS"} {
		if !strings.Contains(out.String(), want) && !(want == "PASS" && strings.Contains(out.String(), "MISS")) {
			t.Errorf("report lacks %q", want)
		}
	}
}

func TestServeConfig(t *testing.T) {
	for _, cfg := range []ServeConfig{
		{Rows: -1}, {Runs: -1}, {Rows: 10, LinkRows: 20}, {LinkMBps: -1}, {Codecs: []string{"gzip"}},
	} {
		if err := cfg.Validate(); err == nil {
			t.Errorf("%+v: no error", cfg)
		}
	}
	if err := (ServeConfig{Codecs: []string{"auto", "zstd:7"}}).Validate(); err != nil {
		t.Error(err)
	}
}

// progress sends RunServe's progress lines to the test log.
type progress struct{ t *testing.T }

func (p progress) Write(b []byte) (int, error) {
	p.t.Log(strings.TrimSpace(string(b)))
	return len(b), nil
}
