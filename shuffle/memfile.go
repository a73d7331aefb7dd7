package shuffle

import (
	"io"
	"sort"
)

// Budget is the memory a map output held in memory counts against: the
// query's tracker (extsort.Budget, and the engine's adapter of its
// tracker to it, have these methods). TryGrow reserves n bytes if they
// fit and reports whether it did; Shrink gives n back. Safe for
// concurrent use: every map task of a shuffle shares one.
type Budget interface {
	TryGrow(n int64) bool
	Shrink(n int64)
}

// memFile is a map output held in memory: the bytes the file would hold,
// in the chunks they were written in (one per run of blocks, then the
// index), each exactly as long as its bytes, so that the budget counts
// what is held and nothing is copied to grow one buffer.
type memFile struct {
	chunks [][]byte
	starts []int64 // offset of each chunk
	size   int64
}

func (f *memFile) append(b []byte) {
	f.chunks = append(f.chunks, b)
	f.starts = append(f.starts, f.size)
	f.size += int64(len(b))
}

// slice returns the n bytes at off: the chunk's own bytes when they lie
// in one chunk (a block always does: it is in one run), else a copy.
func (f *memFile) slice(off, n int64) ([]byte, error) {
	if off < 0 || n < 0 || off > f.size || n > f.size-off {
		return nil, io.EOF
	}
	i := sort.Search(len(f.starts), func(i int) bool { return f.starts[i] > off }) - 1
	if c := f.chunks[i]; off-f.starts[i]+n <= int64(len(c)) {
		at := off - f.starts[i]
		return c[at : at+n : at+n], nil
	}
	b := make([]byte, n)
	_, err := f.ReadAt(b, off)
	return b, err
}

// ReadAt reads as a file of the bytes would (io.ReaderAt).
func (f *memFile) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 || off >= f.size {
		if len(p) == 0 && off == f.size {
			return 0, nil
		}
		return 0, io.EOF
	}
	i := sort.Search(len(f.starts), func(i int) bool { return f.starts[i] > off }) - 1
	n := 0
	for at := off - f.starts[i]; n < len(p) && i < len(f.chunks); i, at = i+1, 0 {
		n += copy(p[n:], f.chunks[i][at:])
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// Close does nothing: the bytes go when the output is removed.
func (f *memFile) Close() error { return nil }
