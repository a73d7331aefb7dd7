package vfs

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"testing"
)

func write(t *testing.T, fs FS, path, text string, sync bool) error {
	t.Helper()
	f, err := fs.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := f.Write([]byte(text)); err != nil {
		return err
	}
	if sync {
		return f.Sync()
	}
	return nil
}

func syncDir(t *testing.T, fs FS, dir string) {
	t.Helper()
	d, err := fs.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return "<none>"
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestFaultFSCountsAndFails: create, write, sync, rename and remove are
// counted from 0; FailAt fails one, once, with the errno in a PathError,
// and does not do it.
func TestFaultFSCountsAndFails(t *testing.T) {
	dir := t.TempDir()
	fs := NewFaultFS(OS)
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	fs.FailAt(3, syscall.ENOSPC) // create 0, write 1, sync 2, rename 3
	if err := write(t, fs, a, "x", true); err != nil {
		t.Fatal(err)
	}
	err := fs.Rename(a, b)
	var pe *os.PathError
	if !errors.Is(err, syscall.ENOSPC) || !errors.As(err, &pe) || pe.Op != "rename" {
		t.Fatalf("rename: %v", err)
	}
	if read(t, a) != "x" || read(t, b) != "<none>" {
		t.Fatal("the failed rename was done")
	}
	if err := fs.Rename(a, b); err != nil { // once only
		t.Fatal(err)
	}
	if err := fs.Remove(b); err != nil {
		t.Fatal(err)
	}
	if n := fs.Ops(); n != 6 {
		t.Fatalf("%d ops, want 6", n)
	}
}

// TestFaultFSCrash: from the crash point every operation fails; Crash
// cuts files to their synced bytes, closes open files and locks, and with
// LoseDirOps undoes the directory operations not synced.
func TestFaultFSCrash(t *testing.T) {
	for _, lose := range []bool{false, true} {
		dir := t.TempDir()
		fs := NewFaultFS(OS)
		fs.LoseDirOps = lose
		synced, unsynced, renamed := filepath.Join(dir, "synced"), filepath.Join(dir, "unsynced"), filepath.Join(dir, "renamed")
		old := filepath.Join(dir, "old")
		if err := write(t, fs, old, "old", true); err != nil {
			t.Fatal(err)
		}
		if err := write(t, fs, synced, "durable", true); err != nil {
			t.Fatal(err)
		}
		syncDir(t, fs, dir) // old and synced are durable, names and bytes
		lock, err := fs.Lock(filepath.Join(dir, "LOCK"))
		if err != nil {
			t.Fatal(err)
		}
		_ = lock
		if err := write(t, fs, unsynced, "lost", false); err != nil {
			t.Fatal(err)
		}
		if err := write(t, fs, renamed, "new", true); err != nil {
			t.Fatal(err)
		}
		if err := fs.Rename(renamed, old); err != nil { // not synced
			t.Fatal(err)
		}
		fs.CrashAt(fs.Ops())
		if err := fs.Remove(synced); !errors.Is(err, ErrCrashed) {
			t.Fatalf("after the crash point: %v", err)
		}
		if err := fs.Crash(); err != nil {
			t.Fatal(err)
		}
		got := []string{read(t, synced), read(t, unsynced), read(t, old)}
		want := []string{"durable", "", "new"}
		if lose {
			want = []string{"durable", "<none>", "old"}
		}
		if !slices.Equal(got, want) {
			t.Errorf("lose=%v: after the crash %q, want %q", lose, got, want)
		}
		// The lock went with the process.
		l, err := OS.Lock(filepath.Join(dir, "LOCK"))
		if err != nil {
			t.Fatalf("lock after the crash: %v", err)
		}
		l.Close()
	}
}

// TestLockRefusesSecondHolder: a held lock refuses another, naming the pid.
func TestLockRefusesSecondHolder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "LOCK")
	l, err := OS.Lock(path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	_, err = OS.Lock(path)
	var le *LockedError
	if !errors.As(err, &le) || le.PID != strconv.Itoa(os.Getpid()) {
		t.Fatalf("second lock: %v", err)
	}
}
