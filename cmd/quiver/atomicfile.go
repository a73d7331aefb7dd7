package main

import (
	"os"
	"path/filepath"
)

// writeFileAtomically runs write on a temporary file next to out and
// renames it to out only if write succeeds: a failed or cancelled command
// leaves no partial file behind, and never a half-overwritten one.
func writeFileAtomically(out string, write func(f *os.File) error) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(out), "."+filepath.Base(out)+".*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := write(tmp); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), out)
}
