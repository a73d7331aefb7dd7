//go:build cref

package cref

/*
#cgo LDFLAGS: -llz4 -lzstd
#include <lz4.h>
#include <zstd.h>
*/
import "C"

// Versions names the C libraries linked, as they report themselves at run
// time (not as the headers say), e.g. "liblz4 1.9.4, libzstd 1.5.4".
func Versions() string {
	return "liblz4 " + C.GoString(C.LZ4_versionString()) + ", libzstd " + C.GoString(C.ZSTD_versionString())
}

// headerVersions names the versions of the headers compiled against, in
// Versions' form. A library that reports another version than its header
// is not the one the reference was built for: its numbers in a benchmark
// report would name the wrong C code.
func headerVersions() string {
	return "liblz4 " + C.LZ4_VERSION_STRING + ", libzstd " + C.ZSTD_VERSION_STRING
}
