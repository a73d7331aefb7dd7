//go:build unix

package vfs

import (
	"errors"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// Lock takes flock(LOCK_EX|LOCK_NB) on name: the kernel drops it when
// the process dies, so a crashed server never leaves a stale lock, and
// the pid written into the file only names the holder in the error.
func (osFS) Lock(name string) (io.Closer, error) {
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			pid, _ := os.ReadFile(name)
			return nil, &LockedError{Path: name, PID: strings.TrimSpace(string(pid)), Err: err}
		}
		return nil, err
	}
	if err := f.Truncate(0); err == nil {
		_, err = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
