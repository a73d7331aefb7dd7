//go:build !nobench

package main

import (
	"regexp"
	"strings"
	"testing"
)

// TestBenchTPCH runs the TPC-H benchmark on three queries at a tiny scale
// factor and checks its table and its flags' errors.
func TestBenchTPCH(t *testing.T) {
	code, out, errs := runCLI("bench", "tpch", "--sf", "0.001", "--runs", "1", "--queries", "1, 6,3", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if errs != "" {
		t.Errorf("--quiet wrote to stderr: %q", errs)
	}
	for _, want := range []string{"| query ", "| Q1 ", "| Q6 ", "| Q3 ", "SF 0.001", "Targets"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "| Q2 ") {
		t.Errorf("ran Q2, not asked for:\n%s", out)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"bench", "tpch", "--sf", "0"}, "must be positive"},
		{[]string{"bench", "tpch", "--sf", "0.0125", "--runs", "1"}, "multiple of 0.001"},
		{[]string{"bench", "tpch", "--queries", "1,23"}, `"23" is not a TPC-H query number`},
		{[]string{"bench", "tpch", "--queries", "x"}, `"x" is not a TPC-H query number`},
		{[]string{"bench", "tpch", "extra"}, "unexpected argument"},
		{[]string{"bench", "tpch", "--query-memory", "lots"}, `--query-memory: "lots" is not a positive size`},
		{[]string{"bench", "tpch", "--query-memory", "0"}, `--query-memory: "0" is not a positive size`},
	} {
		code, _, errs := runCLI(tc.args...)
		if code == 0 || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", tc.args, code, errs, tc.want)
		}
	}
	if code, out, _ := runCLI("bench", "tpch", "--help"); code != 0 || !strings.Contains(out, "geometric mean") {
		t.Errorf("--help: exit %d: %s", code, out)
	}

	// Within a small memory limit the joins, sorts and aggregates spill,
	// and a second table says what each query spilled.
	code, out, errs = runCLI("bench", "tpch", "--sf", "0.01", "--runs", "1", "--queries", "3,9", "--query-memory", "512KiB", "--spill-dir", t.TempDir(), "--quiet")
	if code != 0 {
		t.Fatalf("--query-memory: exit %d: %s", code, errs)
	}
	for _, want := range []string{"memory limit of 0.5 MiB per query", "| spilled MiB |", "| Q9 "} {
		if !strings.Contains(out, want) {
			t.Errorf("--query-memory: output lacks %q:\n%s", want, out)
		}
	}
	if !regexp.MustCompile(`\| Q9 +\| +[0-9.]+ \| +[1-9][0-9]* \|`).MatchString(out) || strings.Contains(out, "refused") {
		t.Errorf("--query-memory: Q9 did not spill, or a query failed:\n%s", out)
	}
}
