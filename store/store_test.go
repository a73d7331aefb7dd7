package store

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/store/vfs"
)

// TestReopen: tables put, appended to, replaced and dropped read back
// exactly after a reopen into a new cache.
func TestReopen(t *testing.T) {
	mem := checked(t)
	dir := t.TempDir()
	s, c := open(t, dir, mem, nil)
	put(t, s, "a", batches(mem, 1, 3, 500))
	appendTo(t, s, "a", batches(mem, 2, 2, 300))
	put(t, s, "b", batches(mem, 3, 1, 10))
	put(t, s, "b", batches(mem, 4, 2, 20)) // replace
	put(t, s, "gone", batches(mem, 5, 1, 10))
	if ok, err := s.Drop("gone"); !ok || err != nil {
		t.Fatalf("Drop = %v, %v", ok, err)
	}
	put(t, s, "empty", batches(mem, 6, 0, 0))
	want := map[string]content{}
	for _, name := range []string{"a", "b", "gone", "empty"} {
		want[name] = contentOf(t, c, name)
	}
	if want["a"].rows != 2100 || want["b"].rows != 40 || want["gone"] != absent || want["empty"].rows != 0 {
		t.Fatalf("before reopen: %v", want)
	}
	wantInfo, _ := c.Info("a")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s2, c2 := open(t, dir, mem, nil)
	if p := s2.Problems(); len(p) != 0 {
		t.Fatalf("Problems: %v", p)
	}
	if got := s2.Tables(); !slices.Equal(got, []string{"a", "b", "empty"}) {
		t.Fatalf("Tables = %v", got)
	}
	for name, w := range want {
		if got := contentOf(t, c2, name); got != w {
			t.Errorf("table %q after reopen: %v, want %v", name, got, w)
		}
	}
	info, _ := c2.Info("a")
	if info.Compressed != wantInfo.Compressed || info.Batches != 5 || info.Columns[1].Encoding != wantInfo.Columns[1].Encoding ||
		info.Columns[3].Dictionary != wantInfo.Columns[3].Dictionary || !info.Schema.Equal(wantInfo.Schema) {
		t.Errorf("info after reopen %+v, want %+v", info, wantInfo)
	}
	// The restored table takes appends like any other, and they last.
	appendTo(t, s2, "a", batches(mem, 7, 1, 100))
	if got := contentOf(t, c2, "a").rows; got != 2200 {
		t.Fatalf("rows after append = %d", got)
	}
	want["a"] = contentOf(t, c2, "a")
	s2.Close()
	_, c3 := open(t, dir, mem, nil)
	if got := contentOf(t, c3, "a"); got != want["a"] {
		t.Fatalf("after second reopen %v, want %v", got, want["a"])
	}
	// Only the live files remain: LOCK, 3 manifests, a's 3 chunk files, b's 1.
	if got := files(t, dir); len(got) != 8 {
		t.Errorf("files %v, want 8", got)
	}
}

// TestOpenIsLazy: Open reads no chunk: a chunk damaged after the table
// was written does not stop Open, count(*) answers from the manifest,
// and the first scan that reads the chunk names table, file, batch and
// column.
func TestOpenIsLazy(t *testing.T) {
	mem := checked(t)
	dir := t.TempDir()
	s, _ := open(t, dir, mem, nil)
	put(t, s, "a", batches(mem, 1, 2, 500))
	s.Close()
	path := filepath.Join(dir, chunkName(1, 1))
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)-10] ^= 0x40 // inside the last chunk of batch 1
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	s2, c2 := open(t, dir, mem, nil)
	if p := s2.Problems(); len(p) != 0 {
		t.Fatalf("Problems: %v", p)
	}
	// Verify reads what Open did not.
	if err := s2.Verify("a"); !errors.Is(err, cache.ErrCorrupt) || !strings.Contains(err.Error(), "batch 1") || !strings.Contains(err.Error(), chunkName(1, 1)) {
		t.Fatalf("Verify: %v", err)
	}
	sc, err := c2.Scan(t.Context(), "a", cache.ScanOptions{Columns: []int{}})
	if err != nil {
		t.Fatal(err)
	}
	var rows int64
	for sc.Next() {
		rows += sc.RecordBatch().NumRows()
	}
	sc.Release()
	if rows != 1000 || sc.Err() != nil {
		t.Fatalf("count(*) = %d, %v", rows, sc.Err())
	}
	sc, err = c2.Scan(t.Context(), "a", cache.ScanOptions{Concurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	for sc.Next() {
	}
	sc.Release()
	err = sc.Err()
	if !errors.Is(err, cache.ErrCorrupt) {
		t.Fatalf("scan error %v, want ErrCorrupt", err)
	}
	for _, want := range []string{`"a"`, chunkName(1, 1), "batch 1", `column "kind"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %s", err, want)
		}
	}
}

// TestSecondOpenRefused: a directory is open once; the error names the
// directory and the holder's pid, and Close lets the next one in.
func TestSecondOpenRefused(t *testing.T) {
	mem := checked(t)
	dir := t.TempDir()
	s, _ := open(t, dir, mem, nil)
	_, err := Open(dir, newCache(t, mem), Options{})
	if !errors.Is(err, ErrLocked) {
		t.Fatalf("second Open: %v, want ErrLocked", err)
	}
	for _, want := range []string{dir, strconv.Itoa(os.Getpid())} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %s", err, want)
		}
	}
	s.Close()
	s2, err := Open(dir, newCache(t, mem), Options{})
	if err != nil {
		t.Fatalf("Open after Close: %v", err)
	}
	s2.Close()
}

// TestOpenRemovesUnfinished: temp files and chunk files no manifest names
// (a crash before a change's commit point) are removed; files not the
// store's are left.
func TestOpenRemovesUnfinished(t *testing.T) {
	mem := checked(t)
	dir := t.TempDir()
	s, _ := open(t, dir, mem, nil)
	put(t, s, "a", batches(mem, 1, 1, 10))
	s.Close()
	for _, name := range []string{"t1.manifest.tmp", "t1-7.chunks", "t9-1.chunks", "t9.manifest.tmp", "notes.txt"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s2, c2 := open(t, dir, mem, nil)
	if got := files(t, dir); !slices.Equal(got, []string{"LOCK", "notes.txt", "t1-1.chunks", "t1.manifest"}) {
		t.Errorf("files after Open: %v", got)
	}
	if got := contentOf(t, c2, "a").rows; got != 10 {
		t.Errorf("rows %d", got)
	}
	// Ids are not reused: t9 was seen.
	put(t, s2, "b", batches(mem, 2, 1, 10))
	if _, err := os.Stat(filepath.Join(dir, "t10.manifest")); err != nil {
		t.Errorf("new table's manifest: %v", err)
	}
}

// TestDamagedTablesNamed: a torn chunk file and a damaged manifest are
// named (table or manifest, file); the other tables are served and the
// damaged tables' files are kept.
func TestDamagedTablesNamed(t *testing.T) {
	mem := checked(t)
	dir := t.TempDir()
	s, c := open(t, dir, mem, nil)
	put(t, s, "torn", batches(mem, 1, 2, 100)) // t1
	put(t, s, "flip", batches(mem, 2, 2, 100)) // t2
	put(t, s, "good", batches(mem, 3, 2, 100)) // t3
	good := contentOf(t, c, "good")
	s.Close()
	chunks := filepath.Join(dir, chunkName(1, 1))
	st, _ := os.Stat(chunks)
	if err := os.Truncate(chunks, st.Size()-3); err != nil {
		t.Fatal(err)
	}
	man := filepath.Join(dir, manifestName(2))
	b, _ := os.ReadFile(man)
	b[len(b)/2] ^= 1
	os.WriteFile(man, b, 0o644)

	s2, c2 := open(t, dir, mem, nil)
	p := s2.Problems()
	if len(p) != 2 {
		t.Fatalf("Problems %v, want 2", p)
	}
	for i, want := range [][]string{{`"torn"`, chunkName(1, 1), "torn or damaged"}, {manifestName(2), "checksum"}} {
		var te *TableError
		if !errors.As(p[i], &te) || !errors.Is(p[i], ErrCorrupt) {
			t.Errorf("problem %v is not a corrupt *TableError", p[i])
		}
		for _, w := range want {
			if !strings.Contains(p[i].Error(), w) {
				t.Errorf("problem %q does not name %s", p[i], w)
			}
		}
	}
	if got := contentOf(t, c2, "good"); got != good {
		t.Errorf("good table %v, want %v", got, good)
	}
	if got := s2.Tables(); !slices.Equal(got, []string{"good"}) {
		t.Errorf("Tables %v", got)
	}
	if got := files(t, dir); len(got) != 7 {
		t.Errorf("files %v: the damaged tables' files must stay", got)
	}
}

// TestAppendToMemoryOnlyTable: a table put into the cache directly (a
// server's --demo tables) cannot be appended to through the store (its
// manifest would lack the batches in memory): the error says so, and a
// Put through the store stores it.
func TestAppendToMemoryOnlyTable(t *testing.T) {
	mem := checked(t)
	dir := t.TempDir()
	s, c := open(t, dir, mem, nil)
	r := batches(mem, 1, 1, 10)
	if _, err := c.Put(t.Context(), "demo", r, cache.TableOptions{}); err != nil {
		t.Fatal(err)
	}
	r.Release()
	r = batches(mem, 2, 1, 10)
	_, err := s.Append(t.Context(), "demo", r, cache.TableOptions{})
	r.Release()
	if !errors.Is(err, ErrNotStored) || !strings.Contains(err.Error(), "memory only") {
		t.Fatalf("append to a memory-only table: %v", err)
	}
	if got := contentOf(t, c, "demo").rows; got != 10 {
		t.Fatalf("rows %d", got)
	}
	r = batches(mem, 3, 1, 10)
	_, err = s.Append(t.Context(), "nothing", r, cache.TableOptions{})
	r.Release()
	if !errors.Is(err, cache.ErrNotFound) {
		t.Fatalf("append to no table: %v", err)
	}
	put(t, s, "demo", batches(mem, 4, 1, 10))
	// Replaced in the cache behind the store's back: appending through
	// the store would mix two tables.
	r = batches(mem, 6, 1, 10)
	if _, err := c.Put(t.Context(), "demo", r, cache.TableOptions{}); err != nil {
		t.Fatal(err)
	}
	r.Release()
	r = batches(mem, 7, 1, 10)
	_, err = s.Append(t.Context(), "demo", r, cache.TableOptions{})
	r.Release()
	if !errors.Is(err, ErrNotStored) || !strings.Contains(err.Error(), "outside the store") {
		t.Fatalf("append to a table replaced in memory: %v", err)
	}
	put(t, s, "demo", batches(mem, 4, 1, 10))
	appendTo(t, s, "demo", batches(mem, 5, 1, 10))
	want := contentOf(t, c, "demo")
	s.Close()
	_, c2 := open(t, dir, mem, nil)
	if got := contentOf(t, c2, "demo"); got != want {
		t.Fatalf("after reopen %v, want %v", got, want)
	}
}

// TestReadOnly: a read-only Open reads a directory another Store holds,
// removes nothing, and refuses changes.
func TestReadOnly(t *testing.T) {
	mem := checked(t)
	dir := t.TempDir()
	s, c := open(t, dir, mem, nil)
	put(t, s, "a", batches(mem, 1, 2, 100))
	want := contentOf(t, c, "a")
	if err := os.WriteFile(filepath.Join(dir, "t1-9.chunks"), []byte("in progress"), 0o644); err != nil {
		t.Fatal(err)
	}
	ro, err := Open(dir, newCache(t, mem), Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if got := contentOf(t, ro.Cache(), "a"); got != want {
		t.Fatalf("read-only: %v, want %v", got, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "t1-9.chunks")); err != nil {
		t.Fatalf("read-only Open removed a file: %v", err)
	}
	if _, err := ro.Drop("a"); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("Drop on a read-only store: %v", err)
	}
}

// TestOpenOverBudget: a directory holding more than the cache's budget
// opens with every table served; scans read them back exactly, the
// budget holding what was read last.
func TestOpenOverBudget(t *testing.T) {
	mem := checked(t)
	dir := t.TempDir()
	s, c := open(t, dir, mem, nil)
	put(t, s, "a", batches(mem, 1, 4, 2000))
	put(t, s, "b", batches(mem, 2, 4, 2000))
	want := []content{contentOf(t, c, "a"), contentOf(t, c, "b")}
	ia, _ := c.Info("a")
	s.Close()
	small, err := cache.New(cache.Options{Alloc: mem, Budget: ia.Compressed / 2})
	if err != nil {
		t.Fatal(err)
	}
	s2, err := Open(dir, small, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if p := s2.Problems(); len(p) != 0 {
		t.Fatalf("Problems under a %d-byte budget: %v", small.Budget(), p)
	}
	for i, name := range []string{"a", "b", "a"} {
		if got := contentOf(t, small, name); got != want[i%2] {
			t.Fatalf("table %q: %v, want %v", name, got, want[i%2])
		}
		if small.Used() > small.Budget() {
			t.Fatalf("used %d of %d", small.Used(), small.Budget())
		}
	}
}

// TestWrittenTablesGiveWay: tables written through the store give way
// in the budget as restored ones do, so two tables each two thirds of the
// budget are both put and both read back exactly, the budget never
// passed; and the store still writes what the cache dropped.
func TestWrittenTablesGiveWay(t *testing.T) {
	mem := checked(t)
	probe, _ := open(t, t.TempDir(), mem, nil)
	put(t, probe, "probe", batches(mem, 1, 4, 2000))
	size := func() int64 { i, _ := probe.Cache().Info("probe"); return i.Compressed }()
	probe.Close()

	dir := t.TempDir()
	c, err := cache.New(cache.Options{Alloc: mem, Budget: size * 3 / 2})
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(dir, c, Options{})
	if err != nil {
		t.Fatal(err)
	}
	put(t, s, "a", batches(mem, 1, 4, 2000))
	put(t, s, "b", batches(mem, 2, 4, 2000)) // needs a's room
	appendTo(t, s, "a", batches(mem, 3, 1, 100))
	var want []content
	for _, name := range []string{"a", "b", "a"} {
		want = append(want, contentOf(t, c, name))
		if c.Used() > c.Budget() {
			t.Fatalf("used %d of %d", c.Used(), c.Budget())
		}
	}
	if want[0] != want[2] || want[0].rows != 8100 {
		t.Fatalf("a read twice: %v, %v", want[0], want[2])
	}
	s.Close()
	_, c2 := open(t, dir, mem, nil)
	for i, name := range []string{"a", "b"} {
		if got := contentOf(t, c2, name); got != want[i] {
			t.Fatalf("%q after reopen: %v, want %v", name, got, want[i])
		}
	}
}

// TestOpenCreatesDurably: Open creates a missing data directory and syncs
// its parent (the new directory's name must survive a crash too); an
// existing one costs no write.
func TestOpenCreatesDurably(t *testing.T) {
	mem := checked(t)
	dir := filepath.Join(t.TempDir(), "new", "data")
	ffs := vfs.NewFaultFS(vfs.OS)
	s, _ := open(t, dir, mem, ffs)
	s.Close()
	if n := ffs.Ops(); n != 1 {
		t.Fatalf("%d file operations creating the directory, want 1 (the parent's sync)", n)
	}
	ffs.ResetOps()
	s, _ = open(t, dir, mem, ffs)
	s.Close()
	if n := ffs.Ops(); n != 0 {
		t.Fatalf("%d file operations opening an existing empty directory", n)
	}
}

// TestReadErrors: an I/O error reading a manifest at Open is reported
// naming it while the other tables are served; one reading a chunk file
// fails that scan, naming the file, and a later scan reads it.
func TestReadErrors(t *testing.T) {
	mem := checked(t)
	dir := t.TempDir()
	s, c := open(t, dir, mem, nil)
	put(t, s, "a", batches(mem, 1, 2, 100)) // t1
	put(t, s, "b", batches(mem, 2, 2, 100)) // t2
	want := contentOf(t, c, "b")
	s.Close()
	ffs := vfs.NewFaultFS(vfs.OS)
	var failing atomic.Value
	failing.Store(manifestName(1))
	ffs.ReadErr = func(path string) error {
		if filepath.Base(path) == failing.Load().(string) {
			return syscall.EIO
		}
		return nil
	}
	s2, c2 := open(t, dir, mem, ffs)
	p := s2.Problems()
	if len(p) != 1 || !errors.Is(p[0], syscall.EIO) || !strings.Contains(p[0].Error(), manifestName(1)) {
		t.Fatalf("Problems %v, want t1's manifest's EIO", p)
	}
	failing.Store(chunkName(2, 1))
	sc, err := c2.Scan(t.Context(), "b", cache.ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for sc.Next() {
	}
	sc.Release()
	if err := sc.Err(); !errors.Is(err, syscall.EIO) || !strings.Contains(err.Error(), chunkName(2, 1)) {
		t.Fatalf("scan over a failing read: %v", err)
	}
	failing.Store("")
	if got := contentOf(t, c2, "b"); got != want {
		t.Fatalf("after the read error passed: %v, want %v", got, want)
	}
}
