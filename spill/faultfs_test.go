package spill

import (
	"sync"
	"sync/atomic"
)

// faultFS is the real file system with hooks: it counts write calls per
// file and fails the writes and reads its hooks say to, the way a full
// disk or a failing device would.
type faultFS struct {
	OSFS
	writes atomic.Int64 // write calls on every file
	reads  atomic.Int64

	mu sync.Mutex
	// writeFault, if set, is asked before each write: a non-nil error is
	// returned after writing short of the bytes (keep of them).
	writeFault func(path string, call int64, n int) (keep int, err error)
	// readFault, if set, is asked before each ReadAt.
	readFault func(path string, off int64, n int) error
}

func (f *faultFS) Create(path string) (Handle, error) {
	h, err := f.OSFS.Create(path)
	if err != nil {
		return nil, err
	}
	return &faultHandle{Handle: h, fs: f, path: path}, nil
}

func (f *faultFS) Open(path string) (Handle, error) {
	h, err := f.OSFS.Open(path)
	if err != nil {
		return nil, err
	}
	return &faultHandle{Handle: h, fs: f, path: path}, nil
}

func (f *faultFS) setWriteFault(fn func(path string, call int64, n int) (int, error)) {
	f.mu.Lock()
	f.writeFault = fn
	f.mu.Unlock()
}

func (f *faultFS) setReadFault(fn func(path string, off int64, n int) error) {
	f.mu.Lock()
	f.readFault = fn
	f.mu.Unlock()
}

type faultHandle struct {
	Handle
	fs    *faultFS
	path  string
	calls int64
}

func (h *faultHandle) Write(b []byte) (int, error) {
	h.fs.writes.Add(1)
	h.calls++
	h.fs.mu.Lock()
	fault := h.fs.writeFault
	h.fs.mu.Unlock()
	if fault != nil {
		if keep, err := fault(h.path, h.calls, len(b)); err != nil {
			n, _ := h.Handle.Write(b[:keep])
			return n, err
		}
	}
	return h.Handle.Write(b)
}

func (h *faultHandle) ReadAt(b []byte, off int64) (int, error) {
	h.fs.reads.Add(1)
	h.fs.mu.Lock()
	fault := h.fs.readFault
	h.fs.mu.Unlock()
	if fault != nil {
		if err := fault(h.path, off, len(b)); err != nil {
			return 0, err
		}
	}
	return h.Handle.ReadAt(b, off)
}
