package store

import "golang.org/x/sys/unix"

// freeSpace is the bytes an unprivileged writer may still use in dir's
// file system; -1 when unknown.
func freeSpace(dir string) int64 {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return -1
	}
	return int64(st.Bavail) * st.Bsize
}
