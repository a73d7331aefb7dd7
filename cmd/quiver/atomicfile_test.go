//go:build unix

package main

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestWrittenFilesModeFollowsUmask: what convert and query --out write
// is 0666 less the umask, as cp makes it (it was 0600 whatever the
// umask: the temporary file's mode survived the rename), and a file
// overwritten keeps its mode.
func TestWrittenFilesModeFollowsUmask(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	dir := t.TempDir()
	in := writeCSV(t, 50)
	mode := func(path string) os.FileMode {
		t.Helper()
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return st.Mode().Perm()
	}
	for _, tc := range []struct {
		umask int
		want  os.FileMode
	}{{0o022, 0o644}, {0o027, 0o640}, {0o002, 0o664}} {
		syscall.Umask(tc.umask)
		arrow := filepath.Join(dir, "c.arrow")
		os.Remove(arrow)
		mustRun(t, "convert", "--quiet", in, arrow)
		if got := mode(arrow); got != tc.want {
			t.Errorf("umask %03o: convert wrote %v, want %v", tc.umask, got, tc.want)
		}
		csv := filepath.Join(dir, "q.csv")
		os.Remove(csv)
		mustRun(t, "query", "--table", "t="+in, "--out", csv, "SELECT * FROM t")
		if got := mode(csv); got != tc.want {
			t.Errorf("umask %03o: query --out wrote %v, want %v", tc.umask, got, tc.want)
		}
	}
	// Overwriting keeps the file's own mode, whatever the umask.
	syscall.Umask(0o022)
	kept := filepath.Join(dir, "kept.arrow")
	if err := os.WriteFile(kept, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	os.Chmod(kept, 0o640)
	mustRun(t, "convert", "--quiet", in, kept)
	if got := mode(kept); got != 0o640 {
		t.Errorf("overwritten file: %v, want 0640", got)
	}
	// No temporary file is left beside the outputs.
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.Name()[0] == '.' {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}
