package spill

import (
	"errors"
	"fmt"
	"path/filepath"
	"sync"
)

// RawWriter writes a file whose layout its caller owns (a shuffle's map
// output: several streams and an index), under the Manager's quota, folder
// and cleanup like any spill file: every Write reserves its bytes first,
// a write that does not fit or fails removes the file, and Manager.Close
// removes it with the folder.
type RawWriter struct {
	m     *Manager
	owner string
	path  string
	h     Handle
	size  int64
	n     int // writes so far, for errors
	err   error
	done  bool
}

// NewRaw starts a raw file named <owner>-<n><ext> in the Manager's folder.
func (m *Manager) NewRaw(owner, ext string) (*RawWriter, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed.Load() {
		return nil, ErrClosed
	}
	path := filepath.Join(m.dir, fmt.Sprintf("%s-%d%s", sanitize(owner), m.seq.Add(1), sanitize(ext)))
	h, err := m.fs.Create(path)
	if err != nil {
		if isNoSpace(err) {
			return nil, &SpaceError{Kind: ErrNoSpace, File: path, Used: m.used.Load(), Quota: m.cfg.Quota, Err: err}
		}
		return nil, fmt.Errorf("spill: creating %s: %w", path, err)
	}
	m.files.Add(1)
	m.created.Add(1)
	return &RawWriter{m: m, owner: owner, path: path, h: h}, nil
}

// Path returns the file's path.
func (w *RawWriter) Path() string { return w.path }

// Bytes returns the bytes written so far.
func (w *RawWriter) Bytes() int64 { return w.size }

// Write appends p with one write call. Errors are as Writer.Write's: a
// *SpaceError for the quota or a full disk, the file system's error
// otherwise; either way the file is removed and the RawWriter is done.
func (w *RawWriter) Write(p []byte) error {
	if w.err != nil {
		return w.err
	}
	if w.done {
		return fmt.Errorf("spill: write to %s after Finish or Abort", w.path)
	}
	if w.m.closed.Load() {
		return w.fail(ErrClosed)
	}
	n := int64(len(p))
	if ok, used := w.m.reserve(n); !ok {
		return w.fail(&SpaceError{Kind: ErrQuota, File: w.path, Batch: w.n, Need: n, Quota: w.m.cfg.Quota, Used: used})
	}
	w.size += n
	w.n++
	if _, err := w.h.Write(p); err != nil {
		if isNoSpace(err) {
			return w.fail(&SpaceError{Kind: ErrNoSpace, File: w.path, Batch: w.n - 1, Need: n, Quota: w.m.cfg.Quota, Used: w.m.used.Load(), Err: err})
		}
		return w.fail(fmt.Errorf("spill: writing %s (%d bytes): %w", w.path, n, err))
	}
	w.m.written.Add(n)
	return nil
}

func (w *RawWriter) fail(err error) error {
	w.Abort()
	w.err = err
	return err
}

// Finish closes the file, which can then be opened any number of times.
func (w *RawWriter) Finish() (*RawFile, error) {
	if w.err != nil {
		return nil, w.err
	}
	if w.done {
		return nil, fmt.Errorf("spill: Finish of %s after Finish or Abort", w.path)
	}
	if err := w.h.Close(); err != nil {
		w.h = nil
		return nil, w.fail(fmt.Errorf("spill: closing %s: %w", w.path, err))
	}
	w.done = true
	return &RawFile{m: w.m, owner: w.owner, path: w.path, size: w.size}, nil
}

// Abort removes the file and gives its bytes back to the quota. It does
// nothing after Finish or a second time.
func (w *RawWriter) Abort() {
	if w.done {
		return
	}
	w.done = true
	if w.h != nil {
		_ = w.h.Close() // the file is removed next; nothing to lose
	}
	if err := w.m.fs.Remove(w.path); err == nil || errors.Is(err, errNotExist) {
		w.m.release(w.size)
		w.m.dropFile()
	}
	w.size = 0
}

// RawFile is a finished raw file.
type RawFile struct {
	m     *Manager
	owner string
	path  string
	size  int64

	mu      sync.Mutex
	removed bool
}

// Path returns the file's path.
func (f *RawFile) Path() string { return f.path }

// Bytes returns the file's size as written.
func (f *RawFile) Bytes() int64 { return f.size }

// Open opens the file for reading (ReadAt); the caller closes the handle.
func (f *RawFile) Open() (Handle, error) {
	f.mu.Lock()
	removed := f.removed
	f.mu.Unlock()
	if removed {
		return nil, fmt.Errorf("spill: open of removed file %s", f.path)
	}
	if f.m.closed.Load() {
		return nil, ErrClosed
	}
	h, err := f.m.fs.Open(f.path)
	if err != nil {
		return nil, fmt.Errorf("spill: opening %s: %w", f.path, err)
	}
	return h, nil
}

// Remove deletes the file and gives its bytes back to the quota; handles
// should be closed first. Removing twice is not an error.
func (f *RawFile) Remove() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.removed {
		return nil
	}
	f.removed = true
	if f.m.closed.Load() {
		return nil
	}
	if err := f.m.fs.Remove(f.path); err != nil && !errors.Is(err, errNotExist) {
		f.removed = false
		return fmt.Errorf("spill: removing %s: %w", f.path, err)
	}
	f.m.release(f.size)
	f.m.dropFile()
	return nil
}
