//go:build unix

package spill

import (
	"errors"
	"syscall"
)

// processAlive reports whether pid names a running process. EPERM means
// it runs under another user: alive. Only ESRCH proves it is gone.
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return !errors.Is(err, syscall.ESRCH)
}

func isQuotaErrno(err error) bool { return errors.Is(err, syscall.EDQUOT) }
