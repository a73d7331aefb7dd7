package vfs

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
)

// Op is a kind of mutating file system operation FaultFS counts.
type Op uint8

const (
	OpCreate Op = iota
	OpWrite
	OpSync // of a file or a directory
	OpRename
	OpRemove
)

var opNames = [...]string{"create", "write", "sync", "rename", "remove"}

func (o Op) String() string {
	if int(o) < len(opNames) {
		return opNames[o]
	}
	return fmt.Sprintf("Op(%d)", uint8(o))
}

// ErrCrashed is the error of every operation at and after FaultFS's crash
// point: the process is, as far as the disk knows, dead.
var ErrCrashed = errors.New("vfs: injected crash")

// FaultFS wraps an FS and counts its mutating operations (create, write,
// sync, rename, remove; reads are not counted) from 0. It can fail the Nth
// with an error (FailAt: the operation is not done and the error, e.g.
// syscall.EIO or syscall.ENOSPC, is returned in an *os.PathError), or
// crash there (CrashAt: that operation and every later one fail with
// ErrCrashed; then Crash cuts every file back to the bytes last synced,
// as a power cut loses a page cache, and closes what is open, as the
// kernel does for a dead process, its lock included). With LoseDirOps,
// Crash also undoes, newest first, the creates, renames and removes no
// directory sync has made durable since they were done.
//
// A test first runs a change with no fault to learn its operation count
// N, then runs it again N times, faulting operation 0, 1, … N-1.
type FaultFS struct {
	fs FS

	mu      sync.Mutex
	ops     int
	failAt  int
	failErr error
	crashAt int
	crashed bool
	written map[string]int64 // bytes written per path since Create
	synced  map[string]int64 // bytes synced per path
	open    map[*faultFile]struct{}
	locks   []io.Closer

	// LoseDirOps makes Crash undo directory operations not yet synced.
	LoseDirOps bool
	// ReadErr, when set, is asked before every read (ReadAt) of a file:
	// a non-nil error fails the read (reads are not counted as
	// operations).
	ReadErr func(path string) error
	dirOps  []dirOp // since the last directory sync
}

// dirOp is a directory operation Crash may undo: what name held before
// (prev, when existed) and, for a rename, where the file came from.
type dirOp struct {
	op      Op
	name    string
	from    string
	existed bool
	prev    []byte
}

// NewFaultFS returns fs with no fault set.
func NewFaultFS(fs FS) *FaultFS {
	return &FaultFS{
		fs: fs, failAt: -1, crashAt: -1,
		written: map[string]int64{}, synced: map[string]int64{}, open: map[*faultFile]struct{}{},
	}
}

// FailAt makes operation n fail once with err.
func (f *FaultFS) FailAt(n int, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failAt, f.failErr = n, err
}

// CrashAt makes operation n and all after it fail with ErrCrashed.
func (f *FaultFS) CrashAt(n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.crashAt = n
}

// Ops returns how many mutating operations were counted.
func (f *FaultFS) Ops() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.ops
}

// ResetOps starts counting from 0 again (after a test's setup).
func (f *FaultFS) ResetOps() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ops = 0
}

// Crash loses every unsynced byte (each file written since its last sync
// is cut back to its synced length) and closes every open file and lock.
func (f *FaultFS) Crash() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.crashed = true
	var errs []error
	for file := range f.open {
		errs = append(errs, file.f.Close())
	}
	clear(f.open)
	for _, l := range f.locks {
		errs = append(errs, l.Close())
	}
	f.locks = nil
	for path, n := range f.written {
		if s := f.synced[path]; s < n {
			errs = append(errs, f.fs.Truncate(path, s))
		}
	}
	if f.LoseDirOps {
		for i := len(f.dirOps) - 1; i >= 0; i-- {
			errs = append(errs, f.undo(f.dirOps[i]))
		}
	}
	f.dirOps = nil
	return errors.Join(errs...)
}

// undo reverts one directory operation.
func (f *FaultFS) undo(d dirOp) error {
	if d.op == OpRename {
		if err := f.fs.Rename(d.name, d.from); err != nil {
			return err
		}
	} else if !d.existed {
		return f.fs.Remove(d.name)
	}
	if !d.existed {
		return nil
	}
	w, err := f.fs.Create(d.name)
	if err != nil {
		return err
	}
	_, err = w.Write(d.prev)
	return errors.Join(err, w.Close())
}

// record notes a directory operation on name about to be done, with what
// name holds now.
func (f *FaultFS) record(op Op, name, from string) {
	d := dirOp{op: op, name: name, from: from}
	if r, err := f.fs.Open(name); err == nil {
		if st, err := r.Stat(); err == nil {
			d.prev = make([]byte, st.Size())
			_, err = r.ReadAt(d.prev, 0)
			d.existed = err == nil || err == io.EOF
		}
		r.Close()
	}
	f.mu.Lock()
	f.dirOps = append(f.dirOps, d)
	f.mu.Unlock()
}

// step counts one operation and returns the error it must fail with.
func (f *FaultFS) step(op Op, path string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := f.ops
	f.ops++
	switch {
	case f.crashed || (f.crashAt >= 0 && n >= f.crashAt):
		return &os.PathError{Op: op.String(), Path: path, Err: ErrCrashed}
	case n == f.failAt:
		return &os.PathError{Op: op.String(), Path: path, Err: f.failErr}
	}
	return nil
}

func (f *FaultFS) Create(name string) (File, error) {
	if err := f.step(OpCreate, name); err != nil {
		return nil, err
	}
	f.record(OpCreate, name, "")
	file, err := f.fs.Create(name)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.written[name], f.synced[name] = 0, 0
	ff := &faultFile{fs: f, f: file, path: name}
	f.open[ff] = struct{}{}
	return ff, nil
}

func (f *FaultFS) Open(name string) (File, error) {
	file, err := f.fs.Open(name)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	ff := &faultFile{fs: f, f: file, path: name}
	f.open[ff] = struct{}{}
	return ff, nil
}

func (f *FaultFS) OpenDir(name string) (File, error) {
	file, err := f.Open(name)
	if err == nil {
		file.(*faultFile).dir = true
	}
	return file, err
}

func (f *FaultFS) Rename(oldname, newname string) error {
	if err := f.step(OpRename, newname); err != nil {
		return err
	}
	f.record(OpRename, newname, oldname)
	if err := f.fs.Rename(oldname, newname); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if n, ok := f.written[oldname]; ok {
		f.written[newname], f.synced[newname] = n, f.synced[oldname]
		delete(f.written, oldname)
		delete(f.synced, oldname)
	}
	return nil
}

func (f *FaultFS) Remove(name string) error {
	if err := f.step(OpRemove, name); err != nil {
		return err
	}
	f.record(OpRemove, name, "")
	if err := f.fs.Remove(name); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.written, name)
	delete(f.synced, name)
	return nil
}

func (f *FaultFS) MkdirAll(name string, perm os.FileMode) error { return f.fs.MkdirAll(name, perm) }
func (f *FaultFS) List(dir string) ([]string, error)            { return f.fs.List(dir) }
func (f *FaultFS) Stat(name string) (os.FileInfo, error)        { return f.fs.Stat(name) }
func (f *FaultFS) Truncate(name string, size int64) error       { return f.fs.Truncate(name, size) }

func (f *FaultFS) Lock(name string) (io.Closer, error) {
	l, err := f.fs.Lock(name)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.locks = append(f.locks, l)
	return l, nil
}

// faultFile counts a file's writes and syncs.
type faultFile struct {
	fs   *FaultFS
	f    File
	path string
	dir  bool // a directory: its Sync makes the directory operations durable
}

func (ff *faultFile) Write(p []byte) (int, error) {
	if err := ff.fs.step(OpWrite, ff.path); err != nil {
		return 0, err
	}
	n, err := ff.f.Write(p)
	ff.fs.mu.Lock()
	ff.fs.written[ff.path] += int64(n)
	ff.fs.mu.Unlock()
	return n, err
}

func (ff *faultFile) Sync() error {
	if err := ff.fs.step(OpSync, ff.path); err != nil {
		return err
	}
	if err := ff.f.Sync(); err != nil {
		return err
	}
	ff.fs.mu.Lock()
	if n, ok := ff.fs.written[ff.path]; ok {
		ff.fs.synced[ff.path] = n
	}
	if ff.dir {
		ff.fs.dirOps = nil
	}
	ff.fs.mu.Unlock()
	return nil
}

func (ff *faultFile) ReadAt(p []byte, off int64) (int, error) {
	ff.fs.mu.Lock()
	readErr := ff.fs.ReadErr
	ff.fs.mu.Unlock()
	if readErr != nil {
		if err := readErr(ff.path); err != nil {
			return 0, &os.PathError{Op: "read", Path: ff.path, Err: err}
		}
	}
	return ff.f.ReadAt(p, off)
}
func (ff *faultFile) Stat() (os.FileInfo, error) { return ff.f.Stat() }

func (ff *faultFile) Close() error {
	ff.fs.mu.Lock()
	_, open := ff.fs.open[ff]
	delete(ff.fs.open, ff)
	ff.fs.mu.Unlock()
	if !open { // closed by Crash
		return nil
	}
	return ff.f.Close()
}
