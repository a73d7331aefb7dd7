package batch

import (
	"io"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/quiverdb/quiver/batch/internal/meta"
)

// pending is a record batch being decoded on its own goroutine.
type pending struct {
	done  chan struct{}
	index int
	rec   arrow.RecordBatch
	err   error
}

// nextPrefetched keeps up to opts.Prefetch record batches decoding ahead
// and returns the oldest. Reading stays on the caller's goroutine, in
// order; a dictionary batch first waits for every record decoding ahead
// (they may use the dictionary it replaces), then is applied at once.
func (s *StreamReader) nextPrefetched() (arrow.RecordBatch, error) {
	for len(s.queue) < s.opts.Prefetch && !s.done && s.readErr == nil {
		s.readErr = s.readAhead()
	}
	if len(s.queue) == 0 {
		if s.readErr != nil {
			s.fail(s.readErr)
			return nil, s.readErr
		}
		return nil, io.EOF
	}
	p := s.queue[0]
	s.queue = s.queue[1:]
	<-p.done
	if p.err != nil {
		s.fail(p.err)
		return nil, p.err
	}
	return p.rec, nil
}

// readAhead reads the next message and starts decoding it.
func (s *StreamReader) readAhead() error {
	msg, err := s.readMeta()
	if err == io.EOF {
		s.done = true
		return nil
	}
	if err != nil {
		return s.wrap(err)
	}
	if msg.Header != meta.HeaderRecordBatch {
		for _, p := range s.queue {
			<-p.done
		}
		b, release, err := s.readMessageBody(msg, true)
		if err != nil {
			return s.wrap(err)
		}
		defer release()
		if _, err := s.dec.decodeMessage(msg, b); err != nil {
			return s.wrap(err)
		}
		return nil
	}
	b, release, err := s.readMessageBody(msg, false)
	if err != nil {
		return s.wrap(err)
	}
	p := &pending{done: make(chan struct{}), index: s.index}
	s.index++
	s.queue = append(s.queue, p)
	go func() {
		defer close(p.done)
		defer release()
		p.rec, p.err = s.dec.decodeMessage(msg, b)
		if p.err != nil {
			p.err = wrapIndex(p.index, p.err)
		}
	}()
	return nil
}

// fail ends the stream at err: batches decoded ahead of a bad one are
// dropped, and every later Next returns err.
func (s *StreamReader) fail(err error) {
	s.err = err
	for _, p := range s.queue {
		<-p.done
		if p.rec != nil {
			p.rec.Release()
		}
	}
	s.queue = nil
}
