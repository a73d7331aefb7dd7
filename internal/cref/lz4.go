//go:build cref

package cref

/*
#cgo LDFLAGS: -llz4
#include <stdlib.h>
#include <string.h>
#include <lz4.h>
#include <lz4frame.h>

// qv_lz4f_decode decodes one whole frame from src into dst with one
// context, looping over LZ4F_decompress as its contract asks. It returns 0
// on success, 1 on an LZ4F error (code in *err), 2 when src ends inside
// the frame, 3 when dst is full before the frame ends.
static int qv_lz4f_decode(LZ4F_dctx* d, char* dst, size_t dstCap, const char* src, size_t srcLen,
                          size_t* written, size_t* consumed, size_t* err) {
	LZ4F_decompressOptions_t opt;
	memset(&opt, 0, sizeof opt);
	opt.stableDst = 1; // dst holds the whole frame: linked blocks need no copy
	size_t in = 0, out = 0;
	for (;;) {
		size_t dn = dstCap - out, sn = srcLen - in;
		size_t r = LZ4F_decompress(d, dst + out, &dn, src + in, &sn, &opt);
		if (LZ4F_isError(r)) {
			LZ4F_resetDecompressionContext(d);
			*err = r;
			return 1;
		}
		in += sn;
		out += dn;
		if (r == 0) break;
		if (sn == 0 && dn == 0) {
			LZ4F_resetDecompressionContext(d);
			*written = out;
			return in == srcLen ? 2 : 3;
		}
	}
	*written = out;
	*consumed = in;
	return 0;
}
*/
import "C"

import (
	"errors"
	"fmt"
	"runtime"
	"unsafe"
)

// LZ4BlockSize is an LZ4 frame's maximum block size (the BD byte).
type LZ4BlockSize int

// Block sizes liblz4 can write; 0 is liblz4's default (64 KiB).
const (
	LZ4Block64KiB  LZ4BlockSize = C.LZ4F_max64KB
	LZ4Block256KiB LZ4BlockSize = C.LZ4F_max256KB
	LZ4Block1MiB   LZ4BlockSize = C.LZ4F_max1MB
	LZ4Block4MiB   LZ4BlockSize = C.LZ4F_max4MB
)

// LZ4FOptions are the LZ4F_preferences_t fields tests vary. The zero value
// is liblz4's default frame but with independent blocks (liblz4 links
// them by default): 64 KiB blocks, no checksums, no content size, fast
// level.
type LZ4FOptions struct {
	BlockSize       LZ4BlockSize
	Linked          bool // blocks may refer to the previous 64 KiB
	ContentChecksum bool // XXH32 of the content after the end mark
	BlockChecksum   bool // XXH32 after every block
	ContentSize     bool // the 8-byte content size in the header
	Level           int  // 0 fast; ≥ 3 LZ4HC
}

func (o LZ4FOptions) prefs(srcLen int) C.LZ4F_preferences_t {
	var p C.LZ4F_preferences_t
	p.frameInfo.blockSizeID = C.LZ4F_blockSizeID_t(o.BlockSize)
	p.frameInfo.blockMode = C.LZ4F_blockIndependent
	if o.Linked {
		p.frameInfo.blockMode = C.LZ4F_blockLinked
	}
	if o.ContentChecksum {
		p.frameInfo.contentChecksumFlag = C.LZ4F_contentChecksumEnabled
	}
	if o.BlockChecksum {
		p.frameInfo.blockChecksumFlag = C.LZ4F_blockChecksumEnabled
	}
	if o.ContentSize {
		p.frameInfo.contentSize = C.ulonglong(srcLen)
	}
	p.compressionLevel = C.int(o.Level)
	return p
}

// ErrC is matched by every error a C library reports.
var ErrC = errors.New("cref: C library error")

// ptr is the address of b's first byte, valid for empty slices too.
func ptr(b []byte) unsafe.Pointer { return unsafe.Pointer(unsafe.SliceData(b)) }

// grow returns dst with room for n more bytes past its length.
func grow(dst []byte, n int) []byte {
	if cap(dst)-len(dst) < n {
		dst = append(dst[:len(dst):len(dst)], make([]byte, n)...)[:len(dst)]
	}
	return dst
}

// LZ4FCompressFrame appends one LZ4 frame of src written by
// LZ4F_compressFrame. liblz4 shrinks the block size to fit a small src and
// writes a frame of one block as independent.
func LZ4FCompressFrame(dst, src []byte, o LZ4FOptions) ([]byte, error) {
	p := o.prefs(len(src))
	bound := int(C.LZ4F_compressFrameBound(C.size_t(len(src)), &p))
	dst = grow(dst, bound)
	out := dst[len(dst) : len(dst)+bound]
	r := C.LZ4F_compressFrame(ptr(out), C.size_t(bound), ptr(src), C.size_t(len(src)), &p)
	if C.LZ4F_isError(r) != 0 {
		return dst, fmt.Errorf("%w: LZ4F_compressFrame: %s", ErrC, C.GoString(C.LZ4F_getErrorName(r)))
	}
	return dst[:len(dst)+int(r)], nil
}

// LZ4FDecoder is a reused LZ4F decompression context. Not safe for
// concurrent use.
type LZ4FDecoder struct{ d *C.LZ4F_dctx }

// NewLZ4FDecoder returns a decoder; Close frees it.
func NewLZ4FDecoder() *LZ4FDecoder {
	var d *C.LZ4F_dctx
	if r := C.LZ4F_createDecompressionContext(&d, C.LZ4F_VERSION); C.LZ4F_isError(r) != 0 {
		panic("cref: LZ4F_createDecompressionContext: " + C.GoString(C.LZ4F_getErrorName(r)))
	}
	dec := &LZ4FDecoder{d: d}
	runtime.AddCleanup(dec, func(d *C.LZ4F_dctx) { C.LZ4F_freeDecompressionContext(d) }, d)
	return dec
}

// Decompress appends the n bytes one LZ4 frame in src decodes to. It
// fails if the frame decodes to a different size or src holds more than
// the frame.
func (d *LZ4FDecoder) Decompress(dst, src []byte, n int) ([]byte, error) {
	dst = grow(dst, n+1) // one spare byte tells "too large" from "exact"
	out := dst[len(dst) : len(dst)+n+1]
	var written, consumed, code C.size_t
	switch C.qv_lz4f_decode(d.d, (*C.char)(ptr(out)), C.size_t(n+1), (*C.char)(ptr(src)), C.size_t(len(src)), &written, &consumed, &code) {
	case 1:
		return dst, fmt.Errorf("%w: LZ4F_decompress: %s", ErrC, C.GoString(C.LZ4F_getErrorName(code)))
	case 2:
		return dst, fmt.Errorf("%w: LZ4F_decompress: input ends inside the frame after %d bytes decoded", ErrC, written)
	case 3:
		return dst, fmt.Errorf("%w: LZ4F_decompress: frame decodes to more than %d bytes", ErrC, n)
	}
	if int(written) != n || int(consumed) != len(src) {
		return dst, fmt.Errorf("%w: LZ4F_decompress: decoded %d bytes (want %d) from %d of %d input bytes", ErrC, written, n, consumed, len(src))
	}
	return dst[:len(dst)+n], nil
}

// LZ4FDecompress is Decompress with a one-off context.
func LZ4FDecompress(dst, src []byte, n int) ([]byte, error) {
	return NewLZ4FDecoder().Decompress(dst, src, n)
}

// LZ4DecompressSafe appends what one LZ4 block (not a frame) decodes to,
// given at most n bytes, with LZ4_decompress_safe.
func LZ4DecompressSafe(dst, src []byte, n int) ([]byte, error) {
	dst = grow(dst, n)
	out := dst[len(dst) : len(dst)+n]
	r := C.LZ4_decompress_safe((*C.char)(ptr(src)), (*C.char)(ptr(out)), C.int(len(src)), C.int(n))
	if r < 0 {
		return dst, fmt.Errorf("%w: LZ4_decompress_safe: malformed block of %d bytes (code %d)", ErrC, len(src), r)
	}
	return dst[:len(dst)+int(r)], nil
}

// LZ4CompressDefault appends src compressed as one LZ4 block with
// LZ4_compress_default.
func LZ4CompressDefault(dst, src []byte) ([]byte, error) {
	bound := int(C.LZ4_compressBound(C.int(len(src))))
	dst = grow(dst, bound)
	out := dst[len(dst) : len(dst)+bound]
	r := C.LZ4_compress_default((*C.char)(ptr(src)), (*C.char)(ptr(out)), C.int(len(src)), C.int(bound))
	if r <= 0 && len(src) > 0 {
		return dst, fmt.Errorf("%w: LZ4_compress_default failed on %d bytes", ErrC, len(src))
	}
	return dst[:len(dst)+int(r)], nil
}
