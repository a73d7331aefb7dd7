package store

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/store/vfs"
)

// Options configure a Store. The zero value is the operating system's
// file system.
type Options struct {
	// FS is the file system under the store; default vfs.OS. Tests pass
	// a vfs.FaultFS.
	FS vfs.FS
	// ReadOnly reads the directory without locking it or removing
	// anything, so it can look at a running server's directory (quiver
	// inspect); changes fail with ErrReadOnly. Files of a change in
	// progress there are ignored, as Open would remove them.
	ReadOnly bool
	// Compaction is when the store merges small appends in the
	// background; the zero value is the default policy.
	Compaction Compaction
	// Logger receives what the background does (compactions, and why
	// one failed); default none.
	Logger *slog.Logger
}

// ErrReadOnly is the error of a change on a store opened ReadOnly.
var ErrReadOnly = errors.New("store: opened read-only")

// Store keeps a cache's tables in a data directory: every change is on
// disk before it is visible, and Open serves them again after a restart.
// All methods are safe for concurrent use; changes of one table are
// serialized, changes of different tables run concurrently.
type Store struct {
	dir   string
	fs    vfs.FS
	cache *cache.Cache
	lock  io.Closer

	mu       sync.Mutex
	tables   map[string]*tableState // by table name
	nextID   uint64
	readOnly bool
	problems []error
	closed   bool

	compaction Compaction
	log        *slog.Logger
	bg         *background // nil when read-only or the policy is off
	catalog    []byte      // catalog.go
	// catalogBroken is why the catalog file could not be read at Open.
	catalogBroken error
}

// tableState is one table's files. mu serializes its changes; m is its
// manifest on disk (nil when there is none), raw its bytes.
type tableState struct {
	mu     sync.Mutex
	m      *manifest
	raw    []byte
	broken error  // set when a failed change could not be rolled back
	gen    uint64 // the cache's TableInfo.Generation of the table m records
	// nextFree is the least chunk file seq not handed out (takeSeq).
	nextFree uint64
	// compacting is set while a compaction of the table runs (one at a
	// time); compactAgain when another was asked for meanwhile.
	compacting, compactAgain bool
	// files are the chunk files its batches are read from, by seq: the store
	// opens them before it removes them (chunkFile).
	files map[uint64]*chunkFile
}

// TableError names a table (or, when its manifest cannot be read, the
// manifest file) that Open could not serve, and why.
type TableError struct {
	Table string // empty when the manifest is unreadable
	File  string
	Err   error
}

func (e *TableError) Error() string {
	if e.Table == "" {
		return fmt.Sprintf("store: %s: %v", e.File, e.Err)
	}
	return fmt.Sprintf("store: table %q (%s): %v", e.Table, e.File, e.Err)
}

func (e *TableError) Unwrap() error { return e.Err }

// ErrLocked matches the error of Open on a directory another process has
// open.
var ErrLocked = errors.New("store: data directory in use")

// File names in the data directory (doc.go).
const (
	lockName       = "LOCK"
	manifestSuffix = ".manifest"
	chunkSuffix    = ".chunks"
	tempSuffix     = ".tmp"
)

func manifestName(id uint64) string { return "t" + strconv.FormatUint(id, 10) + manifestSuffix }
func chunkName(id, seq uint64) string {
	return "t" + strconv.FormatUint(id, 10) + "-" + strconv.FormatUint(seq, 10) + chunkSuffix
}

// parseName reads t<id>.manifest or t<id>-<seq>.chunks.
func parseName(name string) (id, seq uint64, isManifest, ok bool) {
	var rest string
	switch {
	case strings.HasSuffix(name, manifestSuffix):
		rest, isManifest = strings.TrimSuffix(name, manifestSuffix), true
	case strings.HasSuffix(name, chunkSuffix):
		rest = strings.TrimSuffix(name, chunkSuffix)
	default:
		return 0, 0, false, false
	}
	rest, ok = strings.CutPrefix(rest, "t")
	if !ok {
		return 0, 0, false, false
	}
	idText, seqText, hasSeq := strings.Cut(rest, "-")
	if hasSeq == isManifest {
		return 0, 0, false, false
	}
	id, err := strconv.ParseUint(idText, 10, 63)
	if err != nil {
		return 0, 0, false, false
	}
	if hasSeq {
		if seq, err = strconv.ParseUint(seqText, 10, 63); err != nil {
			return 0, 0, false, false
		}
	}
	return id, seq, isManifest, true
}

func (s *Store) path(name string) string { return filepath.Join(s.dir, name) }

// Open locks dir (creating it if needed), removes the files of changes
// that did not finish, and restores every table its manifests record
// into c, chunks unread until a scan needs them. A table whose files are
// torn or corrupt is left out and named in Problems; the others are
// served. A second Open of a directory, from any process, fails with an
// error matching ErrLocked that names the holder's pid.
func Open(dir string, c *cache.Cache, opts Options) (*Store, error) {
	fs := opts.FS
	if fs == nil {
		fs = vfs.OS
	}
	if err := opts.Compaction.Validate(); err != nil {
		return nil, err
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.ReadOnly {
		s := &Store{dir: dir, fs: fs, cache: c, tables: map[string]*tableState{}, nextID: 1, readOnly: true, log: opts.Logger}
		if err := s.recover(); err != nil {
			return nil, err
		}
		return s, nil
	}
	if _, err := fs.Stat(dir); errors.Is(err, os.ErrNotExist) {
		// A new directory's own name must last too: sync its parent.
		if err := fs.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("store: creating data directory: %w", err)
		}
		if err := syncDir(fs, filepath.Dir(filepath.Clean(dir))); err != nil {
			return nil, fmt.Errorf("store: creating data directory %s: syncing its parent: %w", dir, err)
		}
	}
	lock, err := fs.Lock(filepath.Join(dir, lockName))
	if err != nil {
		var le *vfs.LockedError
		if errors.As(err, &le) {
			pid := le.PID
			if pid == "" {
				pid = "unknown"
			}
			return nil, fmt.Errorf("%w: %s is locked by process %s (one server per data directory; stop it or choose another --data-dir)", ErrLocked, dir, pid)
		}
		return nil, fmt.Errorf("store: locking data directory %s: %w", dir, err)
	}
	s := &Store{dir: dir, fs: fs, cache: c, lock: lock, tables: map[string]*tableState{}, nextID: 1}
	s.compaction, s.log = opts.Compaction.withDefaults(), opts.Logger
	if err := s.recover(); err != nil {
		lock.Close()
		return nil, err
	}
	if s.compaction.Files >= 0 {
		s.startBackground()
	}
	return s, nil
}

// recover reads the directory: see Open.
func (s *Store) recover() error {
	names, err := s.fs.List(s.dir)
	if err != nil {
		return fmt.Errorf("store: listing data directory: %w", err)
	}
	if slices.Contains(names, catalogName) {
		s.readCatalog() // catalog.go
	}
	slices.Sort(names)
	chunks := map[uint64][]uint64{} // id → seqs on disk
	var manifests []uint64
	var garbage []string
	for _, name := range names {
		id, seq, isManifest, ok := parseName(name)
		switch {
		case strings.HasSuffix(name, tempSuffix):
			garbage = append(garbage, name)
		case !ok: // LOCK, or a file not ours: leave it
		case isManifest:
			manifests = append(manifests, id)
		default:
			chunks[id] = append(chunks[id], seq)
		}
		if ok && id >= s.nextID {
			s.nextID = id + 1
		}
	}
	keep := map[uint64]bool{} // ids whose chunk files are not garbage
	for _, id := range manifests {
		keep[id] = true
		referenced, err := s.restore(id)
		if err != nil {
			s.problems = append(s.problems, err)
			continue // keep all its files: it may be repaired by hand
		}
		for _, seq := range chunks[id] {
			if !referenced[seq] {
				garbage = append(garbage, chunkName(id, seq))
			}
		}
	}
	for id, seqs := range chunks {
		if !keep[id] {
			for _, seq := range seqs {
				garbage = append(garbage, chunkName(id, seq))
			}
		}
	}
	if s.readOnly {
		return nil
	}
	// A file that cannot be removed is harmless (no manifest names it, and
	// a change that reuses its name truncates it): reported, not fatal.
	for _, name := range garbage {
		if err := s.fs.Remove(s.path(name)); err != nil {
			s.problems = append(s.problems, &TableError{File: name, Err: fmt.Errorf("removing a file of an unfinished change: %w", err)})
		}
	}
	if len(garbage) > 0 {
		if err := s.syncDir(); err != nil {
			s.problems = append(s.problems, &TableError{File: ".", Err: fmt.Errorf("syncing the directory after removing files of unfinished changes: %w", err)})
		}
	}
	return nil
}

// restore reads manifest id, checks its chunk files and restores the
// table into the cache. It returns the seqs of the chunk files it names.
func (s *Store) restore(id uint64) (map[uint64]bool, error) {
	file := manifestName(id)
	raw, err := s.readFile(file)
	if err != nil {
		return nil, &TableError{File: file, Err: err}
	}
	m, err := decodeManifest(raw)
	if err != nil {
		return nil, &TableError{File: file, Err: err}
	}
	name := m.img.Name
	if m.id != id {
		return nil, &TableError{Table: name, File: file, Err: corrupt("manifest records id %d", m.id)}
	}
	if _, dup := s.tables[name]; dup {
		return nil, &TableError{Table: name, File: file, Err: corrupt("a second manifest for the table (the first is kept)")}
	}
	referenced := map[uint64]bool{}
	for _, f := range m.files {
		referenced[f.seq] = true
		if err := checkChunkFile(s.fs, s.path(chunkName(id, f.seq)), f.size); err != nil {
			return nil, &TableError{Table: name, File: chunkName(id, f.seq), Err: err}
		}
	}
	for i := range m.img.Batches {
		if err := m.checkBatch(i); err != nil {
			return nil, &TableError{Table: name, File: file, Err: err}
		}
	}
	files := map[uint64]*chunkFile{}
	info, err := s.cache.Restore(s.lazyImage(m, files))
	if err != nil {
		return nil, &TableError{Table: name, File: file, Err: err}
	}
	s.tables[name] = &tableState{m: m, raw: raw, gen: info.Generation, files: files}
	return referenced, nil
}

// checkBatch checks that batch i lies inside its chunk file.
func (m *manifest) checkBatch(i int) error {
	loc, b := m.locs[i], m.img.Batches[i]
	f := m.files[loc.file]
	end := loc.offset
	for _, n := range b.Sizes {
		// Each length is bounded by the file before it is added, so the
		// sum cannot wrap past the check below into a small allocation
		// that the chunks' slicing then overruns.
		if n < 0 || n > f.size {
			return corrupt("batch %d: a chunk of %d bytes in %s, which has %d", i, n, chunkName(m.id, f.seq), f.size)
		}
		end += n
	}
	if loc.offset < int64(chunkHeader) || end > f.size || end < loc.offset {
		return corrupt("batch %d at bytes [%d, %d) of %s, which has %d", i, loc.offset, end, chunkName(m.id, f.seq), f.size)
	}
	return nil
}

// lazyImage is the manifest's image with a loader per batch, reading
// the chunk files of files (added when missing).
func (s *Store) lazyImage(m *manifest, files map[uint64]*chunkFile) cache.Image {
	img := m.img
	img.Batches = slices.Clone(m.img.Batches)
	columns := columnNames(img.Schema)
	for i := range img.Batches {
		b := &img.Batches[i]
		loc := m.locs[i]
		seq := m.files[loc.file].seq
		f := files[seq]
		if f == nil {
			f = &chunkFile{fs: s.fs, path: s.path(chunkName(m.id, seq)), seq: seq}
			files[seq] = f
		}
		b.Chunks = nil
		b.Load = batchLoader(f, loc.offset, b.Sizes, columns)
	}
	return img
}

// columnNames are a schema's field names, for errors naming a column.
func columnNames(schema *arrow.Schema) []string {
	names := make([]string, schema.NumFields())
	for i := range names {
		names[i] = schema.Field(i).Name
	}
	return names
}

// readFile reads a whole file of at most maxManifest bytes.
func (s *Store) readFile(name string) ([]byte, error) {
	f, err := s.fs.Open(s.path(name))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() > maxManifest {
		return nil, corrupt("%d bytes, over the %d-byte limit of a manifest", st.Size(), maxManifest)
	}
	b := make([]byte, st.Size())
	if _, err := f.ReadAt(b, 0); err != nil && !(err == io.EOF && len(b) == 0) {
		return nil, err
	}
	return b, nil
}

// syncDir makes the directory's entries (created, renamed, removed
// files) durable.
func (s *Store) syncDir() error { return syncDir(s.fs, s.dir) }

func syncDir(fs vfs.FS, dir string) error {
	d, err := fs.OpenDir(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// Cache returns the cache the store restores into and writes through.
func (s *Store) Cache() *cache.Cache { return s.cache }

// Dir returns the data directory.
func (s *Store) Dir() string { return s.dir }

// Problems returns what Open could not serve or clean up: one
// *TableError per table, manifest or file, naming the file.
func (s *Store) Problems() []error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.problems)
}

// Tables returns the names of the tables stored, sorted.
func (s *Store) Tables() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var names []string
	for name, t := range s.tables {
		if t.m != nil {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// Close stops the background compaction (a compaction in progress is
// abandoned, as a crash would) and releases the directory's lock.
// Changes must have returned.
func (s *Store) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	s.bg.stop()
	if s.lock == nil { // read-only
		return nil
	}
	return s.lock.Close()
}

// Verify reads every chunk of table name from its files and checks its
// checksum, without keeping them: what a scan would find, found now. The
// error names the file, batch, column and offset of the first bad chunk.
func (s *Store) Verify(name string) error {
	s.mu.Lock()
	t := s.tables[name]
	s.mu.Unlock()
	if t == nil {
		return fmt.Errorf("%w: %q", cache.ErrNotFound, name)
	}
	t.mu.Lock()
	m := t.m
	t.mu.Unlock()
	if m == nil {
		return fmt.Errorf("%w: %q", cache.ErrNotFound, name)
	}
	img := s.lazyImage(m, map[uint64]*chunkFile{})
	for i, b := range img.Batches {
		if _, err := b.Load(); err != nil {
			return fmt.Errorf("store: table %q batch %d: %w", name, i, err)
		}
	}
	return nil
}
