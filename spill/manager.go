package spill

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// folderPrefix starts the name of every Manager's folder; the pid after it
// lets a later process tell whether the owner is still running.
const folderPrefix = "quiver-spill-"

// Manager owns one folder of spill files and the disk quota they share.
// Use one per process (or per server); it is safe for concurrent use.
type Manager struct {
	cfg Config
	fs  FS
	dir string

	used   atomic.Int64 // bytes of spill files on disk now, reserved before each write
	peak   atomic.Int64
	files  atomic.Int64 // files on disk now
	seq    atomic.Uint64
	closed atomic.Bool
	mu     sync.Mutex // serializes Close with file creation

	created, written, read     atomic.Int64
	batchesW, batchesR         atomic.Int64
	rowsW, rowsR               atomic.Int64
	writeNanos, readNanos      atomic.Int64
	staleRemoved, staleSkipped int
}

// NewManager creates the Manager's folder under cfg.Dir, after removing
// the quiver-spill-* folders there whose process is no longer running
// (left by a crash).
func NewManager(cfg Config) (*Manager, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	m := &Manager{cfg: cfg, fs: cfg.FS}
	if m.fs == nil {
		m.fs = OSFS{}
	}
	parent := cfg.Dir
	if parent == "" {
		parent = os.TempDir()
	}
	if err := m.fs.MkdirAll(parent, 0o755); err != nil {
		return nil, fmt.Errorf("spill: creating spill dir %s: %w", parent, err)
	}
	m.removeStale(parent)
	var rnd [6]byte
	for range 8 {
		_, _ = rand.Read(rnd[:]) // crypto/rand.Read never fails
		dir := filepath.Join(parent, fmt.Sprintf("%s%d-%s", folderPrefix, os.Getpid(), hex.EncodeToString(rnd[:])))
		err := m.fs.Mkdir(dir, 0o700)
		if err == nil {
			m.dir = dir
			return m, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("spill: creating %s: %w", dir, err)
		}
	}
	return nil, fmt.Errorf("spill: no free folder name under %s after 8 tries", parent)
}

// removeStale removes the spill folders under parent whose process is
// gone. It is best effort: a folder that cannot be read or removed (say,
// another user's) is left alone and counted in Stats.StaleSkipped.
func (m *Manager) removeStale(parent string) {
	entries, err := m.fs.ReadDir(parent)
	if err != nil {
		return
	}
	for _, e := range entries {
		pid, ok := folderPID(e.Name())
		if !ok || !e.IsDir() || pid == os.Getpid() || processAlive(pid) {
			continue
		}
		if err := m.fs.RemoveAll(filepath.Join(parent, e.Name())); err != nil {
			m.staleSkipped++
			continue
		}
		m.staleRemoved++
	}
}

// folderPID parses quiver-spill-<pid>-<random>.
func folderPID(name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, folderPrefix)
	if !ok {
		return 0, false
	}
	num, _, ok := strings.Cut(rest, "-")
	if !ok || num == "" || len(num) > 10 {
		return 0, false
	}
	pid := 0
	for _, c := range num {
		if c < '0' || c > '9' {
			return 0, false
		}
		pid = pid*10 + int(c-'0')
	}
	return pid, pid > 0
}

// Dir returns the Manager's own folder.
func (m *Manager) Dir() string { return m.dir }

// Config returns the configuration the Manager was made with.
func (m *Manager) Config() Config { return m.cfg }

// Close removes the Manager's folder and every spill file in it. Files
// and Writers of the Manager fail afterwards (ErrClosed); Readers already
// open may keep reading where the operating system allows it (Unix).
func (m *Manager) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed.Swap(true) {
		return nil
	}
	err := m.fs.RemoveAll(m.dir)
	m.used.Store(0)
	m.files.Store(0)
	if err != nil {
		return fmt.Errorf("spill: removing %s: %w", m.dir, err)
	}
	return nil
}

// NewFile starts a spill file. owner (a query id, an operator name) goes
// into the file's name and every error about it.
func (m *Manager) NewFile(owner string) (*Writer, error) {
	f, err := m.create(owner, ".arrows")
	if err != nil {
		return nil, err
	}
	return &Writer{fileOut: f}, nil
}

// sanitize keeps owner readable in a file name: letters, digits, '-',
// '_' and '.', at most 64 of them.
func sanitize(owner string) string {
	var b strings.Builder
	for _, c := range owner {
		if b.Len() >= 64 {
			break
		}
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '_', c == '.':
			b.WriteRune(c)
		default:
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "spill"
	}
	return b.String()
}

// reserve takes n bytes of the quota before they are written.
func (m *Manager) reserve(n int64) (ok bool, used int64) {
	for {
		used = m.used.Load()
		if m.cfg.Quota > 0 && used+n > m.cfg.Quota {
			return false, used
		}
		if m.used.CompareAndSwap(used, used+n) {
			for {
				p := m.peak.Load()
				if used+n <= p || m.peak.CompareAndSwap(p, used+n) {
					return true, used
				}
			}
		}
	}
}

// release gives n bytes back when a file is removed or a write fails.
// After Close the count was reset, so nothing is given back twice.
func (m *Manager) release(n int64) {
	if !m.closed.Load() {
		m.used.Add(-n)
	}
}

// dropFile counts one file fewer on disk.
func (m *Manager) dropFile() {
	if !m.closed.Load() {
		m.files.Add(-1)
	}
}

// Stats is what a Manager has on disk now and has done since it started.
type Stats struct {
	DiskBytes                   int64 // bytes of spill files on disk now (finished or being written)
	PeakDiskBytes               int64 // most DiskBytes has been
	Files                       int64 // spill files on disk now
	FilesCreated                int64
	BytesWritten                int64 // file bytes written, including files removed since
	BytesRead                   int64 // file bytes read
	BatchesWritten, BatchesRead int64
	RowsWritten, RowsRead       int64
	WriteTime                   time.Duration // in Writer.Write and Finish: encoding, compressing, writing
	ReadTime                    time.Duration // in Reader.Next: reading, verifying, decoding
	StaleRemoved                int           // folders of dead processes removed by NewManager
	StaleSkipped                int           // such folders it could not remove
}

// Stats returns a snapshot of the Manager's counters.
func (m *Manager) Stats() Stats {
	return Stats{
		DiskBytes:      m.used.Load(),
		PeakDiskBytes:  m.peak.Load(),
		Files:          m.files.Load(),
		FilesCreated:   m.created.Load(),
		BytesWritten:   m.written.Load(),
		BytesRead:      m.read.Load(),
		BatchesWritten: m.batchesW.Load(),
		BatchesRead:    m.batchesR.Load(),
		RowsWritten:    m.rowsW.Load(),
		RowsRead:       m.rowsR.Load(),
		WriteTime:      time.Duration(m.writeNanos.Load()),
		ReadTime:       time.Duration(m.readNanos.Load()),
		StaleRemoved:   m.staleRemoved,
		StaleSkipped:   m.staleSkipped,
	}
}
