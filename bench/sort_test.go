package bench

import (
	"context"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/codec"
)

// TestRunSort runs the sort benchmark at SF 0.01 within 2 MiB, so every
// query spills (with none and zstd:1) and CI exercises the warm-up's order
// check, the query engine's path, DuckDB's (with -tags duckdb) and the
// report.
func TestRunSort(t *testing.T) {
	var out strings.Builder
	cfg := SortConfig{SF: 0.01, Memory: 2 << 20, Runs: 1, Dir: t.TempDir(),
		Codecs: []codec.Setting{{}, {Kind: codec.Zstd, Level: 1}}}
	rep, err := RunSort(context.Background(), cfg, &out)
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + out.String())
	if rep.Rows != 60_175 {
		t.Fatalf("%d rows", rep.Rows)
	}
	want := len(sortQueries) * 4 // none, zstd:1, zstd:1 (SQL), zstd:1 (SQL, 2 sort workers)
	if rep.Peer != "" {
		want += len(sortQueries)
	}
	if len(rep.Results) != want {
		t.Fatalf("%d results, want %d", len(rep.Results), want)
	}
	for _, x := range rep.Results {
		if x.duck && x.Failed != "" {
			// DuckDB cannot sort these within 2 MiB ("Out of Memory"):
			// the report must say so instead of a time.
			if !strings.Contains(out.String(), x.Failed) {
				t.Errorf("%s: DuckDB's failure is not in the report", x.Query)
			}
			continue
		}
		if len(x.Times) != 1 {
			t.Errorf("%s %s: %d runs", x.Query, x.Codec, len(x.Times))
		}
		if !x.duck && (x.Rows != rep.Rows || x.Metrics.SpilledBytes == 0) {
			t.Errorf("%s %s: %d rows out, %d bytes spilled", x.Query, x.Codec, x.Rows, x.Metrics.SpilledBytes)
		}
	}
	for _, want := range []string{"| Q3 ", "| Q7 ", "| Q10 ", "zstd:1 (SQL)", "zstd:1 (SQL, 2 sort workers)", "Targets", "DataFusion's figure is SF 1"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if rep.Peer == "" && !strings.Contains(out.String(), ErrNoDuckDB) {
		t.Errorf("report does not say the peer is missing")
	}
}
