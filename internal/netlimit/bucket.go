package netlimit

import (
	"sync"
	"time"
)

// bucket is a token bucket kept as a virtual clock: free is when the link
// will have carried everything granted so far. Granting n bytes moves
// free on by n / rate, and the sender waits until then. free may lag
// now by at most burst, so a link idle for a while lets at most burst
// worth of bytes through at once, and a sender that overslept catches up
// by at most that much.
type bucket struct {
	mu    sync.Mutex
	rate  float64 // bytes per second
	burst time.Duration
	free  time.Time
}

func newBucket(rate int64, burst time.Duration) *bucket {
	return &bucket{rate: float64(rate), burst: burst}
}

// reserve grants n bytes at time now and returns how long to wait before
// sending them (≤ 0: send now).
func (b *bucket) reserve(n int, now time.Time) time.Duration {
	b.mu.Lock()
	defer b.mu.Unlock()
	if floor := now.Add(-b.burst); b.free.Before(floor) {
		b.free = floor
	}
	b.free = b.free.Add(time.Duration(float64(n) / b.rate * float64(time.Second)))
	return b.free.Sub(now)
}
