package bench

import (
	"context"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/cache"
	engine "github.com/quiverdb/quiver/query"
)

// TestRunTPCH runs the TPC-H benchmark at SF 0.002, so CI exercises the
// load of the eight tables, every query in both engines (DuckDB with -tags
// duckdb), the refusals, the answer check and the report.
func TestRunTPCH(t *testing.T) {
	var out strings.Builder
	rep, err := RunTPCH(context.Background(), TPCHConfig{SF: 0.002, Runs: 1}, &out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	t.Log("\n" + out.String())
	// 5 + 25 + 400 + 20 + 1,600 + 300 + 3,000 + 11,957 rows at SF 0.002.
	if len(rep.Queries) != 22 || rep.Rows != 17_307 {
		t.Fatalf("%d queries, %d rows", len(rep.Queries), rep.Rows)
	}
	peer := rep.Peer != ""
	for i, q := range rep.Queries {
		if q.N != i+1 || !strings.Contains(q.SQL, "SELECT") {
			t.Errorf("query %d is Q%d: %.40q", i, q.N, q.SQL)
		}
		switch {
		case q.Refused != "":
			if len(q.Quiver) != 0 || !strings.Contains(out.String(), "refused: "+q.Refused) {
				t.Errorf("Q%d refused (%s) but timed %d times, or not reported", q.N, q.Refused, len(q.Quiver))
			}
		case len(q.Quiver) != 1:
			t.Errorf("Q%d: %d quiver runs", q.N, len(q.Quiver))
		}
		if peer != (len(q.DuckDB) == 1) {
			t.Errorf("Q%d: %d DuckDB runs (peer %q)", q.N, len(q.DuckDB), rep.Peer)
		}
	}
	for _, n := range []int{1, 6} {
		if q := rep.Queries[n-1]; q.Refused != "" {
			t.Errorf("Q%d refused: %s", n, q.Refused)
		}
	}
	g, n := rep.GeoMean()
	if peer && (n < 2 || g <= 0) {
		t.Errorf("geometric mean %v over %d queries", g, n)
	}
	for _, want := range []string{"| Q1 ", "| Q22 ", "Targets", "geometric mean"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if !peer && !strings.Contains(out.String(), ErrNoDuckDB) {
		t.Errorf("report does not say the peer is missing")
	}
}

func TestTPCHConfigValidate(t *testing.T) {
	for _, qs := range [][]int{{0}, {1, 23}} {
		if err := (TPCHConfig{Queries: qs}).withDefaults().Validate(); err == nil || !strings.Contains(err.Error(), "1 to 22") {
			t.Errorf("queries %v: %v", qs, err)
		}
	}
	if err := (TPCHConfig{SF: -1}).Validate(); err == nil {
		t.Error("negative SF accepted")
	}
}

func TestSameDigest(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{"4 rows, first A", "4 rows, first A", true},
		{"4 rows, first A", "3 rows, first A", false},
		{"1 rows, first 16.380779", "1 rows, first 16.380778626395557", true}, // decimal quotient, double
		{"1 rows, first 16.380781", "1 rows, first 16.380778626395557", false},
		{"1 rows, first 0.1", "1 rows, first 0.10000000000000002", true},
		{"1 rows, first 348406.02", "1 rows, first 348406.05", false},
	} {
		if got := sameDigest(tc.a, tc.b); got != tc.same {
			t.Errorf("sameDigest(%q, %q) = %v", tc.a, tc.b, got)
		}
	}
}

// TestTPCHAnswersSF1 checks the reference digests against what DuckDB
// v1.5.6 answered over the eight tables at SF 1 (doubles and unrounded
// decimals where the answer set rounds to cents), and that at SF 1 an
// engine's answer unlike the reference is reported.
func TestTPCHAnswersSF1(t *testing.T) {
	duck := map[int]string{
		2: "100 rows, first 9938.53", 6: "1 rows, first 123141078.2283", 13: "42 rows, first 0",
		14: "1 rows, first 16.380778626395543", 17: "1 rows, first 348406.0542857143",
		19: "1 rows, first 3083843.0578", 22: "7 rows, first 13",
	}
	for n, got := range duck {
		if !sameDigest(got, tpchAnswersSF1[n]) {
			t.Errorf("Q%d: %q against the reference %q", n, got, tpchAnswersSF1[n])
		}
	}
	if len(tpchAnswersSF1) != 22 {
		t.Errorf("%d reference answers", len(tpchAnswersSF1))
	}

	c, err := cache.New(cache.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := TPCHConfig{SF: 1, Runs: 1, Queries: []int{6}}.withDefaults()
	res, err := measureTPCH(context.Background(), cfg, engine.New(c, engine.Options{}), fixedPeer("1 rows, first 123141000.23"), progressf(nil))
	if err != nil {
		t.Fatal(err)
	}
	if q := res[0]; q.Refused == "" || !strings.Contains(q.Differ, "DuckDB answered") || !strings.Contains(q.Differ, "reference answer") {
		t.Errorf("Q6 at SF 1 against a wrong answer: refused %q, differ %q", q.Refused, q.Differ)
	}
}

// fixedPeer answers every query with the same digest.
type fixedPeer string

func (p fixedPeer) run(context.Context, string) (string, error) { return string(p), nil }
func (fixedPeer) version() string                               { return "fixed" }
func (fixedPeer) close()                                        {}
