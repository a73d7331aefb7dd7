//go:build nobench

package main

import (
	"strings"
	"testing"
)

// TestNoBench: a nobench binary says why it has no benchmarks.
func TestNoBench(t *testing.T) {
	code, _, errs := runCLI("bench", "codecs")
	if code != 1 || !strings.Contains(errs, "-tags nobench") {
		t.Errorf("exit %d, stderr %q; want 1 and a message naming -tags nobench", code, errs)
	}
}
