package spill

import (
	"errors"
	"os"
	"testing"
)

// A raw file counts against the quota like a spill file: a write that
// does not fit removes it, Remove gives its bytes back, Close removes it.
func TestRawFile(t *testing.T) {
	m := newTestManager(t, Config{Quota: 100}, nil)
	w, err := m.NewRaw("map 1", ".shuffle")
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(make([]byte, 60)); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(make([]byte, 60)); !errors.Is(err, ErrQuota) {
		t.Fatalf("got %v, want ErrQuota", err)
	}
	if _, err := os.Stat(w.Path()); !errors.Is(err, os.ErrNotExist) || m.Stats().DiskBytes != 0 || m.Stats().Files != 0 {
		t.Fatalf("failed file left: %v, %+v", err, m.Stats())
	}
	w, err = m.NewRaw("map 2", ".shuffle")
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write([]byte("hello")); err != nil {
		t.Fatal(err)
	}
	f, err := w.Finish()
	if err != nil {
		t.Fatal(err)
	}
	h, err := f.Open()
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 5)
	if _, err := h.ReadAt(b, 0); err != nil || string(b) != "hello" || m.Stats().DiskBytes != 5 {
		t.Fatalf("read %q, %v, %d bytes", b, err, m.Stats().DiskBytes)
	}
	h.Close()
	if err := f.Remove(); err != nil || m.Stats().DiskBytes != 0 || m.Stats().Files != 0 {
		t.Fatalf("Remove: %v, %+v", err, m.Stats())
	}
	w, _ = m.NewRaw("map 3", ".shuffle")
	_ = w.Write([]byte("x"))
	path := w.Path()
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Close left %s", path)
	}
	if err := w.Write([]byte("y")); !errors.Is(err, ErrClosed) {
		t.Fatalf("write after Close: %v", err)
	}
}
