package cache

import "sync"

// The budget is a cache over restored batches (Restore, a batch with a
// Load) and batches committed with Change.Sources: their chunks count
// against it while held, and are dropped, oldest read first, to make room
// for a read or a put that would pass it; the next scan that needs them
// reads them again. Batches put without sources are never dropped: they
// exist nowhere else.
//
// A scan holding a batch's chunks while they are dropped keeps them
// until it is done with the batch, so memory may pass the budget by what
// running scans decode at once.

// evictQueue holds the restored batches whose chunks are held, in the
// order they were read.
type evictQueue struct {
	mu sync.Mutex
	q  []*lazyChunks
}

// admit counts n bytes read from a restored batch against the budget,
// dropping others' chunks to make room; false when even that does not
// make room (the reader uses the bytes once without keeping them).
func (c *Cache) admit(n int64) bool {
	for {
		if c.used.Add(n) <= c.opts.Budget {
			return true
		}
		c.used.Add(-n)
		if !c.evictOne() {
			return false
		}
	}
}

// evictOne drops the chunks of the restored batch read longest ago;
// false when none is held.
func (c *Cache) evictOne() bool {
	for {
		c.evict.mu.Lock()
		if len(c.evict.q) == 0 {
			c.evict.mu.Unlock()
			return false
		}
		l := c.evict.q[0]
		c.evict.q[0] = nil
		c.evict.q = c.evict.q[1:]
		l.queued = false
		c.evict.mu.Unlock()
		if l.drop() {
			return true
		}
	}
}

// enqueue records that l's chunks are held.
func (c *Cache) enqueue(l *lazyChunks) {
	c.evict.mu.Lock()
	defer c.evict.mu.Unlock()
	if !l.queued {
		l.queued = true
		c.evict.q = append(c.evict.q, l)
	}
}

// forget drops the chunks held by t's restored batches, and them from
// the queue: t was dropped or replaced.
func (c *Cache) forget(t *table) { c.forgetEntries(t.entries) }

// forgetEntries drops the chunks held by the restored batches among
// entries, and them from the queue.
func (c *Cache) forgetEntries(entries []*entry) {
	gone := map[*lazyChunks]bool{}
	for _, e := range entries {
		if e.lazy != nil {
			e.lazy.drop()
			gone[e.lazy] = true
		}
	}
	if len(gone) == 0 {
		return
	}
	c.evict.mu.Lock()
	defer c.evict.mu.Unlock()
	kept := c.evict.q[:0]
	for _, l := range c.evict.q {
		if gone[l] {
			l.queued = false
		} else {
			kept = append(kept, l)
		}
	}
	clear(c.evict.q[len(kept):])
	c.evict.q = kept
}

// drop lets go of l's chunks and gives back their budget; false when it
// held none.
func (l *lazyChunks) drop() bool {
	l.mu.Lock()
	held := l.chunks != nil
	l.chunks = nil
	l.mu.Unlock()
	if held {
		l.c.used.Add(-l.size)
	}
	return held
}

// held is the bytes t's batches put in this process count against the
// budget (restored batches count on their own, while read).
func (t *table) held() int64 {
	var n int64
	for _, e := range t.entries {
		if e.lazy == nil {
			n += e.size()
		}
	}
	return n
}

// MakeRoom drops chunks of restored batches (read longest ago first)
// until the cache holds at most Budget()-n bytes, so that n bytes held
// outside it (a server's uploads in progress) fit; it reports whether
// they do. Batches put without sources are never dropped.
func (c *Cache) MakeRoom(n int64) bool {
	for c.used.Load()+n > c.opts.Budget {
		if !c.evictOne() {
			return false
		}
	}
	return true
}
