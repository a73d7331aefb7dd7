package store

import (
	"context"
	"sync"
	"time"
)

// background compacts the tables changes queue, one at a time, on one
// goroutine, so that an Append returns as soon as its own change is
// durable.
type background struct {
	s      *Store
	ctx    context.Context
	cancel context.CancelFunc
	wake   chan struct{}
	done   chan struct{}

	mu      sync.Mutex
	pending []string // in the order queued, each once
	busy    bool     // compacting a table taken off pending
}

// startBackground starts the compacting goroutine and queues the tables
// Open found due (a restart after a crash mid-compaction finishes it).
func (s *Store) startBackground() {
	ctx, cancel := context.WithCancel(context.Background())
	b := &background{s: s, ctx: ctx, cancel: cancel, wake: make(chan struct{}, 1), done: make(chan struct{})}
	s.bg = b
	for name, t := range s.tables {
		s.queueIfDue(name, t)
	}
	go b.run()
}

// queueIfDue queues table name when its manifest calls for a compaction;
// t.mu is held, or t not yet shared.
func (s *Store) queueIfDue(name string, t *tableState) {
	if s.bg != nil && s.compaction.due(t.m) {
		s.bg.queue(name)
	}
}

func (b *background) queue(name string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, p := range b.pending {
		if p == name {
			return
		}
	}
	b.pending = append(b.pending, name)
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

func (b *background) next() (string, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.pending) == 0 {
		return "", false
	}
	name := b.pending[0]
	b.pending = b.pending[1:]
	b.busy = true
	return name, true
}

// idle reports whether nothing is queued or running (for tests).
func (b *background) idle() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.pending) == 0 && !b.busy
}

// stop abandons a compaction in progress (its files are removed, or
// removed at the next Open) and waits for the goroutine; nil-safe.
func (b *background) stop() {
	if b == nil {
		return
	}
	b.cancel()
	<-b.done
}

func (b *background) run() {
	defer close(b.done)
	for {
		select {
		case <-b.ctx.Done():
			return
		case <-b.wake:
		}
		for name, ok := b.next(); ok && b.ctx.Err() == nil; name, ok = b.next() {
			b.compact(name)
			b.mu.Lock()
			b.busy = false
			b.mu.Unlock()
		}
	}
}

// compact compacts table name until it is no longer due.
func (b *background) compact(name string) {
	s := b.s
	for b.ctx.Err() == nil {
		start := time.Now()
		did, err := s.Compact(b.ctx, name)
		if err != nil {
			if b.ctx.Err() == nil {
				s.log.Warn("compaction failed; the table is unchanged and is compacted again after its next change", "table", name, "error", err)
			}
			return
		}
		if !did {
			return
		}
		t, err := s.state(name)
		if err != nil {
			return
		}
		t.mu.Lock()
		m := t.m
		due := s.compaction.due(m)
		t.mu.Unlock()
		if m != nil {
			s.log.Info("table compacted", "table", name, "chunk_files", len(m.files), "batches", len(m.img.Batches), "ms", time.Since(start).Milliseconds())
		}
		if !due {
			return
		}
	}
}
