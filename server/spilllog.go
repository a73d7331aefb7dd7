package server

import (
	"errors"

	"github.com/quiverdb/quiver/spill"
)

// logSpillFailure writes to the server's log what a spill error keeps
// from the client (spill.SpaceError): the file it was writing, in the
// server's spill folder, and the file system's error.
func (s *Server) logSpillFailure(sql string, err error) {
	var se *spill.SpaceError
	if errors.As(err, &se) {
		s.log.Warn("spill failed", "sql", abbreviate(sql), "kind", se.Kind, "file", se.File, "batch", se.Batch,
			"need_bytes", se.Need, "quota_bytes", se.Quota, "used_bytes", se.Used, "fs_err", se.Err)
	}
}
