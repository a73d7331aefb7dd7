//go:build !unix

package vfs

import (
	"errors"
	"io"
)

func (osFS) Lock(name string) (io.Closer, error) {
	return nil, errors.New("vfs: locking " + name + ": no flock on this system; data directories need a unix system")
}
