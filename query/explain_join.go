package query

import (
	"fmt"
	"strings"
	"sync/atomic"
	"time"
)

// joinStats are what EXPLAIN ANALYZE reports of a join.
type joinStats struct {
	buildRows, buildBytes, buildNanos atomic.Int64
	probeRows, probeNanos, rowsOut    atomic.Int64
	pairs                             atomic.Int64 // examined by a nested-loop join
}

// String is the join's part of an EXPLAIN ANALYZE line.
func (s *joinStats) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "; build %d rows, %d bytes in %v; probe %d rows in %v summed over workers",
		s.buildRows.Load(), s.buildBytes.Load(), time.Duration(s.buildNanos.Load()).Round(time.Microsecond),
		s.probeRows.Load(), time.Duration(s.probeNanos.Load()).Round(time.Microsecond))
	if p := s.pairs.Load(); p > 0 {
		fmt.Fprintf(&b, ", %d pairs examined", p)
	}
	fmt.Fprintf(&b, "; %d rows out", s.rowsOut.Load())
	return b.String()
}
