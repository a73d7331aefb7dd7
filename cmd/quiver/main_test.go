package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/batch"
	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/internal/datagen"
)

func runCLI(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

func writeTestFile(t *testing.T, file bool, s codec.Setting) string {
	t.Helper()
	rec := datagen.Record(memory.DefaultAllocator, 500, 9)
	defer rec.Release()
	var buf bytes.Buffer
	if file {
		fw, err := batch.NewFileWriter(&buf, rec.Schema(), batch.WriteOptions{Codec: s})
		if err != nil {
			t.Fatal(err)
		}
		if err := fw.Write(rec); err != nil {
			t.Fatal(err)
		}
		if err := fw.Close(); err != nil {
			t.Fatal(err)
		}
	} else {
		sw, err := batch.NewStreamWriter(&buf, rec.Schema(), batch.WriteOptions{Codec: s})
		if err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if err := sw.Write(rec); err != nil {
				t.Fatal(err)
			}
		}
		if err := sw.Close(); err != nil {
			t.Fatal(err)
		}
	}
	p := filepath.Join(t.TempDir(), "t.arrow")
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestInspect(t *testing.T) {
	for _, file := range []bool{false, true} {
		p := writeTestFile(t, file, codec.SettingZstd)
		code, out, errs := runCLI("inspect", p, "--verify", "--batches")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		for _, want := range []string{"schema:", "dict: dictionary<values=utf8, indices=int16", "zstd ×", "verify: ", "total"} {
			if !strings.Contains(out, want) {
				t.Errorf("file=%v: output lacks %q:\n%s", file, want, out)
			}
		}
	}
}

// TestInspectVerifyCorrupt: flipping bytes anywhere in a file makes
// --verify exit 1 with one line on stderr, or still succeed (bytes that
// do not matter, such as padding); it never panics.
func TestInspectVerifyCorrupt(t *testing.T) {
	for _, s := range []codec.Setting{codec.SettingLZ4, codec.SettingZstd, codec.SettingNone} {
		p := writeTestFile(t, true, s)
		orig, _ := os.ReadFile(p)
		failures := 0
		for i := 0; i < len(orig); i += max(1, len(orig)/200) {
			bad := bytes.Clone(orig)
			bad[i] ^= 0x5A
			if err := os.WriteFile(p, bad, 0o644); err != nil {
				t.Fatal(err)
			}
			code, _, errs := runCLI("inspect", "--verify", p)
			if code != 0 {
				failures++
				if code != 1 || strings.Count(strings.TrimSpace(errs), "\n") != 0 || !strings.HasPrefix(errs, "quiver inspect: ") {
					t.Fatalf("byte %d: exit %d, stderr %q", i, code, errs)
				}
			}
		}
		if failures == 0 {
			t.Fatalf("%s: no corruption detected", s)
		}
	}
	// A value-buffer corruption in a compressed batch names batch and column.
	p := writeTestFile(t, false, codec.SettingLZ4)
	data, _ := os.ReadFile(p)
	data[len(data)-200] ^= 0xFF
	os.WriteFile(p, data, 0o644)
	code, _, errs := runCLI("inspect", "--verify", p)
	if code != 1 || !strings.Contains(errs, "record batch 1") || !strings.Contains(errs, "column") {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
}

func TestCLIErrors(t *testing.T) {
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"nope"}, 2, "unknown command"},
		{[]string{"inspect"}, 2, "want exactly one FILE"},
		{[]string{"inspect", "--nope", "x"}, 2, "flag provided but not defined"},
		{[]string{"inspect", "/does/not/exist"}, 1, "no such file"},
		{[]string{"inspect", "/etc/hostname"}, 1, "not an Arrow IPC file or stream"},
	}
	for _, c := range cases {
		code, _, errs := runCLI(c.args...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, code, errs, c.code, c.want)
		}
	}
	for _, help := range [][]string{{"help"}, {"inspect", "--help"}, {"help", "inspect"}} {
		if code, out, _ := runCLI(help...); code != 0 || !strings.Contains(out, "Usage") && !strings.Contains(out, "quiver") {
			t.Errorf("%v: exit %d, %q", help, code, out)
		}
	}
}
