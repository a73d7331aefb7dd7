//go:build !linux

package store

import "github.com/quiverdb/quiver/store/vfs"

// startWriteback does nothing where sync_file_range is missing: the
// fsync before a commit writes the bytes.
func startWriteback(vfs.File, int64, int64) {}
