package main

import (
	"strings"
	"testing"

	"github.com/quiverdb/quiver/codec"
)

func TestCacheFootprint(t *testing.T) {
	file := writeTestFile(t, true, codec.SettingZstd)
	stream := writeTestFile(t, false, codec.SettingLZ4)
	code, out, errs := runCLI("cache", "--codec", "lz4", "alltypes="+file, stream)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"table alltypes: 500 rows in 1 batches, codec lz4", "compressed", "  i64 ", " for ", "lengths", "ipc", "dictionary", "of the 1024.00 MiB budget in use"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Count(out, "table ") != 2 {
		t.Errorf("want two tables:\n%s", out)
	}

	code, out, errs = runCLI("cache", "--rows", "20000")
	if code != 0 || !strings.Contains(out, "table comet: 20000 rows in 3 batches, codec auto") {
		t.Errorf("built-in relation: exit %d\n%s%s", code, out, errs)
	}

	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"cache", "--codec", "brotli"}, 2, "--codec"},
		{[]string{"cache", "--budget", "0"}, 2, "--budget"},
		{[]string{"cache", "/no/such/file.arrow"}, 1, "no such file"},
		{[]string{"cache", "=x"}, 2, "NAME=FILE"},
		{[]string{"cache", "--budget", "1000", file}, 1, "does not fit"},
	} {
		code, _, errs := runCLI(tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, code, errs, tc.code, tc.want)
		}
	}
}
