//go:build !nobench

package main

import (
	"strings"
	"testing"
)

// TestBenchFlags: every bench command takes --runs and --quiet, refuses a
// --runs below 1 and a positional argument as usage errors (exit 2), and
// lists both flags in its --help.
func TestBenchFlags(t *testing.T) {
	for _, name := range []string{"codecs", "cache", "convert", "query", "serve", "sort", "spill"} {
		for _, tc := range []struct {
			args []string
			want []string
		}{
			{[]string{"--runs", "0"}, []string{"--runs", "must be positive"}},
			{[]string{"--quiet", "extra"}, []string{`unexpected argument "extra"`}},
		} {
			code, out, errs := runCLI(append([]string{"bench", name}, tc.args...)...)
			if code != 2 || out != "" {
				t.Errorf("bench %s %v: exit %d, stdout %q; want exit 2 and nothing run", name, tc.args, code, out)
			}
			for _, w := range tc.want {
				if !strings.Contains(errs, w) {
					t.Errorf("bench %s %v: stderr %q lacks %q", name, tc.args, errs, w)
				}
			}
		}
		code, out, _ := runCLI("bench", name, "--help")
		if code != 0 || !strings.Contains(out, "quiver bench "+name+" [flags]") || !strings.Contains(out, "-runs") || !strings.Contains(out, "-quiet") {
			t.Errorf("bench %s --help: exit %d:\n%s", name, code, out)
		}
	}
}
