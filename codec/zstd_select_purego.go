//go:build !(cgo && cgozstd)

package codec

// zstdFor returns the zstd codec at a level: klauspost/compress, pure Go.
// Build with -tags cgozstd (and cgo) for libzstd instead (zstd_cgo.go).
func zstdFor(level int) Codec { return zstdGoFor(level) }
