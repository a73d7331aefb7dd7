package store

import (
	"errors"
	"fmt"
	"strings"
	"syscall"
	"testing"

	"github.com/quiverdb/quiver/store/vfs"
)

// A faultCase is one change of table "t" (or of a new table "u") from the
// base directory: two tables, "t" (put, then appended to) and "other".
type faultCase struct {
	name   string
	table  string
	change func(t *testing.T, s *Store) error
}

func faultCases() []faultCase {
	return []faultCase{
		{"create", "u", func(t *testing.T, s *Store) error {
			r := batches(checkedFor(t), 11, 2, 200)
			defer r.Release()
			_, err := s.Put(t.Context(), "u", r, testOpts)
			return err
		}},
		{"append", "t", func(t *testing.T, s *Store) error {
			r := batches(checkedFor(t), 12, 2, 200)
			defer r.Release()
			_, err := s.Append(t.Context(), "t", r, testOpts)
			return err
		}},
		{"replace", "t", func(t *testing.T, s *Store) error {
			r := batches(checkedFor(t), 13, 3, 100)
			defer r.Release()
			_, err := s.Put(t.Context(), "t", r, testOpts)
			return err
		}},
		{"compact", "t", func(t *testing.T, s *Store) error {
			// t's two files (2 + 1 batches of 300 rows) into 1 batch.
			did, err := s.Compact(t.Context(), "t")
			if err == nil && !did {
				return errors.New("nothing compacted")
			}
			return err
		}},
		{"drop", "t", func(t *testing.T, s *Store) error {
			_, err := s.Drop("t")
			return err
		}},
	}
}

// baseDir writes the directory every fault case starts from.
func baseDir(t *testing.T) (dir string, other content) {
	mem := checked(t)
	dir = t.TempDir()
	s, c := open(t, dir, mem, nil)
	put(t, s, "t", batches(mem, 1, 2, 300))
	appendTo(t, s, "t", batches(mem, 2, 1, 300)) // two chunk files
	put(t, s, "other", batches(mem, 3, 1, 50))
	other = contentOf(t, c, "other")
	s.Close()
	return dir, other
}

// TestFaults runs each change with a fault injected at each of its file
// operations, in turn: an EIO and an ENOSPC there (the change must fail
// with that error, leave the table as it was in memory, and a reopen must
// find it as it was; or, when the fault hit a removal after the commit,
// succeed with the new table), and a crash there (the process dies: every
// later operation fails, unsynced bytes are lost, and a reopen must find
// exactly the old table or the new one; a crash after the change returned
// must find the new one), once keeping and once losing the directory
// operations not yet synced. Every reopen must also serve the
// untouched table and report no problem.
func TestFaults(t *testing.T) {
	base, other := baseDir(t)
	for _, fc := range faultCases() {
		t.Run(fc.name, func(t *testing.T) {
			mem := checked(t)
			// The clean run: the old and new contents, and the count of
			// operations the change does.
			dir := copyDir(t, base)
			ffs := vfs.NewFaultFS(vfs.OS)
			s, c := open(t, dir, mem, ffs)
			old := contentOf(t, c, fc.table)
			ffs.ResetOps()
			if err := fc.change(t, s); err != nil {
				t.Fatal(err)
			}
			ops := ffs.Ops()
			newer := contentOf(t, c, fc.table)
			s.Close()
			if old == newer || ops < 4 {
				t.Fatalf("the change must change the table in several operations: %v → %v in %d", old, newer, ops)
			}
			for op := range ops {
				for _, errno := range []syscall.Errno{syscall.EIO, syscall.ENOSPC} {
					t.Run(fmt.Sprintf("op=%d/%s", op, errnoName(errno)), func(t *testing.T) {
						runFailure(t, base, fc, op, errno, old, newer, other)
					})
				}
			}
			// A crash at each operation, and after the last (the change
			// returned success, so it must survive).
			for op := range ops + 1 {
				for _, lose := range []bool{false, true} {
					t.Run(fmt.Sprintf("op=%d/crash/lose-dir-ops=%v", op, lose), func(t *testing.T) {
						runCrash(t, base, fc, op, lose, old, newer, other)
					})
				}
			}
		})
	}
}

func errnoName(e syscall.Errno) string {
	if e == syscall.EIO {
		return "EIO"
	}
	return "ENOSPC"
}

func runFailure(t *testing.T, base string, fc faultCase, op int, errno syscall.Errno, old, newer, other content) {
	mem := checked(t)
	dir := copyDir(t, base)
	ffs := vfs.NewFaultFS(vfs.OS)
	s, c := open(t, dir, mem, ffs)
	ffs.ResetOps()
	ffs.FailAt(op, errno)
	err := fc.change(t, s)
	want := old
	switch {
	case err == nil:
		// Only the removal of obsolete files after the commit may fail
		// without failing the change.
		want = newer
	case !errors.Is(err, errno):
		t.Fatalf("change failed with %v, want %v", err, errno)
	case errno == syscall.ENOSPC:
		checkDiskFull(t, err, fc.table, dir)
	}
	if got := contentOf(t, c, fc.table); got != want {
		t.Fatalf("in memory after %v: %v, want %v", err, got, want)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	checkReopen(t, dir, fc.table, other, want)
	// A fault at every operation up to the commit fails the change; so
	// do faults after it (the old manifest is written back), except in
	// the removal of obsolete files.
	if err == nil && ffs.Ops() <= op {
		t.Fatalf("fault at op %d never reached (%d ops)", op, ffs.Ops())
	}
}

func runCrash(t *testing.T, base string, fc faultCase, op int, loseDirOps bool, old, newer, other content) {
	mem := checked(t)
	dir := copyDir(t, base)
	ffs := vfs.NewFaultFS(vfs.OS)
	ffs.LoseDirOps = loseDirOps
	s, _ := open(t, dir, mem, ffs)
	ffs.ResetOps()
	ffs.CrashAt(op)
	err := fc.change(t, s)
	if err != nil && !errors.Is(err, vfs.ErrCrashed) {
		t.Fatalf("change failed with %v, want the crash", err)
	}
	if err := ffs.Crash(); err != nil {
		t.Fatal(err)
	}
	got := checkReopen(t, dir, fc.table, other, old, newer)
	if err == nil && got != newer {
		t.Fatalf("the change returned success, then a crash lost it: %v, want %v", got, newer)
	}
}

// checkReopen opens dir afresh and checks that table holds one of want,
// that other is served and that nothing is reported; it returns what the
// table holds.
func checkReopen(t *testing.T, dir, table string, other content, want ...content) content {
	t.Helper()
	mem := checked(t)
	s, c := open(t, dir, mem, nil)
	defer s.Close()
	if p := s.Problems(); len(p) != 0 {
		t.Fatalf("reopen reports %v", p)
	}
	got := contentOf(t, c, table)
	ok := false
	for _, w := range want {
		ok = ok || got == w
	}
	if !ok {
		t.Fatalf("after reopen %q holds %v, want one of %v", table, got, want)
	}
	if g := contentOf(t, c, "other"); g != other {
		t.Fatalf("after reopen the untouched table holds %v, want %v", g, other)
	}
	return got
}

// checkDiskFull checks that a change's ENOSPC is one sentence naming the
// table, the data directory and the space free.
func checkDiskFull(t *testing.T, err error, table, dir string) {
	t.Helper()
	var full *DiskFullError
	if !errors.As(err, &full) || full.Table != table || full.Dir != dir {
		t.Fatalf("a full disk gave %#v, want a *DiskFullError of table %q in %s", err, table, dir)
	}
	msg := err.Error()
	want := fmt.Sprintf("store: table %q not %s: no space left in data directory %s (", table, full.Op, dir)
	if !strings.HasPrefix(msg, want) || !strings.HasSuffix(msg, "iB free)") || strings.Contains(msg, "device") {
		t.Fatalf("a full disk says %q, want one sentence: %q… MiB free)", msg, want)
	}
}
