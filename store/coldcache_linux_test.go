package store

import (
	"os"
	"path/filepath"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// dropPageCache asks the kernel to drop the cached pages of every file
// in dir (posix_fadvise DONTNEED on each; the files are clean, so the
// pages go), so the next reads come from the disk: a cold cache for
// these files alone, without root and without touching other processes'
// pages. It reports false where the kernel refuses.
func dropPageCache(tb testing.TB, dir string) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		tb.Fatal(err)
	}
	for _, e := range entries {
		f, err := os.Open(filepath.Join(dir, e.Name()))
		if err != nil {
			tb.Fatal(err)
		}
		err = unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED)
		f.Close()
		if err != nil {
			return false
		}
	}
	return true
}

// residentPages counts the pages of path in the page cache (mincore).
func residentPages(tb testing.TB, path string) (resident, total int) {
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	if st.Size() == 0 {
		return 0, 0
	}
	m, err := unix.Mmap(int(f.Fd()), 0, int(st.Size()), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		tb.Fatal(err)
	}
	defer unix.Munmap(m)
	page := os.Getpagesize()
	vec := make([]byte, (len(m)+page-1)/page)
	if _, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&m[0])), uintptr(len(m)), uintptr(unsafe.Pointer(&vec[0]))); errno != 0 {
		tb.Fatal(errno)
	}
	for _, v := range vec {
		resident += int(v & 1)
	}
	return resident, len(vec)
}

// TestDropPageCache: after dropPageCache a chunk file has (almost) no
// page in the cache, so BenchmarkScanFromDisk's cold runs read the disk.
func TestDropPageCache(t *testing.T) {
	mem := checked(t)
	dir := t.TempDir()
	s, _ := open(t, dir, mem, nil)
	put(t, s, "t", batches(mem, 1, 8, 4000))
	s.Close()
	path := filepath.Join(dir, chunkName(1, 1))
	if r, n := residentPages(t, path); r < n/2 {
		t.Skipf("the file just written has %d of %d pages cached: nothing to drop", r, n)
	}
	if !dropPageCache(t, dir) {
		t.Skip("posix_fadvise refused")
	}
	if r, n := residentPages(t, path); r > n/10 {
		t.Fatalf("%d of %d pages still cached after DONTNEED", r, n)
	}
}
