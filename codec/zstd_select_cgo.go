//go:build cgo && cgozstd

package codec

// zstdFor returns the zstd codec at a level: libzstd through cgo, chosen
// by the cgozstd build tag (zstd_cgo.go).
func zstdFor(level int) Codec { return zstdCFor(level) }
