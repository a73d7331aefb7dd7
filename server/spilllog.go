package server

import (
	"errors"
	"strings"

	"google.golang.org/grpc/status"

	"github.com/quiverdb/quiver/spill"
)

// queryStatus is the status a query's error reaches its client as. Spill
// errors concern files in the server's spill folder, whose path the
// client must not learn: a spill.SpaceError's message leaves the path out
// (the client sees the quota and the bytes), and any other message naming
// the folder (a damaged spill file, a failed read) gets "<spill folder>"
// in its place. The whole error, path and file system error included,
// goes to the server's log.
func (s *Server) queryStatus(sql string, err error) error {
	if err == nil || s.spills == nil {
		return toStatus(err)
	}
	dir := s.spills.Dir()
	msg := err.Error()
	var se *spill.SpaceError
	switch {
	case errors.As(err, &se):
		s.log.Warn("spill failed", "sql", abbreviate(sql), "kind", se.Kind, "file", se.File, "batch", se.Batch,
			"need_bytes", se.Need, "quota_bytes", se.Quota, "used_bytes", se.Used, "fs_err", se.Err)
	case dir != "" && strings.Contains(msg, dir):
		s.log.Warn("spill failed", "sql", abbreviate(sql), "err", msg)
	default:
		return toStatus(err)
	}
	if _, ok := status.FromError(err); ok {
		return err
	}
	return status.Error(codeOf(err), strings.ReplaceAll(msg, dir, "<spill folder>"))
}
