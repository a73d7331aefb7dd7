package spill

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/codec"
)

// dirFiles lists the files in m's folder.
func dirFiles(t testing.TB, m *Manager) []string {
	t.Helper()
	entries, err := os.ReadDir(m.Dir())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func wantEmpty(t testing.TB, m *Manager, when string) {
	t.Helper()
	if names := dirFiles(t, m); len(names) != 0 {
		t.Fatalf("%s: files left: %v", when, names)
	}
	if st := m.Stats(); st.DiskBytes != 0 || st.Files != 0 {
		t.Fatalf("%s: stats say %d bytes in %d files", when, st.DiskBytes, st.Files)
	}
}

func TestCleanup(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	m := newTestManager(t, Config{Codec: codec.SettingLZ4}, mem)
	rec := stringRecord(mem, 100, 1, 3)
	defer rec.Release()

	// Success: the file is there until Remove.
	f := spillAll(t, m, rec, rec)
	if names := dirFiles(t, m); len(names) != 1 || !strings.HasPrefix(names[0], "test-") {
		t.Fatalf("files after Finish: %v", names)
	}
	if st := m.Stats(); st.DiskBytes != f.Bytes() || st.Files != 1 {
		t.Fatalf("stats %+v for a %d-byte file", st, f.Bytes())
	}
	if err := f.Remove(); err != nil {
		t.Fatal(err)
	}
	if err := f.Remove(); err != nil {
		t.Fatalf("second Remove: %v", err)
	}
	wantEmpty(t, m, "after Remove")
	if _, err := f.Open(mem); err == nil {
		t.Fatal("opened a removed file")
	}

	// Abort, after some batches and before any.
	for _, batches := range []int{0, 2} {
		w, err := m.NewFile("q/../aborted query") // sanitized into the name
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(filepath.Base(w.Path()), "/") || filepath.Dir(w.Path()) != m.Dir() {
			t.Fatalf("file %s outside %s", w.Path(), m.Dir())
		}
		for range batches {
			if err := w.Write(rec); err != nil {
				t.Fatal(err)
			}
		}
		w.Abort()
		w.Abort()
		wantEmpty(t, m, fmt.Sprintf("after Abort of %d batches", batches))
		if err := w.Write(rec); err == nil {
			t.Fatal("write after Abort")
		}
		if _, err := w.Finish(); err == nil {
			t.Fatal("Finish after Abort")
		}
	}

	// Error: a failed write removes the file.
	fs := &faultFS{}
	m2 := newTestManager(t, Config{Codec: codec.SettingLZ4, FS: fs}, mem)
	fs.setWriteFault(func(path string, call int64, n int) (int, error) {
		if call == 2 {
			return n / 2, syscall.EIO
		}
		return 0, nil
	})
	w, err := m2.NewFile("eio")
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	err = w.Write(rec)
	if !errors.Is(err, syscall.EIO) || !strings.Contains(err.Error(), w.Path()) || !strings.Contains(err.Error(), "batch 1") {
		t.Fatalf("EIO on batch 1: %v", err)
	}
	wantEmpty(t, m2, "after a failed write")
	if _, err := w.Finish(); !errors.Is(err, syscall.EIO) {
		t.Fatalf("Finish after a failed write: %v", err)
	}

	// Close removes what is left, finished or not, and the folder.
	f1 := spillAll(t, m, rec)
	w2, err := m.NewFile("open")
	if err != nil {
		t.Fatal(err)
	}
	if err := w2.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(m.Dir()); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("folder after Close: %v", err)
	}
	if err := w2.Write(rec); !errors.Is(err, ErrClosed) {
		t.Fatalf("write after Close: %v", err)
	}
	if _, err := m.NewFile("late"); !errors.Is(err, ErrClosed) {
		t.Fatalf("NewFile after Close: %v", err)
	}
	if _, err := f1.Open(mem); !errors.Is(err, ErrClosed) {
		t.Fatalf("Open after Close: %v", err)
	}
	if err := f1.Remove(); err != nil {
		t.Fatalf("Remove after Close: %v", err)
	}
	if err := m.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

func TestQuota(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rec := stringRecord(mem, 2000, 1, 3)
	defer rec.Release()
	// Measure one file, then allow one and a half of it.
	probe := newTestManager(t, Config{Codec: codec.SettingLZ4}, mem)
	one := spillAll(t, probe, rec, rec)
	quota := one.Bytes() * 3 / 2
	one.Remove()

	m := newTestManager(t, Config{Codec: codec.SettingLZ4, Quota: quota}, mem)
	kept := spillAll(t, m, rec, rec)
	defer kept.Remove()
	w, err := m.NewFile("over")
	if err != nil {
		t.Fatal(err)
	}
	var qerr error
	for i := 0; qerr == nil && i < 10; i++ {
		qerr = w.Write(rec)
	}
	var se *SpaceError
	if !errors.Is(qerr, ErrQuota) || !errors.Is(qerr, ErrResourceExhausted) || !errors.As(qerr, &se) {
		t.Fatalf("over quota: %v", qerr)
	}
	if se.Quota != quota || se.Need <= 0 || se.Used+se.Need <= quota || se.File != w.Path() {
		t.Fatalf("SpaceError %+v, quota %d", se, quota)
	}
	for _, part := range []string{fmt.Sprint(quota), fmt.Sprint(se.Need), "batch "} {
		if !strings.Contains(qerr.Error(), part) {
			t.Fatalf("%q does not say %q", qerr, part)
		}
	}
	// The path is for the server's log (se.File), not for its clients.
	if strings.Contains(qerr.Error(), m.Dir()) {
		t.Fatalf("%q names the spill folder", qerr)
	}
	if names := dirFiles(t, m); len(names) != 1 {
		t.Fatalf("files after the quota error: %v", names)
	}
	if st := m.Stats(); st.DiskBytes != kept.Bytes() || st.Files != 1 || st.PeakDiskBytes > quota {
		t.Fatalf("stats %+v, want %d bytes in one file, peak <= %d", st, kept.Bytes(), quota)
	}
	// Removing the kept file makes room again.
	kept.Remove()
	f := spillAll(t, m, rec, rec)
	f.Remove()
	wantEmpty(t, m, "at the end")
}

// TestNoSpace: ENOSPC from the disk, whether on the first batch, a later
// one or the end marker, fails with ErrNoSpace and leaves nothing.
func TestNoSpace(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rec := stringRecord(mem, 500, 1, 3)
	defer rec.Release()
	for failAt := int64(1); failAt <= 3; failAt++ {
		fs := &faultFS{}
		m := newTestManager(t, Config{Codec: codec.SettingZstd, FS: fs}, mem)
		fs.setWriteFault(func(path string, call int64, n int) (int, error) {
			if call == failAt {
				return n / 3, syscall.ENOSPC
			}
			return 0, nil
		})
		w, err := m.NewFile("full")
		if err != nil {
			t.Fatal(err)
		}
		var werr error
		for i := 0; werr == nil && i < 2; i++ {
			werr = w.Write(rec)
		}
		if werr == nil {
			_, werr = w.Finish()
		}
		if !errors.Is(werr, ErrNoSpace) || !errors.Is(werr, ErrResourceExhausted) || !errors.Is(werr, syscall.ENOSPC) {
			t.Fatalf("ENOSPC on write %d: %v", failAt, werr)
		}
		var se *SpaceError
		if !errors.As(werr, &se) || se.File != w.Path() || strings.Contains(werr.Error(), w.Path()) {
			t.Fatalf("%q: the file is for the log (SpaceError.File), not the message", werr)
		}
		wantEmpty(t, m, fmt.Sprintf("ENOSPC on write %d", failAt))
	}
}

// TestStaleFolders: NewManager removes the folders of dead processes and
// leaves its own, live processes' and other names alone.
func TestStaleFolders(t *testing.T) {
	parent := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	dead := cmd.Process.Pid // exited and reaped: gone, unless reused at once
	if processAlive(dead) {
		t.Skipf("pid %d was reused", dead)
	}
	mk := func(name string) string {
		dir := filepath.Join(parent, name)
		if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "sub", "x.arrows"), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	stale := mk(fmt.Sprintf("quiver-spill-%d-abc", dead))
	keep := []string{
		mk(fmt.Sprintf("quiver-spill-%d-abc", os.Getpid())),  // this process
		mk(fmt.Sprintf("quiver-spill-%d-abc", os.Getppid())), // a live one
		mk("quiver-spill-notapid-abc"),
		mk(fmt.Sprintf("other-%d-abc", dead)),
	}
	m, err := NewManager(Config{Dir: parent})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("stale folder %s: %v", stale, err)
	}
	for _, dir := range keep {
		if _, err := os.Stat(dir); err != nil {
			t.Fatalf("folder %s removed: %v", dir, err)
		}
	}
	if st := m.Stats(); st.StaleRemoved != 1 {
		t.Fatalf("StaleRemoved %d", st.StaleRemoved)
	}
	if !strings.HasPrefix(filepath.Base(m.Dir()), fmt.Sprintf("quiver-spill-%d-", os.Getpid())) {
		t.Fatalf("folder %s", m.Dir())
	}
}

func TestFolderPID(t *testing.T) {
	for name, want := range map[string]int{
		"quiver-spill-123-abc": 123, "quiver-spill-1-": 1,
		"quiver-spill--abc": 0, "quiver-spill-12a-x": 0, "quiver-spill-123": 0,
		"quiver-spill-0-x": 0, "quiver-spill-99999999999-x": 0, "spill-123-x": 0,
	} {
		got, ok := folderPID(name)
		if ok != (want > 0) || got != want && ok {
			t.Errorf("folderPID(%q) = %d, %v; want %d", name, got, ok, want)
		}
	}
}

// TestConcurrentWriters writes and reads files of one Manager from many
// goroutines (run with -race).
func TestConcurrentWriters(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	m := newTestManager(t, Config{Codec: codec.SettingLZ4, Quota: 1 << 30}, mem)
	var recs []arrow.RecordBatch
	for i := range 4 {
		recs = append(recs, stringRecord(mem, 300, uint64(i), 3))
	}
	defer releaseRecords(recs)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Go(func() {
			for round := range 3 {
				w, err := m.NewFile(fmt.Sprintf("g%d", g))
				if err != nil {
					errs <- err
					return
				}
				for _, r := range recs {
					if err := w.Write(r); err != nil {
						errs <- err
						return
					}
				}
				if round == 1 {
					w.Abort()
					continue
				}
				f, err := w.Finish()
				if err != nil {
					errs <- err
					return
				}
				if err := readErr(f, mem); err != nil {
					errs <- err
				}
				if err := f.Remove(); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	wantEmpty(t, m, "after every goroutine")
	st := m.Stats()
	if st.FilesCreated != 24 || st.BatchesWritten != 24*4 || st.BatchesRead != 16*4 || st.RowsRead != 16*1200 {
		t.Fatalf("stats %+v", st)
	}
	if st.BytesRead == 0 || st.BytesWritten < st.BytesRead || st.WriteTime <= 0 || st.ReadTime <= 0 {
		t.Fatalf("stats %+v", st)
	}
}

func TestConfigValidate(t *testing.T) {
	for _, c := range []Config{{Quota: -1}, {Concurrency: -1}, {Codec: codec.Setting{Kind: 99}}} {
		if err := c.Validate(); err == nil {
			t.Errorf("%+v validated", c)
		}
		if _, err := NewManager(c); err == nil {
			t.Errorf("NewManager(%+v) succeeded", c)
		}
	}
	if err := (Config{}).Validate(); err != nil {
		t.Fatal(err)
	}
}
