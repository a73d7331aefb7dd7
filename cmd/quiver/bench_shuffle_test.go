//go:build !nobench

package main

import (
	"strings"
	"testing"
)

// TestBenchShuffleEngine runs parts b and c small: every cell answers as
// the others of its query, and the table and the skew target print.
func TestBenchShuffleEngine(t *testing.T) {
	code, out, errs := runCLI("bench", "shuffle", "--parts", "b,c", "--sf", "0.002", "--memory", "256KB", "--runs", "1", "--quiet", "--dir", t.TempDir())
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"| b | GROUP BY | grp | 1 | exchange |", "| b | lineitem ⋈ orders | TPC-H | 2 | limit |",
		"| c | skew join | build 30% one key | 2 | limit, no split |", "| kept ", ", coalesced ", "Target (issue 16): the skewed join"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// TestBenchShuffle runs the map-status benchmark small and checks its
// table and its flags' errors.
func TestBenchShuffle(t *testing.T) {
	code, out, errs := runCLI("bench", "shuffle", "--parts", "a", "--maps", "300", "--blocks", "10,2001", "--runs", "1", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"300 statuses per row", "|     10 | quiver", "|     10 | Spark", "|   2001 | gob+zstd", "10 blocks: bytes"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"bench", "shuffle", "--maps", "0"}, "must be positive"},
		{[]string{"bench", "shuffle", "--blocks", "ten"}, "--blocks"},
		{[]string{"bench", "shuffle", "--codec", "brotli"}, "--codec"},
		{[]string{"bench", "shuffle", "--parts", "d"}, "unknown part"},
		{[]string{"bench", "shuffle", "--parts", "c", "--memory", "lots"}, "--memory"},
	} {
		code, _, errs := runCLI(tc.args...)
		if code == 0 || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", tc.args, code, errs, tc.want)
		}
	}
}
