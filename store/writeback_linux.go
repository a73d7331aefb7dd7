package store

import (
	"golang.org/x/sys/unix"

	"github.com/quiverdb/quiver/store/vfs"
)

// startWriteback asks the kernel to start writing bytes [off, off+n) of
// f to the disk now, without waiting (sync_file_range with
// SYNC_FILE_RANGE_WRITE), so the fsync before a commit finds them
// written or under way. It is a hint: files without a descriptor (a
// vfs.FaultFS's) and errors are ignored; durability still comes from
// that fsync.
func startWriteback(f vfs.File, off, n int64) {
	if fd, ok := f.(interface{ Fd() uintptr }); ok {
		_ = unix.SyncFileRange(int(fd.Fd()), off, n, unix.SYNC_FILE_RANGE_WRITE)
	}
}
