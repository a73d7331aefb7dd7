//go:build cgo && cgozstd

package codec

// ZstdGo is the pure-Go (klauspost) zstd codec at a level, which the
// cgozstd build replaces in New; its tests check that the two interoperate.
func ZstdGo(level int) Codec { return zstdGoFor(level) }
