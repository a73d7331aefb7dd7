//go:build !nobench

package main

import (
	"strings"
	"testing"
)

// TestBenchShuffle runs the map-status benchmark small and checks its
// table and its flags' errors.
func TestBenchShuffle(t *testing.T) {
	code, out, errs := runCLI("bench", "shuffle", "--maps", "300", "--blocks", "10,2001", "--runs", "1", "--quiet")
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
	} {
		code, _, errs := runCLI(tc.args...)
		if code == 0 || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", tc.args, code, errs, tc.want)
		}
	}
}
