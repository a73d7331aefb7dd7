package codec

import (
	"encoding/binary"
	"math/bits"
)

// XXH32 (https://github.com/Cyan4973/xxHash, doc/xxhash_spec.md) is the
// checksum of the LZ4 frame format: the header check byte, block checksums
// and the content checksum. We keep our own because pierrec's is internal to
// its module; LZ4 frames only ever hash with seed 0, so that is all we need.
// Our own writer sets no checksum flags, so this runs only when reading other
// writers' frames.

const (
	xxhPrime1 uint32 = 2654435761
	xxhPrime2 uint32 = 2246822519
	xxhPrime3 uint32 = 3266489917
	xxhPrime4 uint32 = 668265263
	xxhPrime5 uint32 = 374761393
)

// xxh32 returns the XXH32 hash of b with seed 0.
func xxh32(b []byte) uint32 {
	n := len(b)
	var h uint32
	if n >= 16 {
		// Seed 0: v1 = prime1+prime2, v2 = prime2, v3 = 0, v4 = -prime1,
		// all mod 2^32.
		v1 := uint32(606290984)
		v2 := xxhPrime2
		v3 := uint32(0)
		v4 := uint32(1640531535)
		// Four independent lanes, 16 bytes a round: the loop the spec defines
		// and the only part whose speed matters.
		for ; len(b) >= 16; b = b[16:] {
			v1 = xxhRound(v1, binary.LittleEndian.Uint32(b[0:4]))
			v2 = xxhRound(v2, binary.LittleEndian.Uint32(b[4:8]))
			v3 = xxhRound(v3, binary.LittleEndian.Uint32(b[8:12]))
			v4 = xxhRound(v4, binary.LittleEndian.Uint32(b[12:16]))
		}
		h = bits.RotateLeft32(v1, 1) + bits.RotateLeft32(v2, 7) +
			bits.RotateLeft32(v3, 12) + bits.RotateLeft32(v4, 18)
	} else {
		h = xxhPrime5
	}
	h += uint32(n)
	for ; len(b) >= 4; b = b[4:] {
		h += binary.LittleEndian.Uint32(b) * xxhPrime3
		h = bits.RotateLeft32(h, 17) * xxhPrime4
	}
	for _, c := range b {
		h += uint32(c) * xxhPrime5
		h = bits.RotateLeft32(h, 11) * xxhPrime1
	}
	h ^= h >> 15
	h *= xxhPrime2
	h ^= h >> 13
	h *= xxhPrime3
	h ^= h >> 16
	return h
}

func xxhRound(acc, lane uint32) uint32 {
	return bits.RotateLeft32(acc+lane*xxhPrime2, 13) * xxhPrime1
}
