// Package vfs is the file system under package store: an interface with
// the operating system's implementation (OS) and a fault-injecting wrapper
// (FaultFS) that fails the Nth write, sync, rename or remove, or crashes
// the process's view of the disk there, losing what was not synced (and,
// with LoseDirOps, directory operations not synced), or fails reads of
// chosen files. The store's tests run every step of every change through
// it.
package vfs

import (
	"io"
	"os"
)

// FS is what the store asks of a file system. Paths are the host's.
type FS interface {
	// Create creates or truncates name for writing.
	Create(name string) (File, error)
	// Open opens name for reading.
	Open(name string) (File, error)
	// OpenDir opens a directory, to Sync it after creating, renaming or
	// removing its entries.
	OpenDir(name string) (File, error)
	Rename(oldname, newname string) error
	Remove(name string) error
	MkdirAll(name string, perm os.FileMode) error
	// List returns the names of a directory's entries.
	List(dir string) ([]string, error)
	Stat(name string) (os.FileInfo, error)
	// Truncate cuts name to size bytes (tests tear files with it).
	Truncate(name string, size int64) error
	// Lock takes an exclusive lock on name (created if absent) and writes
	// the process id into it; Close releases it. When another process
	// holds the lock, the error is a *LockedError.
	Lock(name string) (io.Closer, error)
}

// File is an open file or directory.
type File interface {
	io.Writer
	io.ReaderAt
	io.Closer
	Sync() error
	Stat() (os.FileInfo, error)
}

// LockedError is the error of Lock on a file another process holds.
type LockedError struct {
	Path string
	PID  string // as the holder wrote it; empty if unreadable
	Err  error
}

func (e *LockedError) Error() string {
	pid := e.PID
	if pid == "" {
		pid = "unknown"
	}
	return "lock " + e.Path + " is held by process " + pid + ": " + e.Err.Error()
}

func (e *LockedError) Unwrap() error { return e.Err }
