package store

import (
	"fmt"
	"io"
	"runtime"
	"sync"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/store/vfs"
)

// Chunk file format (doc.go draws it).
const (
	chunkMagic       = "QVCK"
	chunkFileVersion = 1
	chunkHeader      = len(chunkMagic) + 1
)

// writeChunkFile writes the batches' chunks to path and returns the file,
// open and not yet synced (the caller syncs it while it writes the
// manifest: syncChunkFile), each batch's offset and the file's length.
// On error the file is closed.
func writeChunkFile(fs vfs.FS, path string, batches []cache.BatchImage) (f vfs.File, offsets []int64, size int64, err error) {
	f, err = fs.Create(path)
	if err != nil {
		return nil, nil, 0, err
	}
	w := chunkWriter{f: f, buf: chunkBufs.Get().(*[]byte)}
	defer chunkBufs.Put(w.buf)
	*w.buf = append((*w.buf)[:0], chunkMagic...)
	*w.buf = append(*w.buf, chunkFileVersion)
	size = int64(chunkHeader)
	offsets = make([]int64, len(batches))
	for i, b := range batches {
		offsets[i] = size
		for _, c := range b.Chunks {
			w.write(c)
			size += int64(len(c))
		}
	}
	if w.flush(); w.err != nil {
		f.Close()
		return nil, nil, 0, w.err
	}
	return f, offsets, size, nil
}

// chunkBufs are writeChunkFile's scratch buffers: small chunks are
// gathered into one write, large ones written from where they are (a
// 1 MiB bufio.Writer per change copied every byte and was 16% of a
// write-through Put's allocations).
var chunkBufs = sync.Pool{New: func() any { b := make([]byte, 0, 256<<10); return &b }}

// chunkWriter writes chunks to f, gathering small ones; the first error
// sticks.
type chunkWriter struct {
	f   vfs.File
	buf *[]byte
	err error
}

func (w *chunkWriter) write(c []byte) {
	if len(*w.buf)+len(c) <= cap(*w.buf) {
		*w.buf = append(*w.buf, c...)
		return
	}
	w.flush()
	if len(c) >= cap(*w.buf)/2 {
		if w.err == nil {
			_, w.err = w.f.Write(c)
		}
		return
	}
	*w.buf = append(*w.buf, c...)
}

func (w *chunkWriter) flush() {
	if w.err == nil && len(*w.buf) > 0 {
		_, w.err = w.f.Write(*w.buf)
	}
	*w.buf = (*w.buf)[:0]
}

// syncChunkFile syncs and closes a file writeChunkFile wrote.
func syncChunkFile(f vfs.File) error {
	err := f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// checkChunkFile checks that path holds size bytes and starts with the
// chunk file header: a torn or foreign file is named at open, before any
// scan reaches it.
func checkChunkFile(fs vfs.FS, path string, size int64) error {
	f, err := fs.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if st.Size() != size {
		return corrupt("chunk file %s has %d bytes, its manifest records %d (torn or damaged)", path, st.Size(), size)
	}
	var h [chunkHeader]byte
	if _, err := f.ReadAt(h[:], 0); err != nil {
		return fmt.Errorf("chunk file %s: reading its header: %w", path, err)
	}
	if string(h[:4]) != chunkMagic || h[4] != chunkFileVersion {
		return corrupt("chunk file %s starts with %q, want %q and version %d", path, h[:], chunkMagic, chunkFileVersion)
	}
	return nil
}

// chunkFile is one chunk file a restored table reads. It is opened on
// the first batch read, or just before the store removes the file (a
// replace or drop), so that scans of older snapshots still read it after
// it is gone from the directory. It is never closed explicitly: the open
// file closes when the last snapshot referring to it is collected.
type chunkFile struct {
	fs   vfs.FS
	path string
	seq  uint64

	mu sync.Mutex
	f  vfs.File
}

// pathOrEmpty is the file's path; "" for none.
func (c *chunkFile) pathOrEmpty() string {
	if c == nil {
		return ""
	}
	return c.path
}

// open returns the open file, opening it once.
func (c *chunkFile) open() (vfs.File, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.f == nil {
		f, err := c.fs.Open(c.path)
		if err != nil {
			return nil, err
		}
		c.f = f
		// An os.File closes itself when collected; other File
		// implementations get the same.
		runtime.AddCleanup(c, func(f vfs.File) { f.Close() }, f)
	}
	return c.f, nil
}

// batchLoader returns the function that reads one batch's chunks on its
// first scan: one read into one allocation (as the cache holds a batch),
// each chunk's checksum checked so that a bad one names its file.
func batchLoader(file *chunkFile, offset int64, sizes []int64, columns []string) func() ([][]byte, error) {
	return func() ([][]byte, error) {
		var total int64
		for _, n := range sizes {
			total += n
		}
		f, err := file.open()
		if err != nil {
			return nil, err
		}
		buf := make([]byte, total)
		if _, err := f.ReadAt(buf, offset); err != nil {
			if err == io.EOF {
				err = fmt.Errorf("%w: file ends before %d bytes at offset %d", cache.ErrCorrupt, total, offset)
			}
			return nil, fmt.Errorf("reading %d bytes at offset %d of %s: %w", total, offset, file.path, err)
		}
		chunks := make([][]byte, len(sizes))
		at := int64(0)
		for i, n := range sizes {
			chunks[i] = buf[at : at+n : at+n]
			if err := cache.CheckChunk(chunks[i]); err != nil {
				return nil, fmt.Errorf("column %q: chunk at offset %d of %s: %w", columns[i], offset+at, file.path, err)
			}
			at += n
		}
		return chunks, nil
	}
}
