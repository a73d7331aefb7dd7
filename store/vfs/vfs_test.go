package vfs

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestConformance runs every FS through the same checks: what the store
// relies on.
func TestConformance(t *testing.T) {
	for name, fs := range map[string]FS{"os": OS, "fault": NewFaultFS(OS)} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "a", "b")
			if err := fs.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			p, q := filepath.Join(dir, "p"), filepath.Join(dir, "q")
			f, err := fs.Create(p)
			if err != nil {
				t.Fatal(err)
			}
			if n, err := f.Write([]byte("hello")); n != 5 || err != nil {
				t.Fatalf("Write: %d, %v", n, err)
			}
			if err := f.Sync(); err != nil {
				t.Fatal(err)
			}
			if st, err := f.Stat(); err != nil || st.Size() != 5 {
				t.Fatalf("Stat: %v, %v", st, err)
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
			if err := fs.Rename(p, q); err != nil {
				t.Fatal(err)
			}
			if names, err := fs.List(dir); err != nil || !slices.Equal(names, []string{"q"}) {
				t.Fatalf("List: %v, %v", names, err)
			}
			r, err := fs.Open(q)
			if err != nil {
				t.Fatal(err)
			}
			buf := make([]byte, 3)
			if n, err := r.ReadAt(buf, 2); n != 3 || err != nil || string(buf) != "llo" {
				t.Fatalf("ReadAt: %q, %v", buf[:n], err)
			}
			r.Close()
			if err := fs.Truncate(q, 2); err != nil {
				t.Fatal(err)
			}
			if st, err := fs.Stat(q); err != nil || st.Size() != 2 {
				t.Fatalf("Stat after Truncate: %v, %v", st, err)
			}
			d, err := fs.OpenDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			if err := d.Sync(); err != nil {
				t.Fatal(err)
			}
			d.Close()
			if err := fs.Remove(q); err != nil {
				t.Fatal(err)
			}
			if _, err := fs.Stat(q); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("Stat after Remove: %v", err)
			}
			l, err := fs.Lock(filepath.Join(dir, "LOCK"))
			if err != nil {
				t.Fatal(err)
			}
			var le *LockedError
			if _, err := fs.Lock(filepath.Join(dir, "LOCK")); !errors.As(err, &le) {
				t.Fatalf("second Lock: %v", err)
			}
			l.Close()
		})
	}
}
