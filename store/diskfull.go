package store

import (
	"errors"
	"fmt"
	"syscall"
)

// DiskFullError is the error of a change the data directory's file
// system had no room for (ENOSPC): the table is as it was, on disk and in
// memory. It matches syscall.ENOSPC (errors.Is); Err, the file system's
// own error naming the file, is kept for logs but not in the message, so
// that a client reads one sentence.
type DiskFullError struct {
	Table string
	Dir   string
	Op    string // "stored", "compacted", "dropped"
	Free  int64  // bytes free to the server in Dir's file system; -1 when unknown
	Err   error
}

func (e *DiskFullError) Error() string {
	free := ""
	switch {
	case e.Free >= 1<<30:
		free = fmt.Sprintf(" (%.1f GiB free)", float64(e.Free)/(1<<30))
	case e.Free >= 0:
		free = fmt.Sprintf(" (%.1f MiB free)", float64(e.Free)/(1<<20))
	}
	return fmt.Sprintf("store: table %q not %s: no space left in data directory %s%s", e.Table, e.Op, e.Dir, free)
}

func (e *DiskFullError) Unwrap() error { return e.Err }

// diskFull turns a change's error that is ENOSPC into a *DiskFullError,
// and returns others as they are (a table that could not be put back
// keeps its longer error: it says to restart).
func (s *Store) diskFull(table, op string, err error) error {
	var full *DiskFullError
	if err == nil || !errors.Is(err, syscall.ENOSPC) || errors.As(err, &full) || s.brokenBy(table, err) {
		return err
	}
	return &DiskFullError{Table: table, Dir: s.dir, Op: op, Free: freeSpace(s.dir), Err: err}
}

// brokenBy reports whether err is table's broken error (change.go undo).
func (s *Store) brokenBy(table string, err error) bool {
	s.mu.Lock()
	t := s.tables[table]
	s.mu.Unlock()
	if t == nil {
		return false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.broken != nil && t.broken == err
}
