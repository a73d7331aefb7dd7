//go:build !nobench

package main

import (
	"strings"
	"testing"
)

// TestBenchSort runs the sort benchmark small (spilling within 1 MiB) and
// checks its tables and its flags' errors.
func TestBenchSort(t *testing.T) {
	code, out, errs := runCLI("bench", "sort", "--sf", "0.002", "--memory", "1MB", "--runs", "1", "--codecs", "lz4", "--queries", "q3,Q10", "--dir", t.TempDir(), "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if errs != "" {
		t.Errorf("--quiet wrote to stderr: %q", errs)
	}
	for _, want := range []string{"| query ", "| Q3 ", "| Q10 ", "| lz4 ", "memory limit 1.0 MiB", "Targets"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "| Q7 ") {
		t.Errorf("ran Q7, not asked for:\n%s", out)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"bench", "sort", "--sf", "0"}, "must be positive"},
		{[]string{"bench", "sort", "--memory", "lots"}, "bad size"},
		{[]string{"bench", "sort", "--queries", "Q4"}, "unknown sort query"},
		{[]string{"bench", "sort", "--codecs", "gzip"}, "--codecs"},
		{[]string{"bench", "sort", "extra"}, "unexpected argument"},
	} {
		code, _, errs := runCLI(tc.args...)
		if code == 0 || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", tc.args, code, errs, tc.want)
		}
	}
	if code, out, _ := runCLI("bench", "sort", "--help"); code != 0 || !strings.Contains(out, "sort_tpch") {
		t.Errorf("--help: exit %d: %s", code, out)
	}
	for in, want := range map[string]int64{"200MB": 200 << 20, "200MiB": 200 << 20, "1.5G": 3 << 29, "4096": 4096, "64k": 64 << 10} {
		if got, err := parseByteSize(in); err != nil || got != want {
			t.Errorf("parseByteSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
}
