//go:build !nobench

package main

import (
	"strings"
	"testing"
)

// TestBenchServe runs the serve benchmark small and checks its tables and
// its flags' errors.
func TestBenchServe(t *testing.T) {
	code, out, errs := runCLI("bench", "serve", "--rows", "6000", "--link-rows", "3000", "--batch-rows", "2000",
		"--runs", "1", "--link-mbps", "200", "--codecs", "none,lz4,zstd:1", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if errs != "" {
		t.Errorf("--quiet wrote to stderr: %q", errs)
	}
	for _, want := range []string{"Loopback", "Through the link", "| numeric | arrow-go | zstd ", "| full    | quiver   | auto ", "Targets", "| result "} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"bench", "serve", "--rows", "0"}, "must be positive"},
		{[]string{"bench", "serve", "--link-mbps", "0"}, "must be positive"},
		{[]string{"bench", "serve", "--codecs", "gzip"}, "gzip"},
		{[]string{"bench", "serve", "extra"}, "unexpected argument"},
	} {
		code, _, errs := runCLI(tc.args...)
		if code == 0 || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", tc.args, code, errs, tc.want)
		}
	}
	if code, out, _ := runCLI("bench", "serve", "--help"); code != 0 || !strings.Contains(out, "arrow-go") {
		t.Errorf("--help: exit %d: %s", code, out)
	}
}
