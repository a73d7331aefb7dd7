package spill

import (
	"errors"
	"fmt"
	"path/filepath"
)

// fileOut is what a Writer and a RawWriter share: a file in the Manager's
// folder, written under its quota. write reserves its bytes before the
// one write call; remove deletes the file and gives its bytes back. The
// writers make a failure sticky (their fail) and say when the file is
// done.
type fileOut struct {
	m     *Manager
	owner string
	path  string
	h     Handle
	size  int64 // bytes written (and reserved) so far
	err   error // sticky: the file was removed
	done  bool  // finished or aborted
}

// create starts a file named <owner>-<n><ext> in the Manager's folder.
func (m *Manager) create(owner, ext string) (fileOut, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed.Load() {
		return fileOut{}, ErrClosed
	}
	path := filepath.Join(m.dir, fmt.Sprintf("%s-%d%s", sanitize(owner), m.seq.Add(1), ext))
	h, err := m.fs.Create(path)
	if err != nil {
		if isNoSpace(err) {
			return fileOut{}, &SpaceError{Kind: ErrNoSpace, File: path, Used: m.used.Load(), Quota: m.cfg.Quota, Err: err}
		}
		return fileOut{}, fmt.Errorf("spill: creating %s: %w", path, err)
	}
	m.files.Add(1)
	m.created.Add(1)
	return fileOut{m: m, owner: owner, path: path, h: h}, nil
}

// usable is the error a write or Finish gets once the file failed or is
// done, or nil.
func (f *fileOut) usable(op string) error {
	if f.err != nil {
		return f.err
	}
	if f.done {
		return fmt.Errorf("spill: %s %s after Finish or Abort", op, f.path)
	}
	return nil
}

// write reserves len(p) bytes of the quota and writes p with one call:
// a *SpaceError when the quota or the disk has no room for it, the file
// system's error otherwise. batch numbers the write in errors.
func (f *fileOut) write(p []byte, batch int) error {
	n := int64(len(p))
	if ok, used := f.m.reserve(n); !ok {
		return &SpaceError{Kind: ErrQuota, File: f.path, Batch: batch, Need: n, Quota: f.m.cfg.Quota, Used: used}
	}
	f.size += n // reserved: remove gives it back
	if _, err := f.h.Write(p); err != nil {
		if isNoSpace(err) {
			return &SpaceError{Kind: ErrNoSpace, File: f.path, Batch: batch, Need: n, Quota: f.m.cfg.Quota, Used: f.m.used.Load(), Err: err}
		}
		return fmt.Errorf("spill: writing file %s batch %d (%d bytes): %w", f.path, batch, n, err)
	}
	f.m.written.Add(n)
	return nil
}

// close closes the finished file; it is kept.
func (f *fileOut) close() error {
	if err := f.h.Close(); err != nil {
		f.h = nil
		return fmt.Errorf("spill: closing %s: %w", f.path, err)
	}
	f.done = true
	return nil
}

// remove closes and deletes the file and gives its bytes back to the
// quota, once: it does nothing after close or a first remove.
func (f *fileOut) remove() {
	if f.done {
		return
	}
	f.done = true
	if f.h != nil {
		_ = f.h.Close() // the file is removed next; nothing to lose
	}
	if err := f.m.fs.Remove(f.path); err == nil || errors.Is(err, errNotExist) {
		f.m.release(f.size)
		f.m.dropFile()
	}
	f.size = 0
}
