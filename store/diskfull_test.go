package store

import (
	"errors"
	"os"
	"syscall"
	"testing"
)

// TestDiskFullError: one sentence, the space free when known, and the
// file system's error kept for errors.Is.
func TestDiskFullError(t *testing.T) {
	cause := &os.PathError{Op: "write", Path: "/d/t1-2.chunks", Err: syscall.ENOSPC}
	for _, tc := range []struct {
		free int64
		want string
	}{
		{-1, `store: table "t" not stored: no space left in data directory /d`},
		{3 << 20, `store: table "t" not stored: no space left in data directory /d (3.0 MiB free)`},
		{5 << 30, `store: table "t" not stored: no space left in data directory /d (5.0 GiB free)`},
	} {
		err := error(&DiskFullError{Table: "t", Dir: "/d", Op: "stored", Free: tc.free, Err: cause})
		if err.Error() != tc.want || !errors.Is(err, syscall.ENOSPC) {
			t.Errorf("%q (is ENOSPC: %v), want %q", err, errors.Is(err, syscall.ENOSPC), tc.want)
		}
	}
}
