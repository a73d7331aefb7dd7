package spill

import (
	"errors"
	"fmt"
	"sync"
)

// RawWriter writes a file whose layout its caller owns (a shuffle's map
// output: several streams and an index), under the Manager's quota, folder
// and cleanup like any spill file: every Write reserves its bytes first,
// a write that does not fit or fails removes the file, and Manager.Close
// removes it with the folder.
type RawWriter struct {
	fileOut
	n int // writes so far, for errors
}

// NewRaw starts a raw file named <owner>-<n><ext> in the Manager's folder.
func (m *Manager) NewRaw(owner, ext string) (*RawWriter, error) {
	f, err := m.create(owner, sanitize(ext))
	if err != nil {
		return nil, err
	}
	return &RawWriter{fileOut: f}, nil
}

// Path returns the file's path.
func (w *RawWriter) Path() string { return w.path }

// Bytes returns the bytes written so far.
func (w *RawWriter) Bytes() int64 { return w.size }

// Write appends p with one write call. Errors are as Writer.Write's: a
// *SpaceError for the quota or a full disk, the file system's error
// otherwise; either way the file is removed and the RawWriter is done.
func (w *RawWriter) Write(p []byte) error {
	if err := w.usable("write to"); err != nil {
		return err
	}
	if w.m.closed.Load() {
		return w.fail(ErrClosed)
	}
	w.n++
	if err := w.write(p, w.n-1); err != nil {
		return w.fail(err)
	}
	return nil
}

func (w *RawWriter) fail(err error) error {
	w.Abort()
	w.err = err
	return err
}

// Finish closes the file, which can then be opened any number of times.
func (w *RawWriter) Finish() (*RawFile, error) {
	if err := w.usable("Finish of"); err != nil {
		return nil, err
	}
	if err := w.close(); err != nil {
		return nil, w.fail(err)
	}
	return &RawFile{m: w.m, owner: w.owner, path: w.path, size: w.size}, nil
}

// Abort removes the file and gives its bytes back to the quota. It does
// nothing after Finish or a second time.
func (w *RawWriter) Abort() { w.remove() }

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
