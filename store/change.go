package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/store/vfs"
)

// ErrClosed is the error of a change on a closed store.
var ErrClosed = errors.New("store: closed")

// ErrNotStored matches the error of an Append to a table the cache holds
// but the store does not (put into the cache directly, or replaced there
// behind the store's back): its manifest would not describe the table.
var ErrNotStored = errors.New("store: table in memory is not the stored one")

// state returns name's state, creating an empty one.
func (s *Store) state(name string) (*tableState, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, ErrClosed
	}
	if s.readOnly {
		return nil, fmt.Errorf("%w: %s", ErrReadOnly, s.dir)
	}
	t := s.tables[name]
	if t == nil {
		t = &tableState{}
		s.tables[name] = t
	}
	return t, nil
}

// lockState locks name's state for a change, refusing a broken table.
func (s *Store) lockState(name string) (*tableState, error) {
	t, err := s.state(name)
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	if t.broken != nil {
		t.mu.Unlock()
		return nil, t.broken
	}
	return t, nil
}

func (s *Store) newID() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := s.nextID
	s.nextID++
	return id
}

// Put stores the batches r yields as table name, replacing a table of
// that name, as cache.Put does, and on disk before the new table is
// visible: when Put returns nil the table survives a crash; when it
// returns an error (a full disk, an I/O error) the old table is served
// and on disk as before.
func (s *Store) Put(ctx context.Context, name string, r array.RecordReader, opts cache.TableOptions) (cache.TableInfo, error) {
	info, err := s.put(ctx, name, r, opts)
	return info, s.diskFull(name, "stored", err)
}

func (s *Store) put(ctx context.Context, name string, r array.RecordReader, opts cache.TableOptions) (cache.TableInfo, error) {
	// Encoding needs no lock: the chunk file's id and seq are reserved,
	// and it is written as the batches are encoded.
	t, err := s.lockState(name)
	if err != nil {
		return cache.TableInfo{}, err
	}
	var id uint64
	if t.m != nil {
		id = t.m.id
	} else {
		id = s.newID()
	}
	seq := t.reserveSeq(t.m)
	t.mu.Unlock()
	st, err := s.newStream(id, seq)
	if err != nil {
		return cache.TableInfo{}, fmt.Errorf("store: table %q: %w", name, err)
	}
	opts.Encoded = st.encoded()
	ch, err := s.cache.PreparePut(ctx, name, r, opts)
	if err != nil {
		st.abort(s)
		return cache.TableInfo{}, err
	}
	defer ch.Abort()
	if t, err = s.lockState(name); err != nil {
		st.abort(s)
		return cache.TableInfo{}, err
	}
	defer t.mu.Unlock()
	img := ch.Image()
	next := &manifest{img: img, nextSeq: 1, id: id}
	if t.m != nil {
		next.id, next.nextSeq = t.m.id, t.m.nextSeq
	}
	next.img.Batches = nil
	info, err := s.apply(t, next, img.Batches, ch, ch.Commit, st)
	if err == nil {
		s.queueIfDue(name, t)
	}
	return info, err
}

// Append adds the batches r yields to table name, as cache.Append does,
// on disk before they are visible (see Put).
func (s *Store) Append(ctx context.Context, name string, r array.RecordReader, opts cache.TableOptions) (cache.TableInfo, error) {
	info, err := s.append(ctx, name, r, opts)
	return info, s.diskFull(name, "stored", err)
}

func (s *Store) append(ctx context.Context, name string, r array.RecordReader, opts cache.TableOptions) (cache.TableInfo, error) {
	t, err := s.lockState(name)
	if err != nil {
		return cache.TableInfo{}, err
	}
	defer t.mu.Unlock()
	if t.m == nil {
		if _, err := s.cache.Info(name); err == nil {
			return cache.TableInfo{}, fmt.Errorf("%w: append to table %q refused: it is held in memory only (loaded at start, not stored in %s); replace it to store it", ErrNotStored, name, s.dir)
		}
		return cache.TableInfo{}, fmt.Errorf("%w: %q", cache.ErrNotFound, name)
	}
	st, err := s.newStream(t.m.id, t.reserveSeq(t.m))
	if err != nil {
		return cache.TableInfo{}, fmt.Errorf("store: table %q: %w", name, err)
	}
	opts.Encoded = st.encoded()
	ch, err := s.cache.PrepareAppend(ctx, name, r, opts)
	if err != nil {
		st.abort(s)
		return cache.TableInfo{}, err
	}
	defer ch.Abort()
	if ch.Base() != t.gen {
		st.abort(s)
		return cache.TableInfo{}, fmt.Errorf("%w: append to table %q refused: the table in memory was replaced outside the store, so it is not the one in %s; replace it to store it", ErrNotStored, name, s.dir)
	}
	img := ch.Image()
	next := *t.m
	next.img.Columns = img.Columns // the sketches, merged with the new batches'
	next.img.Batches = slices.Clip(t.m.img.Batches)
	next.files, next.locs = slices.Clip(t.m.files), slices.Clip(t.m.locs)
	if k := ch.Replaced(); k > 0 { // a coalescing append (cache.TableOptions.Coalesce)
		next.dropTail(k)
	}
	info, err := s.apply(t, &next, img.Batches, ch, ch.Commit, st)
	if err == nil {
		s.queueIfDue(name, t)
	}
	return info, err
}

// dropTail removes m's last k batches, and the chunk files no batch of
// m is read from any more (settle removes them from the disk once the
// change is committed). It makes new slices: m's may be shared.
func (m *manifest) dropTail(k int) {
	n := len(m.img.Batches) - k
	m.img.Batches = slices.Clip(m.img.Batches[:n])
	used := make([]bool, len(m.files))
	for _, l := range m.locs[:n] {
		used[l.file] = true
	}
	remap := make([]int, len(m.files))
	var files []fileRef
	for i, f := range m.files {
		if used[i] {
			remap[i] = len(files)
			files = append(files, f)
		}
	}
	locs := make([]batchLoc, n)
	for i, l := range m.locs[:n] {
		locs[i] = batchLoc{file: remap[l.file], offset: l.offset}
	}
	m.files, m.locs = files, locs
}

// Drop removes table name from the disk, then from the cache, and
// reports whether it was there.
func (s *Store) Drop(name string) (bool, error) {
	ok, err := s.drop(name)
	return ok, s.diskFull(name, "dropped", err)
}

func (s *Store) drop(name string) (bool, error) {
	t, err := s.lockState(name)
	if err != nil {
		return false, err
	}
	defer t.mu.Unlock()
	if t.m == nil {
		return s.cache.Drop(name), nil
	}
	_, err = s.apply(t, nil, nil, nil, func() (cache.TableInfo, error) {
		s.cache.Drop(name)
		return cache.TableInfo{}, nil
	}, nil)
	return err == nil, err
}

// apply writes a change of table t and makes it visible: fresh batches
// into a new chunk file (synced), then the manifest next (nil for a drop)
// in place of t's, then commit. Whatever fails, the table stays as it
// was, on disk and in the cache; when the disk cannot be put back either,
// the table is marked broken and refuses changes until a restart reads
// what the disk holds.
//
// st, when not nil, is the chunk file written while the change was
// encoded (chunkStream); it is used when it was begun for next's table
// id (a Put that raced another creating the table writes its file
// again, under the id the table has).
func (s *Store) apply(t *tableState, next *manifest, fresh []cache.BatchImage, ch *cache.Change, commit func() (cache.TableInfo, error), st *chunkStream) (cache.TableInfo, error) {
	var w *newFile
	if next != nil && len(fresh) > 0 {
		var err error
		if st != nil && st.id == next.id {
			next.nextSeq = max(next.nextSeq, st.file.seq+1)
			w, err = st.finish(s, next.img.Schema, fresh, ch)
		} else {
			st.abort(s)
			w, err = s.writeBatches(next.id, t.takeSeq(next), next.img.Schema, fresh, ch)
		}
		if err != nil {
			return cache.TableInfo{}, fmt.Errorf("store: table %q: %w", next.img.Name, err)
		}
		w.addTo(next)
	} else {
		st.abort(s)
	}
	return s.install(t, next, w, commit)
}

// install commits a change whose chunk file w (nil for none) is written,
// not yet synced: the manifest next (nil for a drop) in place of t's (w
// synced meanwhile, before the rename), then commit, then the files t's
// manifest named and next does not are removed. On failure the table
// stays as it was and w is removed (see apply).
func (s *Store) install(t *tableState, next *manifest, w *newFile, commit func() (cache.TableInfo, error)) (cache.TableInfo, error) {
	m := next
	if m == nil { // a drop
		m = t.m
	}
	id, name := m.id, m.img.Name
	var written *chunkFile
	var unsynced vfs.File
	if w != nil {
		written, unsynced = w.file, w.f
		w.f = nil // writeManifest syncs and closes it
	}
	var raw []byte
	if next != nil {
		var err error
		if raw, err = next.encode(); err != nil {
			if unsynced != nil {
				unsynced.Close()
			}
			s.removeQuietly(written.pathOrEmpty())
			return cache.TableInfo{}, err
		}
	}
	if maybeDone, err := s.writeManifest(id, raw, unsynced); err != nil {
		err = fmt.Errorf("store: table %q: writing %s: %w", name, manifestName(id), err)
		if !maybeDone {
			s.removeQuietly(written.pathOrEmpty())
			return cache.TableInfo{}, err
		}
		return cache.TableInfo{}, s.undo(t, id, name, written, err)
	}
	info, err := commit()
	if err != nil {
		return cache.TableInfo{}, s.undo(t, id, name, written, err)
	}
	s.settle(t, next, raw, info.Generation, written)
	return info, nil
}

// takeSeq gives next's change the seq of its chunk file. Puts and
// compactions write their files while other changes run (chunkStream,
// compact.go), so seqs are handed out by t, never twice, not by the
// manifest alone.
func (t *tableState) takeSeq(next *manifest) uint64 {
	seq := max(next.nextSeq, t.nextFree)
	next.nextSeq, t.nextFree = seq+1, seq+1
	return seq
}

// reserveSeq hands out a seq for a chunk file written before the change
// holds the table (m is t's manifest now, nil for none).
func (t *tableState) reserveSeq(m *manifest) uint64 {
	seq := t.nextFree
	if m != nil {
		seq = max(seq, m.nextSeq)
	}
	seq = max(seq, 1)
	t.nextFree = seq + 1
	return seq
}

// newFile is a chunk file just written: its batches as a manifest
// records them (chunks nil, Sizes set), where each starts, and the file
// still open, its bytes not yet synced (install syncs it).
type newFile struct {
	file    *chunkFile
	f       vfs.File // nil once handed to writeManifest
	size    int64
	batches []cache.BatchImage
	offsets []int64
}

// discard closes and removes a file that will not be committed.
func (w *newFile) discard(s *Store) {
	if w.f != nil {
		w.f.Close()
		w.f = nil
	}
	s.removeQuietly(w.file.path)
}

// writeBatches writes batches to the new chunk file t<id>-<seq>.chunks,
// unsynced, and places them (newFile.place).
func (s *Store) writeBatches(id, seq uint64, schema *arrow.Schema, batches []cache.BatchImage, ch *cache.Change) (*newFile, error) {
	file := &chunkFile{fs: s.fs, path: s.path(chunkName(id, seq)), seq: seq}
	f, offsets, size, err := writeChunkFile(s.fs, file.path, batches)
	if err != nil {
		s.removeQuietly(file.path)
		return nil, fmt.Errorf("writing %s: %w", chunkName(id, seq), err)
	}
	w := &newFile{file: file, f: f}
	if err := w.place(s, size, offsets, schema, batches, ch); err != nil {
		return nil, err
	}
	return w, nil
}

// place records batches, written at offsets of w's file of size bytes,
// as a manifest holds them, and gives them to ch as their sources, so the
// cache may drop them from memory and read them back once committed
// (cache.Change.Sources): the budget caches written tables as it does
// restored ones. On error w is discarded.
func (w *newFile) place(s *Store, size int64, offsets []int64, schema *arrow.Schema, batches []cache.BatchImage, ch *cache.Change) error {
	w.size, w.offsets, w.batches = size, offsets, make([]cache.BatchImage, len(batches))
	columns := columnNames(schema)
	loads := make([]func() ([][]byte, error), len(batches))
	for i, b := range batches {
		b.Sizes = make([]int64, len(b.Chunks))
		for c, chunk := range b.Chunks {
			b.Sizes[c] = int64(len(chunk))
		}
		loads[i] = batchLoader(w.file, offsets[i], b.Sizes, columns)
		b.Chunks = nil // the manifest keeps where they are, not them
		w.batches[i] = b
	}
	if ch != nil {
		if err := ch.Sources(loads); err != nil {
			w.discard(s)
			return err
		}
	}
	return nil
}

// addTo records the file and its batches at the end of m.
func (w *newFile) addTo(m *manifest) {
	m.files = append(m.files, fileRef{seq: w.file.seq, size: w.size})
	for i, b := range w.batches {
		m.img.Batches = append(m.img.Batches, b)
		m.locs = append(m.locs, batchLoc{file: len(m.files) - 1, offset: w.offsets[i]})
	}
}

// undo puts t's manifest back after a change failed at or after its
// commit point (or the cache refused the commit), and removes the
// change's chunk file; if the manifest cannot be put back the table is
// broken (see apply).
func (s *Store) undo(t *tableState, id uint64, name string, written *chunkFile, cause error) error {
	var err error
	if t.m != nil {
		if _, err = s.writeManifest(id, t.raw, nil); err == nil {
			s.removeQuietly(written.pathOrEmpty())
			return cause
		}
		t.broken = fmt.Errorf("store: table %q: a change failed (%w) and the previous manifest could not be written back (%w); restart the server to read %s again", name, cause, err, s.dir)
		return t.broken
	}
	if _, err = s.writeManifest(id, nil, nil); err == nil || errors.Is(err, fs.ErrNotExist) {
		s.removeQuietly(written.pathOrEmpty())
		return cause
	}
	t.broken = fmt.Errorf("store: table %q: a change failed (%w) and its manifest could not be removed (%w); restart the server to read %s again", name, cause, err, s.dir)
	return t.broken
}

// settle records a committed change in t and removes the chunk files the
// new manifest no longer names.
func (s *Store) settle(t *tableState, next *manifest, raw []byte, gen uint64, written *chunkFile) {
	var obsolete []fileRef
	if t.m != nil {
		for _, f := range t.m.files {
			if next == nil || !slices.Contains(next.files, f) {
				obsolete = append(obsolete, f)
			}
		}
	}
	old := t.m
	t.m, t.raw, t.gen = next, raw, gen
	if written != nil {
		if t.files == nil {
			t.files = map[uint64]*chunkFile{}
		}
		t.files[written.seq] = written
	}
	// Scans of the old snapshot may still read batches from these: open
	// them first (an open file outlives its name). Failing to remove them
	// loses nothing: Open removes chunk files no manifest names.
	for _, f := range obsolete {
		if h := t.files[f.seq]; h != nil {
			h.open()
			delete(t.files, f.seq)
		}
		s.removeQuietly(s.path(chunkName(old.id, f.seq)))
	}
}

func (s *Store) removeQuietly(path string) {
	if path != "" {
		_ = s.fs.Remove(path)
	}
}

// writeManifest replaces manifest id with raw, or removes it when raw is
// nil: the commit point of every change (write a temp file, sync it,
// rename it over the manifest, sync the directory). chunk, when not nil,
// is the change's chunk file, written but not synced: it is synced (and
// closed) while the temp is written and synced, and the rename waits for
// both, so a change costs two fsyncs in a row, not three. maybeDone
// reports a failure at or after the rename (or remove), when the disk may
// hold either manifest.
//
// There is no directory sync before the rename: on Linux's journaling
// file systems (ext4, xfs) a file's fsync commits its creation, and
// directory operations become durable in the order they were done, so a
// durable rename implies the chunk file and temp it follows. The sync
// after the rename makes the change durable before it is acknowledged.
func (s *Store) writeManifest(id uint64, raw []byte, chunk vfs.File) (maybeDone bool, err error) {
	path := s.path(manifestName(id))
	if raw == nil {
		if err := s.fs.Remove(path); err != nil {
			return true, err
		}
		return true, s.syncDir()
	}
	synced := make(chan error, 1)
	if chunk != nil {
		go func() { synced <- syncChunkFile(chunk) }()
	} else {
		synced <- nil
	}
	tmp := path + tempSuffix
	err = s.writeSynced(tmp, raw)
	if serr := <-synced; serr != nil {
		err = serr // the chunk file's failure, whatever the temp's
	}
	if err != nil {
		s.removeQuietly(tmp)
		return false, err
	}
	if err := s.fs.Rename(tmp, path); err != nil {
		return true, err
	}
	return true, s.syncDir()
}

// writeSynced writes a whole file and syncs it.
func (s *Store) writeSynced(path string, b []byte) (err error) {
	f, err := s.fs.Create(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	if _, err := f.Write(b); err != nil {
		return err
	}
	return f.Sync()
}
