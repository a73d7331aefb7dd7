package spill

import (
	"bytes"
	"io"
	"io/fs"
	"path"
	"strings"
	"sync"
	"time"
)

// memFS keeps files in memory: the fuzz target swaps a file's bytes for
// each input without touching the disk.
type memFS struct {
	mu    sync.Mutex
	files map[string][]byte
	dirs  map[string]bool
}

func newMemFS() *memFS { return &memFS{files: map[string][]byte{}, dirs: map[string]bool{}} }

func (m *memFS) put(name string, b []byte) {
	m.mu.Lock()
	m.files[name] = b
	m.mu.Unlock()
}

func (m *memFS) MkdirAll(p string, _ fs.FileMode) error {
	m.mu.Lock()
	m.dirs[p] = true
	m.mu.Unlock()
	return nil
}

func (m *memFS) Mkdir(p string, _ fs.FileMode) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.dirs[p] {
		return fs.ErrExist
	}
	m.dirs[p] = true
	return nil
}

func (m *memFS) Create(p string) (Handle, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.files[p]; ok {
		return nil, fs.ErrExist
	}
	m.files[p] = nil
	return &memHandle{fs: m, name: p}, nil
}

func (m *memFS) Open(p string) (Handle, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.files[p]; !ok {
		return nil, fs.ErrNotExist
	}
	return &memHandle{fs: m, name: p}, nil
}

func (m *memFS) Remove(p string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.files[p]; !ok {
		return fs.ErrNotExist
	}
	delete(m.files, p)
	return nil
}

func (m *memFS) RemoveAll(p string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for name := range m.files {
		if strings.HasPrefix(name, p+"/") {
			delete(m.files, name)
		}
	}
	delete(m.dirs, p)
	return nil
}

func (m *memFS) ReadDir(string) ([]fs.DirEntry, error) { return nil, nil }

func (m *memFS) Stat(p string) (fs.FileInfo, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.files[p]
	if !ok {
		return nil, fs.ErrNotExist
	}
	return memInfo{name: path.Base(p), size: int64(len(b))}, nil
}

type memHandle struct {
	fs   *memFS
	name string
}

func (h *memHandle) Write(b []byte) (int, error) {
	h.fs.mu.Lock()
	h.fs.files[h.name] = append(h.fs.files[h.name], b...)
	h.fs.mu.Unlock()
	return len(b), nil
}

func (h *memHandle) ReadAt(b []byte, off int64) (int, error) {
	h.fs.mu.Lock()
	data := h.fs.files[h.name]
	h.fs.mu.Unlock()
	return bytes.NewReader(data).ReadAt(b, off)
}

func (h *memHandle) Close() error { return nil }

type memInfo struct {
	name string
	size int64
}

func (i memInfo) Name() string       { return i.name }
func (i memInfo) Size() int64        { return i.size }
func (i memInfo) Mode() fs.FileMode  { return 0o600 }
func (i memInfo) ModTime() time.Time { return time.Time{} }
func (i memInfo) IsDir() bool        { return false }
func (i memInfo) Sys() any           { return nil }

var _ io.ReaderAt = (*memHandle)(nil)
