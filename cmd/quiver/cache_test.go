package main

import (
	"regexp"
	"strconv"
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
	for _, want := range []string{"table alltypes: 500 rows in 1 batches, codec lz4", "compressed", " distinct ", "  i64 ", " for ", "lengths", "ipc", "dictionary", "of the 1024.00 MiB budget in use"} {
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
	// id: 17,500 distinct non-null values, estimated within 5%.
	if m := regexp.MustCompile(`(?m)^  id +int64 +2500 +(\d+) `).FindStringSubmatch(out); m == nil {
		t.Errorf("no distinct count for id:\n%s", out)
	} else if n, _ := strconv.Atoi(m[1]); n < 16_625 || n > 18_375 {
		t.Errorf("id: %d distinct, want about 17500", n)
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
