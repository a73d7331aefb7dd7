package store

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestCatalog: SaveCatalog is read back by Open; a damaged catalog is a
// problem named by its file, not a failed Open; a read-only store
// refuses to save.
func TestCatalog(t *testing.T) {
	dir := t.TempDir()
	mem := checked(t)
	s, _ := open(t, dir, mem, nil)
	if s.Catalog() != nil {
		t.Fatalf("a new store has a catalog: %q", s.Catalog())
	}
	if err := s.SaveCatalog([]byte(`{"views":[]}`)); err != nil {
		t.Fatal(err)
	}
	if err := s.SaveCatalog([]byte(`{"views":[1]}`)); err != nil {
		t.Fatal(err)
	}
	s.Close()

	s2, _ := open(t, dir, mem, nil)
	if got := string(s2.Catalog()); got != `{"views":[1]}` || len(s2.Problems()) != 0 {
		t.Fatalf("after reopening: %q %v", got, s2.Problems())
	}
	s2.Close()
	if names := files(t, dir); len(names) != 2 { // LOCK, catalog: no temp file left
		t.Fatalf("files: %v", names)
	}

	ro, err := Open(dir, newCache(t, mem), Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := ro.SaveCatalog(nil); !errors.Is(err, ErrReadOnly) {
		t.Errorf("read-only save: %v", err)
	}

	path := filepath.Join(dir, catalogName)
	raw, _ := os.ReadFile(path)
	raw[6] ^= 1
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	s3, _ := open(t, dir, mem, nil)
	var te *TableError
	if p := s3.Problems(); len(p) != 1 || !errors.As(p[0], &te) || te.File != catalogName || !errors.Is(p[0], ErrCorrupt) {
		t.Fatalf("damaged catalog: %v", p)
	}
	if s3.Catalog() != nil {
		t.Errorf("a damaged catalog was served: %q", s3.Catalog())
	}
	if err := s3.SaveCatalog([]byte(`{}`)); err == nil {
		t.Error("a damaged catalog was replaced")
	}
}
