package spill

import (
	"io"
	"io/fs"
	"os"
)

// FS is the file system spill files live on: the few calls the Manager,
// Writers and Readers make, so that tests can fail any of them (a full
// disk, a short read) and count writes.
type FS interface {
	// MkdirAll creates the spill dir and its parents if missing.
	MkdirAll(path string, perm fs.FileMode) error
	// Mkdir creates one folder and fails if it exists.
	Mkdir(path string, perm fs.FileMode) error
	// Create creates a new file for writing and fails if it exists.
	Create(path string) (Handle, error)
	// Open opens an existing file for reading.
	Open(path string) (Handle, error)
	Remove(path string) error
	RemoveAll(path string) error
	ReadDir(path string) ([]fs.DirEntry, error)
	Stat(path string) (fs.FileInfo, error)
}

// Handle is an open spill file. Writers only Write (each call appends),
// Readers only ReadAt, so one Reader's reads never move another's.
type Handle interface {
	io.Writer
	io.ReaderAt
	io.Closer
}

// OSFS is the operating system's file system.
type OSFS struct{}

func (OSFS) MkdirAll(path string, perm fs.FileMode) error { return os.MkdirAll(path, perm) }
func (OSFS) Mkdir(path string, perm fs.FileMode) error    { return os.Mkdir(path, perm) }

func (OSFS) Create(path string) (Handle, error) {
	return os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
}

func (OSFS) Open(path string) (Handle, error)           { return os.Open(path) }
func (OSFS) Remove(path string) error                   { return os.Remove(path) }
func (OSFS) RemoveAll(path string) error                { return os.RemoveAll(path) }
func (OSFS) ReadDir(path string) ([]fs.DirEntry, error) { return os.ReadDir(path) }
func (OSFS) Stat(path string) (fs.FileInfo, error)      { return os.Stat(path) }
