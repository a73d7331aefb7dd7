//go:build !nobench

package main

import (
	"strings"
	"testing"
)

// TestBenchSpill runs the spill benchmark small and checks its tables and
// its flags' errors.
func TestBenchSpill(t *testing.T) {
	code, out, errs := runCLI("bench", "spill", "--batches", "2", "--batch-rows", "100", "--runs", "1",
		"--datasets", "q16,wide", "--codecs", "lz4,zstd:3", "--dir", t.TempDir(), "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if errs != "" {
		t.Errorf("--quiet wrote to stderr: %q", errs)
	}
	for _, want := range []string{"q16: 200 rows", "wide: 200 rows", "| quiver   | zstd:3 ", "| arrow-go | zstd ", "Targets", "wide: quiver zstd:3 bytes ÷ arrow-go zstd"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "q2:") {
		t.Errorf("--datasets ignored:\n%s", out)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"bench", "spill", "--runs", "0"}, "must be positive"},
		{[]string{"bench", "spill", "--datasets", "q99"}, "unknown dataset"},
		{[]string{"bench", "spill", "--codecs", "brotli"}, "--codecs"},
		{[]string{"bench", "spill", "extra"}, "unexpected argument"},
	} {
		code, _, errs := runCLI(tc.args...)
		if code == 0 || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", tc.args, code, errs, tc.want)
		}
	}
	if code, out, _ := runCLI("bench", "spill", "--help"); code != 0 || !strings.Contains(out, "spill_io") {
		t.Errorf("--help: exit %d: %s", code, out)
	}
}
