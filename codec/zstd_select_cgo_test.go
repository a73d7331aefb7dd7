//go:build cgo && cgozstd

package codec_test

// libzstd reports whether zstd settings use libzstd (build tag cgozstd)
// rather than klauspost/compress.
const libzstd = true
