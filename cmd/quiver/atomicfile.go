package main

import (
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
)

// writeFileAtomically runs write on a temporary file next to out and
// renames it to out only if write succeeds: a failed or cancelled command
// leaves no partial file behind, and never a half-overwritten one.
//
// The file gets the mode cp would give it: an existing out keeps its
// mode, a new one is 0666 less the umask. (os.CreateTemp makes 0600
// files, and the mode survives the rename: other users could not read
// what quiver wrote.)
func writeFileAtomically(out string, write func(f *os.File) error) (err error) {
	tmp, err := createTemp(filepath.Dir(out), "."+filepath.Base(out)+".")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if st, err := os.Stat(out); err == nil && st.Mode().IsRegular() {
		if err := tmp.Chmod(st.Mode().Perm()); err != nil {
			return err
		}
	}
	if err := write(tmp); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), out)
}

// createTemp is os.CreateTemp with mode 0666 (before the umask) rather
// than 0600: a new file named prefix and a number, in dir.
func createTemp(dir, prefix string) (*os.File, error) {
	for range 10000 {
		name := filepath.Join(dir, prefix+strconv.FormatUint(rand.Uint64(), 36))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, err
	}
	return nil, &fs.PathError{Op: "createtemp", Path: filepath.Join(dir, prefix+"*"), Err: fs.ErrExist}
}
