package query

import (
	"context"
	"io"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
)

// sharedInput lets several workers read one input: each pulls the next
// batch of the input's source (a scan, whose decoding is parallel
// already) under a lock, then runs the filters, projections and
// conversions between the source and the reader on its own (pipeline, as
// a GROUP BY's workers do), so those run in parallel.
type sharedInput struct {
	mu    sync.Mutex
	src   operator
	steps []step
	eof   bool
	held  []arrow.RecordBatch // unread: handed out before the source's
}

func newSharedInput(op operator) *sharedInput {
	src, steps := pipeline(op)
	return &sharedInput{src: src, steps: steps}
}

// next returns the next batch, through the steps (possibly of no rows),
// or io.EOF; after io.EOF the source is not pulled again.
func (s *sharedInput) next(ctx context.Context) (arrow.RecordBatch, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	if len(s.held) > 0 {
		rec := s.held[0]
		s.held = s.held[1:]
		s.mu.Unlock()
		return rec, nil
	}
	if s.eof {
		s.mu.Unlock()
		return nil, io.EOF
	}
	rec, err := s.src.Next(ctx)
	s.eof = err == io.EOF
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	return applySteps(ctx, s.steps, rec)
}

// unread hands recs, batches next returned (through the steps), out
// again before the source's next ones: an ORDER BY by ranges samples its
// first batches, then sorts them with the rest (op_sort_range.go).
func (s *sharedInput) unread(recs []arrow.RecordBatch) {
	s.mu.Lock()
	s.held = append(recs, s.held...)
	s.mu.Unlock()
}

// release frees the batches unread and not handed out again.
func (s *sharedInput) release() {
	s.mu.Lock()
	for _, r := range s.held {
		r.Release()
	}
	s.held = nil
	s.mu.Unlock()
}
