package tpcds

import (
	"math/bits"
	"math/rand/v2"
)

// rng is the generator's one random stream: PCG (math/rand/v2), drawn in
// a fixed order per order and per line, so a seed fixes every value.
// dsdgen keeps a stream per column; one stream is enough here because
// nothing needs to seek to a row.
type rng struct{ p rand.PCG }

func newRNG(seed uint64) *rng {
	r := &rng{}
	// The second word is fixed: PCG needs two, the Config has one.
	r.p.Seed(seed, 0x9e3779b97f4a7c15)
	return r
}

// between returns a uniform integer in [lo, hi]. Lemire's multiply-shift
// without the rejection step: the bias is below (hi-lo+1)/2^64, far under
// anything a test of this data could see.
func (r *rng) between(lo, hi int64) int64 {
	n := uint64(hi - lo + 1)
	x, _ := bits.Mul64(r.p.Uint64(), n)
	return lo + int64(x)
}

// bits31 returns dsdgen's null bitmap draw: uniform in [1, 2^31-1].
func (r *rng) bits31() int64 { return r.between(1, 1<<31-1) }

func trailingZeros(x uint64) int { return bits.TrailingZeros64(x) }
