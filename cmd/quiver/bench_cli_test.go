//go:build !nobench

package main

import (
	"strings"
	"testing"
)

// TestBenchCLIErrors: the bench commands' usage errors and help.
func TestBenchCLIErrors(t *testing.T) {
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"bench", "nope"}, 2, "unknown benchmark"},
		{[]string{"bench", "codecs", "--codecs", "brotli"}, 2, "unknown codec"},
		{[]string{"bench", "cache", "--codecs", "brotli"}, 2, "want auto, none, lz4"},
		{[]string{"bench", "cache", "--codecs", "lz4,lz4"}, 2, "listed twice"},
		{[]string{"bench", "cache", "--relations", "int0"}, 2, "want comet or intN"},
		{[]string{"bench", "cache", "--goroutines", "0"}, 2, "must be positive"},
	}
	for _, c := range cases {
		code, _, errs := runCLI(c.args...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, code, errs, c.code, c.want)
		}
	}
	for _, help := range [][]string{{"bench", "codecs", "-h"}, {"bench", "cache", "--help"}} {
		if code, out, _ := runCLI(help...); code != 0 || !strings.Contains(out, "Usage") && !strings.Contains(out, "quiver") {
			t.Errorf("%v: exit %d, %q", help, code, out)
		}
	}
}

// TestBenchCache runs the cache benchmark small and checks that its
// tables are there.
func TestBenchCache(t *testing.T) {
	code, out, errs := runCLI("bench", "cache", "--rows", "20000", "--runs", "1", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if errs != "" {
		t.Errorf("--quiet wrote to stderr: %q", errs)
	}
	for _, want := range []string{
		"| setting ", "| materialize ms ", "| footprint MiB ", "| ratio ", "| read 0 ms ", "| read 1 ms ",
		"| read 3 ms ", "| read 6 ms ", "| filter ms ", "| filter decoded ", "| read 100 ms ", "| read 1500 ms ",
		"| uncompressed ", "| arrow-go lz4 ", "| auto ", "Targets", "| target ", "| result ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
