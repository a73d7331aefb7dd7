package store

import (
	"fmt"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/store/vfs"
)

// chunkStream writes a change's chunk file while the cache encodes it:
// the cache hands each batch over as soon as it and those before it are
// encoded (cache.TableOptions.Encoded), a goroutine writes it and starts
// the kernel's writeback of it (startWriteback), so that when encoding
// ends the bytes are written and mostly on their way to the disk, and the
// sync before the commit waits for little. The file is t<id>-<seq>.chunks
// for the id and seq reserved when the change began; like any chunk file
// no manifest names, it is removed at Open if the change never commits.
type chunkStream struct {
	id   uint64
	file *chunkFile
	f    vfs.File

	mu     sync.Mutex
	wake   *sync.Cond
	queue  [][][]byte // batches handed over, not yet written
	given  int        // batches handed over
	closed bool

	// Owned by the writing goroutine until done is closed.
	offsets []int64
	size    int64
	err     error
	done    chan struct{}
}

// noStream turns streaming off (BenchmarkPut measures what it is worth):
// changes write their chunk file after encoding.
var noStream bool

// newStream creates chunk file t<id>-<seq>.chunks and starts writing to
// it; nil with noStream.
func (s *Store) newStream(id, seq uint64) (*chunkStream, error) {
	if noStream {
		return nil, nil
	}
	file := &chunkFile{fs: s.fs, path: s.path(chunkName(id, seq)), seq: seq}
	f, err := s.fs.Create(file.path)
	if err != nil {
		return nil, fmt.Errorf("writing %s: %w", chunkName(id, seq), err)
	}
	cs := &chunkStream{id: id, file: file, f: f, done: make(chan struct{})}
	cs.wake = sync.NewCond(&cs.mu)
	go cs.run()
	return cs, nil
}

// encoded is cs.add, or nil for no stream.
func (cs *chunkStream) encoded() func(int, [][]byte) {
	if cs == nil {
		return nil
	}
	return cs.add
}

// add queues batch i (cache.TableOptions.Encoded: called in order, with
// the encoder's lock held, so it only queues).
func (cs *chunkStream) add(i int, chunks [][]byte) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if i != cs.given {
		panic(fmt.Sprintf("store: batch %d handed over after %d", i, cs.given))
	}
	cs.given++
	cs.queue = append(cs.queue, chunks)
	cs.wake.Signal()
}

// run writes the header, then each batch as it comes: one write per
// batch (small chunks gathered), whatever the timing, so a test counting
// the file system's operations counts the same each run.
func (cs *chunkStream) run() {
	defer close(cs.done)
	buf := chunkBufs.Get().(*[]byte)
	defer chunkBufs.Put(buf)
	w := chunkWriter{f: cs.f, buf: buf}
	*buf = append(append((*buf)[:0], chunkMagic...), chunkFileVersion)
	w.flush()
	cs.size = int64(chunkHeader)
	for {
		cs.mu.Lock()
		for len(cs.queue) == 0 && !cs.closed {
			cs.wake.Wait()
		}
		batches := cs.queue
		cs.queue = nil
		closed := cs.closed
		cs.mu.Unlock()
		for _, chunks := range batches {
			start := cs.size
			cs.offsets = append(cs.offsets, start)
			for _, c := range chunks {
				w.write(c)
				cs.size += int64(len(c))
			}
			w.flush()
			if w.err == nil {
				startWriteback(cs.f, start, cs.size-start)
			}
		}
		if closed && len(batches) == 0 {
			cs.err = w.err
			return
		}
	}
}

// stop ends the writing goroutine once it has written what was queued.
func (cs *chunkStream) stop() {
	cs.mu.Lock()
	cs.closed = true
	cs.wake.Signal()
	cs.mu.Unlock()
	<-cs.done
}

// abort stops the stream and removes its file: the change failed, or
// writes its chunks another way (apply).
func (cs *chunkStream) abort(s *Store) {
	if cs == nil {
		return
	}
	cs.stop()
	cs.f.Close()
	s.removeQuietly(cs.file.path)
}

// finish waits for the stream to have written batches (the change's, as
// its Image holds them), checks it wrote exactly those, and gives them to
// ch as their sources, as writeBatches does.
func (cs *chunkStream) finish(s *Store, schema *arrow.Schema, batches []cache.BatchImage, ch *cache.Change) (*newFile, error) {
	cs.stop()
	w := &newFile{file: cs.file, f: cs.f}
	if cs.err != nil {
		w.discard(s)
		return nil, fmt.Errorf("writing %s: %w", chunkName(cs.id, cs.file.seq), cs.err)
	}
	if len(cs.offsets) != len(batches) {
		panic(fmt.Sprintf("store: %d batches streamed to %s, the change has %d", len(cs.offsets), cs.file.path, len(batches)))
	}
	if err := w.place(s, cs.size, cs.offsets, schema, batches, ch); err != nil {
		return nil, err
	}
	return w, nil
}
