package store

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/zeebo/xxh3"
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

// FuzzReadCatalog: any bytes in the catalog file open the store without
// a panic; either the payload between a valid header and checksum is
// served and nothing is reported, or the file is reported as corrupt,
// nothing is served, and SaveCatalog refuses to replace it.
func FuzzReadCatalog(f *testing.F) {
	valid := func(payload string) []byte {
		b := append([]byte(catalogMagic), catalogVersion)
		b = append(b, payload...)
		return binary.LittleEndian.AppendUint32(b, uint32(xxh3.Hash(b)))
	}
	f.Add(valid(`{"views":[]}`))
	f.Add(valid(""))
	f.Add([]byte("QVCT\x02xxxx"))
	f.Add([]byte("QVC"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, catalogName), raw, 0o644); err != nil {
			t.Fatal(err)
		}
		mem := checked(t)
		s, err := Open(dir, newCache(t, mem), Options{})
		if err != nil {
			t.Fatalf("a catalog file failed Open: %v", err)
		}
		defer s.Close()
		got, problems := s.Catalog(), s.Problems()
		if len(problems) == 0 {
			want := raw[len(catalogMagic)+1 : len(raw)-4]
			if got == nil || string(got) != string(want) {
				t.Fatalf("served %q, the file holds %q", got, want)
			}
			return
		}
		if got != nil || !errors.Is(problems[0], ErrCorrupt) {
			t.Fatalf("damaged catalog: served %q, problems %v", got, problems)
		}
		if err := s.SaveCatalog([]byte("{}")); err == nil {
			t.Fatal("a damaged catalog was replaced")
		}
	})
}
