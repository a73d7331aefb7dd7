package extsort

import (
	"github.com/apache/arrow-go/v18/arrow"
)

// prefetch reads a run one batch ahead on a goroutine of its own, so that
// reading, checking and decompressing a spill file's next batch (or
// gathering the in-memory run's next chunk) overlaps the merge of the
// current one. The source is touched only by that goroutine until it ends.
type prefetch struct {
	src  Source
	ch   chan arrow.RecordBatch
	stop chan struct{}
	done chan struct{}
	cur  arrow.RecordBatch
	err  error // the source's, once ch is closed
}

func newPrefetch(src Source) *prefetch {
	p := &prefetch{src: src, ch: make(chan arrow.RecordBatch), stop: make(chan struct{}), done: make(chan struct{})}
	go p.loop()
	return p
}

func (p *prefetch) loop() {
	defer close(p.done)
	defer close(p.ch)
	for p.src.Next() {
		rec := p.src.RecordBatch()
		rec.Retain()
		select {
		case p.ch <- rec:
		case <-p.stop:
			rec.Release()
			return
		}
	}
	p.err = p.src.Err()
}

func (p *prefetch) Next() bool {
	if p.cur != nil {
		p.cur.Release()
		p.cur = nil
	}
	rec, ok := <-p.ch
	if !ok {
		<-p.done
		return false
	}
	p.cur = rec
	return true
}

func (p *prefetch) RecordBatch() arrow.RecordBatch { return p.cur }

// Err is the source's error once Next has returned false.
func (p *prefetch) Err() error { return p.err }

// Release stops the goroutine, then releases the source.
func (p *prefetch) Release() {
	if p.cur != nil {
		p.cur.Release()
		p.cur = nil
	}
	close(p.stop)
	<-p.done
	p.src.Release()
}
