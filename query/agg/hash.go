package agg

import (
	"math"
	"math/bits"
	"math/rand/v2"

	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// Row hashes are built one key column at a time: every row starts at a
// seed and each column folds its value into it with mix, a 64×64→128
// multiply folded to 64 bits (wyhash's mum). Strings longer than 8 bytes
// are first reduced to 64 bits by XXH3 seeded with the running hash. A
// NULL folds in nullHash instead of a value, so NULL is a key like any
// other; the validity bits still decide equality.
//
// Every table draws its seed at random (newSeed), so keys crafted to
// collide for one process do not collide for another: group ids and their
// order never depend on hash values.
const (
	nullHash = 0x2d358dccaa6c78a5
	mixK0    = 0xa0761d6478bd642f
	mixK1    = 0xe7037ed1a0b428db
)

// newSeed returns a random hash seed.
func newSeed() uint64 { return rand.Uint64() }

// mix folds v into the running hash h.
func mix(h, v uint64) uint64 {
	hi, lo := bits.Mul64(h^mixK0, v^mixK1)
	return hi ^ lo
}

// canonicalFloat returns the bits that stand for f as a group key or a
// distinct value: -0.0 is 0.0 and every NaN is one NaN, as SQL compares
// them.
func canonicalFloat(f float64) uint64 {
	switch {
	case f == 0:
		return 0
	case f != f:
		return 0x7ff8000000000000
	}
	return math.Float64bits(f)
}

// integer is the fixed-width key storage hashed as one 64-bit word.
type integer interface {
	~int64 | ~int32 | ~uint64 | ~uint32 | ~uint8
}

// hashInts folds vals[r] (or nullHash where the validity bit at off+r is
// clear) into h[r] for every r in rows.
func hashInts[T integer](h []uint64, vals []T, valid []byte, off int, rows []uint32) {
	if valid == nil {
		for _, r := range rows {
			h[r] = mix(h[r], uint64(vals[r]))
		}
		return
	}
	for _, r := range rows {
		v := uint64(nullHash)
		if bitutil.BitIsSet(valid, off+int(r)) {
			v = uint64(vals[r])
		}
		h[r] = mix(h[r], v)
	}
}

// hashDecimals is hashInts for 128-bit decimals: both words are folded in.
func hashDecimals(h []uint64, vals []decimal128.Num, valid []byte, off int, rows []uint32) {
	for _, r := range rows {
		if valid != nil && !bitutil.BitIsSet(valid, off+int(r)) {
			h[r] = mix(h[r], nullHash)
			continue
		}
		v := vals[r]
		h[r] = mix(mix(h[r], v.LowBits()), uint64(v.HighBits()))
	}
}
