package shuffle

import (
	"fmt"
	"sync"

	"github.com/quiverdb/quiver/codec"
)

// ShuffleStatuses holds the statuses of one shuffle's map tasks, as
// Spark's MapOutputTracker does on the driver: map tasks register their
// status as they finish, and reducers (or the planner) ask for all of them
// in one serialized blob. The blob is built once and kept until a status
// changes (Spark's cachedSerializedStatuses), so a thousand reducers cost
// one serialization. Safe for concurrent use.
type ShuffleStatuses struct {
	partitions int
	codec      codec.Setting

	mu       sync.Mutex
	statuses []*MapStatus
	cached   []byte // nil when a status changed since the last build
	builds   int
}

// NewShuffleStatuses returns an empty set for maps map tasks of
// partitions blocks each, serialized with the codec c (zstd:1 is what
// quiver uses; the zero Setting is none).
func NewShuffleStatuses(maps, partitions int, c codec.Setting) (*ShuffleStatuses, error) {
	if maps < 0 || partitions < 0 {
		return nil, fmt.Errorf("shuffle: %d maps of %d partitions", maps, partitions)
	}
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("shuffle: statuses codec: %w", err)
	}
	return &ShuffleStatuses{partitions: partitions, codec: c, statuses: make([]*MapStatus, maps)}, nil
}

// Register records map m's status (replacing any earlier one, as a
// retried task does) and drops the cached serialization.
func (s *ShuffleStatuses) Register(m int, st *MapStatus) error {
	if n := st.Partitions(); n != s.partitions {
		return fmt.Errorf("shuffle: status of map %d has %d partitions, the shuffle %d", m, n, s.partitions)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if m < 0 || m >= len(s.statuses) {
		return fmt.Errorf("shuffle: map %d of a shuffle of %d maps", m, len(s.statuses))
	}
	s.statuses[m] = st
	s.cached = nil
	return nil
}

// AddMap adds a map task with no status yet and returns its number: for
// a map stage whose tasks are cut as its input comes, whose count is not
// known when the shuffle starts (Shuffle.AddMap).
func (s *ShuffleStatuses) AddMap() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.statuses = append(s.statuses, nil)
	s.cached = nil
	return len(s.statuses) - 1
}

// Maps returns the number of map tasks (SizeSource).
func (s *ShuffleStatuses) Maps() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.statuses)
}

// Partitions returns the number of reduce partitions (SizeSource).
func (s *ShuffleStatuses) Partitions() int { return s.partitions }

// Size returns map m's registered estimate of block p's size (0 for an
// empty block, and for a map with no status yet): the registered
// statuses as a SizeSource, for a planner in the process that holds
// them, without serializing them.
func (s *ShuffleStatuses) Size(m, p int) int64 {
	s.mu.Lock()
	st := s.statuses[m]
	s.mu.Unlock()
	if st == nil {
		return 0
	}
	return st.Size(p)
}

// Unregister forgets map m's status (its output was lost).
func (s *ShuffleStatuses) Unregister(m int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if m >= 0 && m < len(s.statuses) && s.statuses[m] != nil {
		s.statuses[m] = nil
		s.cached = nil
	}
}

// Missing returns how many maps have no status yet.
func (s *ShuffleStatuses) Missing() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, st := range s.statuses {
		if st == nil {
			n++
		}
	}
	return n
}

// Serialized returns the statuses serialized (AppendStatuses), built on
// the first call after a change and shared until the next; callers must
// not modify it.
func (s *ShuffleStatuses) Serialized() ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cached != nil {
		return s.cached, nil
	}
	b, err := AppendStatuses(nil, s.statuses, s.partitions, s.codec)
	if err != nil {
		return nil, err
	}
	s.cached = b
	s.builds++
	return b, nil
}
