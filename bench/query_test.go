package bench

import (
	"context"
	"strings"
	"testing"
)

// TestRunQuery runs the query benchmark at SF 0.005, so CI exercises the
// load, every query, the answer check against DuckDB (with -tags duckdb)
// and the report.
func TestRunQuery(t *testing.T) {
	var out strings.Builder
	rep, err := RunQuery(context.Background(), QueryConfig{SF: 0.005, Runs: 2}, &out)
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + out.String())
	if rep.Rows != 30_201 || len(rep.Queries) != len(queries(0.005)) {
		t.Fatalf("%d rows, %d queries", rep.Rows, len(rep.Queries))
	}
	for _, q := range rep.Queries {
		if len(q.Quiver) != 2 || (rep.Peer != "") != (len(q.DuckDB) == 2) {
			t.Errorf("%s: %d quiver runs, %d DuckDB runs (peer %q)", q.Label, len(q.Quiver), len(q.DuckDB), rep.Peer)
		}
	}
	if q, _ := rep.Query("count orderkey range"); q.Skipped == 0 || q.Decoded >= q.Batches {
		t.Errorf("the orderkey range pruned nothing: decoded %d, skipped %d of %d", q.Decoded, q.Skipped, q.Batches)
	}
	if q, _ := rep.Query("count orderkey range, unpruned"); q.Skipped != 0 {
		t.Errorf("the unpruned count skipped %d batches", q.Skipped)
	}
	if q, _ := rep.Query("count orderkey range, written + 0"); q.Skipped == 0 {
		t.Errorf("l_orderkey + 0 BETWEEN pruned nothing: the arithmetic rule did not move the + 0")
	}
	if len(rep.Targets) != 6 {
		t.Errorf("%d targets, want 6", len(rep.Targets))
	}
	for _, want := range []string{"| Q1 ", "| top 100 comments ", "| " + windowLabel + " ", "| " + timestampLabel + " ", "| " + stringsLabel + " ", "Targets", "pruned count"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if rep.Peer == "" && !strings.Contains(out.String(), ErrNoDuckDB) {
		t.Errorf("report does not say the peer is missing")
	}
}
