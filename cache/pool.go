package cache

import (
	"context"
	"fmt"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
)

// pool encodes a put's batches on the builder's goroutines. Batches are
// numbered as they are submitted and stored by number, so the table keeps
// the reader's order whatever order the goroutines finish in.
type pool struct {
	b      *builder
	ctx    context.Context
	cancel context.CancelFunc
	jobs   chan job
	wg     sync.WaitGroup
	once   sync.Once
	err    error
}

type job struct {
	index int
	rec   arrow.RecordBatch
}

func (b *builder) startPool(ctx context.Context, cancel context.CancelFunc) *pool {
	p := &pool{b: b, ctx: ctx, cancel: cancel, jobs: make(chan job, b.concurrency)}
	for range b.concurrency {
		p.wg.Add(1)
		go p.work()
	}
	return p
}

// submit queues rec (retained for the worker) as the next batch.
func (p *pool) submit(rec arrow.RecordBatch) {
	rec.Retain()
	p.b.mu.Lock()
	i := len(p.b.entries)
	p.b.entries = append(p.b.entries, nil)
	p.b.names = append(p.b.names, nil)
	p.b.mu.Unlock()
	select {
	case p.jobs <- job{index: i, rec: rec}:
	case <-p.ctx.Done():
		rec.Release()
	}
}

func (p *pool) work() {
	defer p.wg.Done()
	enc := &chunkEncoder{encodings: p.b.encodings, mem: p.b.mem}
	dec := &chunkDecoder{mem: p.b.mem}
	sk := &sketcher{sketches: newSketches(p.b.out)}
	defer p.b.mergeSketches(sk)
	for j := range p.jobs {
		if p.ctx.Err() != nil {
			j.rec.Release()
			continue
		}
		e, names, err := p.b.encodeRecord(p.ctx, enc, dec, sk, j.rec)
		j.rec.Release()
		if err == nil {
			err = p.b.reserve(e.size())
		}
		if err != nil {
			p.fail(fmt.Errorf("%w (batch %d)", err, j.index))
			continue
		}
		p.b.store(j.index, e, names)
	}
}

// fail records the first error and stops the put.
func (p *pool) fail(err error) {
	p.once.Do(func() {
		p.err = err
		p.cancel()
	})
}

// wait lets the workers drain and returns the put's error, if any.
func (p *pool) wait(ctx context.Context) error {
	close(p.jobs)
	p.wg.Wait()
	if p.err != nil {
		return p.err
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("cache: table %q: put stopped: %w", p.b.name, err)
	}
	return nil
}
