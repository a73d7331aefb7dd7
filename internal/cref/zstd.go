//go:build cref

package cref

/*
#cgo LDFLAGS: -lzstd
#include <zstd.h>

// qv_zstd_compress2 writes one frame at level, with or without the
// content checksum, through a context (ZSTD_compress has no checksum
// parameter).
static size_t qv_zstd_compress2(ZSTD_CCtx* c, void* dst, size_t cap, const void* src, size_t n, int level, int checksum) {
	ZSTD_CCtx_reset(c, ZSTD_reset_session_and_parameters);
	size_t r = ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, level);
	if (ZSTD_isError(r)) return r;
	r = ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, checksum);
	if (ZSTD_isError(r)) return r;
	return ZSTD_compress2(c, dst, cap, src, n);
}
*/
import "C"

import (
	"fmt"
	"runtime"
)

func zstdErr(call string, r C.size_t) error {
	return fmt.Errorf("%w: %s: %s", ErrC, call, C.GoString(C.ZSTD_getErrorName(r)))
}

// ZstdCompress appends one zstd frame of src at level, written by
// ZSTD_compress: no checksum, content size in the header.
func ZstdCompress(dst, src []byte, level int) ([]byte, error) {
	bound := int(C.ZSTD_compressBound(C.size_t(len(src))))
	dst = grow(dst, bound)
	out := dst[len(dst) : len(dst)+bound]
	r := C.ZSTD_compress(ptr(out), C.size_t(bound), ptr(src), C.size_t(len(src)), C.int(level))
	if C.ZSTD_isError(r) != 0 {
		return dst, zstdErr("ZSTD_compress", r)
	}
	return dst[:len(dst)+int(r)], nil
}

// ZstdCompressChecksum is ZstdCompress with the frame's XXH64 content
// checksum on (ZSTD_c_checksumFlag).
func ZstdCompressChecksum(dst, src []byte, level int) ([]byte, error) {
	c := C.ZSTD_createCCtx()
	defer C.ZSTD_freeCCtx(c)
	bound := int(C.ZSTD_compressBound(C.size_t(len(src))))
	dst = grow(dst, bound)
	out := dst[len(dst) : len(dst)+bound]
	r := C.qv_zstd_compress2(c, ptr(out), C.size_t(bound), ptr(src), C.size_t(len(src)), C.int(level), 1)
	if C.ZSTD_isError(r) != 0 {
		return dst, zstdErr("ZSTD_compress2", r)
	}
	return dst[:len(dst)+int(r)], nil
}

// ZstdDecoder is a reused ZSTD_DCtx, as a fast C caller would keep one.
// Not safe for concurrent use.
type ZstdDecoder struct{ d *C.ZSTD_DCtx }

// NewZstdDecoder returns a decoder whose context is freed with it.
func NewZstdDecoder() *ZstdDecoder {
	d := C.ZSTD_createDCtx()
	if d == nil {
		panic("cref: ZSTD_createDCtx failed")
	}
	dec := &ZstdDecoder{d: d}
	runtime.AddCleanup(dec, func(d *C.ZSTD_DCtx) { C.ZSTD_freeDCtx(d) }, d)
	return dec
}

// Decompress appends the n bytes the zstd frames in src decode to, with
// ZSTD_decompressDCtx; it fails if they decode to a different size.
func (d *ZstdDecoder) Decompress(dst, src []byte, n int) ([]byte, error) {
	dst = grow(dst, n+1) // one spare byte tells "too large" from "exact"
	out := dst[len(dst) : len(dst)+n+1]
	r := C.ZSTD_decompressDCtx(d.d, ptr(out), C.size_t(n+1), ptr(src), C.size_t(len(src)))
	if C.ZSTD_isError(r) != 0 {
		return dst, zstdErr("ZSTD_decompressDCtx", r)
	}
	if int(r) != n {
		return dst, fmt.Errorf("%w: ZSTD_decompressDCtx: %d bytes decode to %d, want %d", ErrC, len(src), r, n)
	}
	return dst[:len(dst)+n], nil
}
