//go:build cref

// Package cref wraps Debian's C liblz4 and libzstd, the reference
// implementations, so tests can prove quiver's codec speaks their formats
// both ways and benchmarks can hold its speed against theirs.
//
// It is test and benchmark machinery, never linked into quiver itself:
// every file sits behind the cref build tag, and building it needs
//
//	apt-get install -y liblz4-dev libzstd-dev
//	go test -tags cref ./internal/cref
//
// Do not link github.com/DataDog/zstd into the same binary: it bundles its
// own zstd and the linker then binds every ZSTD_* symbol here to that copy
// (reference/codecs.md A.6, trap 3). Versions reports what was linked.
//
// The functions are append-style like quiver's codecs: Compress(dst, src)
// and Decompress(dst, src, n) append to dst and return it.
package cref
