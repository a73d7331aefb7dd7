//go:build !nobench

package main

import (
	"strings"
	"testing"
)

// TestBenchQuery runs the query benchmark small and checks its tables and
// its flags' errors.
func TestBenchQuery(t *testing.T) {
	code, out, errs := runCLI("bench", "query", "--sf", "0.002", "--runs", "1", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if errs != "" {
		t.Errorf("--quiet wrote to stderr: %q", errs)
	}
	for _, want := range []string{"| query ", "| Q1 ", "| Q6 ", "| count orderkey range ", "| top 100 comments ", "Targets", "| result "} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"bench", "query", "--sf", "0"}, "must be positive"},
		{[]string{"bench", "query", "--sf", "0.0125", "--runs", "1"}, "multiple of 0.001"},
		{[]string{"bench", "query", "extra"}, "unexpected argument"},
	} {
		code, _, errs := runCLI(tc.args...)
		if code == 0 || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", tc.args, code, errs, tc.want)
		}
	}
	if code, out, _ := runCLI("bench", "query", "--help"); code != 0 || !strings.Contains(out, "DuckDB") {
		t.Errorf("--help: exit %d: %s", code, out)
	}
}
