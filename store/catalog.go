package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/zeebo/xxh3"
)

// The catalog file keeps what a server defines beside its tables (the
// views CREATE VIEW makes), as bytes whose meaning is the caller's:
//
//	+--------+---------+--------------+----------------------------------+
//	| magic  | version | payload      | checksum u32 LE: low 32 bits of  |
//	| "QVCT" | u8 = 1  | (the caller's| XXH3-64 over every byte before it|
//	|        |         |  bytes)      |                                  |
//	+--------+---------+--------------+----------------------------------+
//
// SaveCatalog replaces it as a change replaces a manifest (temp file,
// synced, renamed over it, directory synced), so it is durable when
// SaveCatalog returns and a crash leaves the old or the new one. Open
// reads it; a damaged one is reported in Problems, not served, and kept:
// SaveCatalog refuses to replace it until it is moved away.

const (
	catalogName    = "catalog"
	catalogMagic   = "QVCT"
	catalogVersion = 1
)

// Catalog returns the payload SaveCatalog last stored; nil when none is.
func (s *Store) Catalog() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.catalog
}

// SaveCatalog stores payload as the catalog, on disk before it returns.
func (s *Store) SaveCatalog(payload []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.closed:
		return ErrClosed
	case s.readOnly:
		return fmt.Errorf("%w: %s", ErrReadOnly, s.dir)
	case s.catalogBroken != nil:
		return fmt.Errorf("store: %s was unreadable at Open (%w); it is kept for inspection: move it away to save the catalog again", s.path(catalogName), s.catalogBroken)
	}
	b := append([]byte(catalogMagic), catalogVersion)
	b = append(b, payload...)
	b = binary.LittleEndian.AppendUint32(b, uint32(xxh3.Hash(b)))
	path := s.path(catalogName)
	tmp := path + tempSuffix
	if err := s.writeSynced(tmp, b); err != nil {
		s.removeQuietly(tmp)
		return fmt.Errorf("store: writing %s: %w", catalogName, err)
	}
	if err := s.fs.Rename(tmp, path); err != nil {
		s.removeQuietly(tmp)
		return fmt.Errorf("store: writing %s: %w", catalogName, err)
	}
	if err := s.syncDir(); err != nil {
		return fmt.Errorf("store: writing %s: %w", catalogName, err)
	}
	s.catalog = append([]byte(nil), payload...)
	return nil
}

// readCatalog reads the catalog file at Open, if there is one.
func (s *Store) readCatalog() {
	raw, err := s.readFile(catalogName)
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, os.ErrNotExist):
		return
	case err != nil:
		s.problems = append(s.problems, &TableError{File: catalogName, Err: err})
		s.catalogBroken = err
		return
	}
	n := len(raw)
	switch {
	case n < len(catalogMagic)+5 || string(raw[:len(catalogMagic)]) != catalogMagic:
		err = corrupt("not a catalog file")
	case raw[len(catalogMagic)] != catalogVersion:
		err = corrupt("catalog version %d; this quiver reads version %d", raw[len(catalogMagic)], catalogVersion)
	case binary.LittleEndian.Uint32(raw[n-4:]) != uint32(xxh3.Hash(raw[:n-4])):
		err = corrupt("catalog checksum mismatch")
	}
	if err != nil {
		s.problems = append(s.problems, &TableError{File: catalogName, Err: err})
		s.catalogBroken = err
		return
	}
	s.catalog = raw[len(catalogMagic)+1 : n-4]
}
