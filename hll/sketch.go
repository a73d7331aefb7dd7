package hll

import (
	"math"
	"math/bits"
)

// Precision is the number of hash bits that pick a register.
const Precision = 12

const (
	registers = 1 << Precision
	indexMask = registers - 1
	// q is the hash bits left for ρ; a register is at most q+1.
	q      = 64 - Precision
	maxRho = q + 1
)

// A Sketch estimates the distinct hashes inserted into it. The zero value
// is an empty sketch. A Sketch is not safe for concurrent use.
type Sketch struct {
	regs []uint8 // nil until the first Insert or Merge of a non-empty sketch
}

// Insert adds one hash.
func (s *Sketch) Insert(h uint64) {
	if s.regs == nil {
		s.regs = make([]uint8, registers)
	}
	insert(s.regs, h)
}

// InsertMany adds hashes, the loop Put runs per column.
func (s *Sketch) InsertMany(hs []uint64) {
	if len(hs) == 0 {
		return
	}
	if s.regs == nil {
		s.regs = make([]uint8, registers)
	}
	regs := s.regs[:registers]
	for _, h := range hs {
		insert(regs, h)
	}
}

func insert(regs []uint8, h uint64) {
	// The sentinel bit caps ρ at q+1 when the q high bits are all zero.
	r := uint8(bits.TrailingZeros64(h>>Precision|1<<q)) + 1
	i := h & indexMask
	if r > regs[i] {
		regs[i] = r
	}
}

// Merge makes s the sketch of the union of s's and o's hashes.
func (s *Sketch) Merge(o *Sketch) {
	if o == nil || o.regs == nil {
		return
	}
	if s.regs == nil {
		s.regs = make([]uint8, registers)
	}
	dst := s.regs[:registers]
	for i, r := range o.regs[:registers] {
		dst[i] = max(dst[i], r)
	}
}

// Clone returns an independent copy of s.
func (s *Sketch) Clone() *Sketch {
	c := &Sketch{}
	if s.regs != nil {
		c.regs = append([]uint8(nil), s.regs...)
	}
	return c
}

// Empty reports whether nothing was inserted.
func (s *Sketch) Empty() bool {
	for _, r := range s.regs {
		if r != 0 {
			return false
		}
	}
	return true
}

// Equal reports whether two sketches hold the same registers.
func (s *Sketch) Equal(o *Sketch) bool {
	if s.Empty() || o.Empty() {
		return s.Empty() == o.Empty()
	}
	return string(s.regs) == string(o.regs)
}

// Estimate returns the estimated number of distinct hashes inserted
// (Ertl 2017, "improved raw estimator"; doc.go).
func (s *Sketch) Estimate() uint64 {
	if s.regs == nil {
		return 0
	}
	var c [maxRho + 1]int // registers per value
	for _, r := range s.regs[:registers] {
		c[r]++
	}
	if c[0] == registers {
		return 0
	}
	const m = float64(registers)
	z := m * tau(1-float64(c[maxRho])/m)
	for k := q; k >= 1; k-- {
		z = 0.5 * (z + float64(c[k]))
	}
	z += m * sigma(float64(c[0])/m)
	const alphaInf = 0.5 / math.Ln2
	return uint64(math.Round(alphaInf * m * m / z))
}

// sigma is σ(x) = x + Σ_{k≥1} x^(2^k) 2^(k-1), for x in [0, 1).
func sigma(x float64) float64 {
	if x == 1 {
		return math.Inf(1)
	}
	y, z := 1.0, x
	for {
		x *= x
		prev := z
		z += x * y
		y += y
		if z == prev {
			return z
		}
	}
}

// tau is τ(x) = (1 - x - Σ_{k≥1} (1 - x^(2^-k))² 2^-k) / 3, for x in [0, 1].
func tau(x float64) float64 {
	if x == 0 || x == 1 {
		return 0
	}
	y, z := 1.0, 1-x
	for {
		x = math.Sqrt(x)
		prev := z
		y *= 0.5
		z -= (1 - x) * (1 - x) * y
		if z == prev {
			return z / 3
		}
	}
}

// Mix is a bijective 64-bit finalizer (MurmurHash3's fmix64): the hash of
// a fixed-width value, uniform enough for HyperLogLog's register index and
// trailing-zero count.
func Mix(x uint64) uint64 {
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	x *= 0xc4ceb9fe1a85ec53
	x ^= x >> 33
	return x
}
