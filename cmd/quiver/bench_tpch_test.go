//go:build !nobench

package main

import (
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
	} {
		code, _, errs := runCLI(tc.args...)
		if code == 0 || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", tc.args, code, errs, tc.want)
		}
	}
	if code, out, _ := runCLI("bench", "tpch", "--help"); code != 0 || !strings.Contains(out, "geometric mean") {
		t.Errorf("--help: exit %d: %s", code, out)
	}
}
