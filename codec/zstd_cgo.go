//go:build cgo && cgozstd

package codec

/*
#cgo LDFLAGS: -lzstd
#cgo noescape ZSTD_compress2
#cgo nocallback ZSTD_compress2
#cgo noescape ZSTD_decompressDCtx
#cgo nocallback ZSTD_decompressDCtx
#cgo noescape qv_zstd_scan
#cgo nocallback qv_zstd_scan
#include <zstd.h>
#include <zstd_errors.h>

// qv_zstd_scan walks the frames in src (skippable ones included) without
// decoding them. It returns 0 or the zstd error code of the first frame
// that does not parse. *total is the sum of the frames' declared content
// sizes, ZSTD_CONTENTSIZE_UNKNOWN if one does not declare it, saturated
// below that on overflow; *window is the largest window a frame that is
// not single-segment asks for. One-shot decoding ignores
// ZSTD_d_windowLogMax, so the window limit is checked here.
static size_t qv_zstd_scan(const void* src, size_t n, unsigned long long* total, unsigned long long* window) {
	const unsigned char* p = (const unsigned char*)src;
	const unsigned long long most = ZSTD_CONTENTSIZE_ERROR - 1;
	*total = 0;
	*window = 0;
	while (n > 0) {
		size_t size = ZSTD_findFrameCompressedSize(p, n);
		if (ZSTD_isError(size)) return size;
		unsigned long long fcs = ZSTD_getFrameContentSize(p, size);
		if (fcs == ZSTD_CONTENTSIZE_ERROR) return (size_t)-ZSTD_error_corruption_detected;
		if (fcs == ZSTD_CONTENTSIZE_UNKNOWN || *total == ZSTD_CONTENTSIZE_UNKNOWN) {
			*total = ZSTD_CONTENTSIZE_UNKNOWN;
		} else {
			*total = fcs > most - *total ? most : *total + fcs;
		}
		unsigned magic = p[0] | p[1] << 8 | p[2] << 16 | (unsigned)p[3] << 24;
		if (magic == ZSTD_MAGICNUMBER && !(p[4] & 0x20)) { // not single-segment
			unsigned long long base = 1ULL << (10 + (p[5] >> 3));
			unsigned long long w = base + (base >> 3) * (p[5] & 7);
			if (w > *window) *window = w;
		}
		p += size;
		n -= size;
	}
	return 0;
}
*/
import "C"

import (
	"fmt"
	"runtime"
	"slices"
	"sync"
	"unsafe"

	"github.com/quiverdb/quiver/internal/bufs"
)

// zstd through libzstd (cgo, build tag cgozstd): ZSTD_compress2 on pooled
// compression contexts, one pool per level, and ZSTD_decompressDCtx on
// pooled decompression contexts. Contexts are scratch state, freed by a
// cleanup when the pool drops them. Frames are what libzstd writes by
// default at the level: no checksum, content size in the header, the
// level's window (shrunk to the input when it is smaller, which makes the
// frame single-segment).

// zstdCCodec writes zstd frames at one level with libzstd and reads any
// zstd frames with it.
type zstdCCodec struct {
	level int
	cctx  *sync.Pool // of *zstdCCtx at level
}

// zstdCPools holds one context pool per level, built on first use.
var zstdCPools sync.Map // level → *sync.Pool

func zstdCFor(level int) zstdCCodec {
	level = Setting{Kind: Zstd, Level: level}.normalized().Level
	p, ok := zstdCPools.Load(level)
	if !ok {
		p, _ = zstdCPools.LoadOrStore(level, &sync.Pool{New: func() any { return newZstdCCtx(level) }})
	}
	return zstdCCodec{level: level, cctx: p.(*sync.Pool)}
}

type zstdCCtx struct{ c *C.ZSTD_CCtx }

func newZstdCCtx(level int) *zstdCCtx {
	c := C.ZSTD_createCCtx()
	if c == nil {
		panic("codec: ZSTD_createCCtx failed")
	}
	for _, p := range [...]struct {
		param C.ZSTD_cParameter
		value int
	}{
		{C.ZSTD_c_compressionLevel, level},
		{C.ZSTD_c_checksumFlag, 0}, // as klauspost's WithEncoderCRC(false)
		{C.ZSTD_c_contentSizeFlag, 1},
	} {
		if r := C.ZSTD_CCtx_setParameter(c, p.param, C.int(p.value)); C.ZSTD_isError(r) != 0 {
			C.ZSTD_freeCCtx(c)
			panic(fmt.Sprintf("codec: zstd parameter %d = %d: %s", p.param, p.value, C.GoString(C.ZSTD_getErrorName(r))))
		}
	}
	x := &zstdCCtx{c: c}
	runtime.AddCleanup(x, func(c *C.ZSTD_CCtx) { C.ZSTD_freeCCtx(c) }, c)
	return x
}

type zstdDCtx struct{ d *C.ZSTD_DCtx }

var zstdDCtxPool = sync.Pool{New: func() any {
	d := C.ZSTD_createDCtx()
	if d == nil {
		panic("codec: ZSTD_createDCtx failed")
	}
	// Only streaming decoders use this limit; qv_zstd_scan applies it
	// to one-shot decoding.
	if r := C.ZSTD_DCtx_setParameter(d, C.ZSTD_d_windowLogMax, 27); C.ZSTD_isError(r) != 0 {
		C.ZSTD_freeDCtx(d)
		panic("codec: ZSTD_d_windowLogMax: " + C.GoString(C.ZSTD_getErrorName(r)))
	}
	x := &zstdDCtx{d: d}
	runtime.AddCleanup(x, func(d *C.ZSTD_DCtx) { C.ZSTD_freeDCtx(d) }, d)
	return x
}}

func (c zstdCCodec) Setting() Setting { return Setting{Kind: Zstd, Level: c.level} }

// CompressBound is ZSTD_COMPRESSBOUND, as for the pure-Go codec.
func (zstdCCodec) CompressBound(n int) int { return zstdCodec{}.CompressBound(n) }

// bytesPtr is the address of b's first element, or nil when b is empty:
// cgo may only be given pointers to Go memory that exists.
func bytesPtr(b []byte) unsafe.Pointer {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Pointer(&b[0])
}

// Compress appends one frame. ZSTD_compress2 with a destination of at
// least ZSTD_compressBound bytes cannot fail, so an error is a bug.
func (c zstdCCodec) Compress(dst, src []byte) []byte {
	base, bound := len(dst), c.CompressBound(len(src))
	dst = slices.Grow(dst, bound)
	out := dst[base : base+bound]
	x := c.cctx.Get().(*zstdCCtx)
	r := C.ZSTD_compress2(x.c, bytesPtr(out), C.size_t(len(out)), bytesPtr(src), C.size_t(len(src)))
	c.cctx.Put(x)
	if C.ZSTD_isError(r) != 0 {
		panic(fmt.Sprintf("codec: ZSTD_compress2 of %d bytes into %d: %s", len(src), bound, C.GoString(C.ZSTD_getErrorName(r))))
	}
	return dst[:base+int(r)]
}

// Decompress decodes the zstd frames in src into exactly n bytes appended
// to dst. Frames that declare their content size are checked against n
// before anything is decoded; ZSTD_decompressDCtx then never writes past
// the n-byte window.
func (zstdCCodec) Decompress(dst, src []byte, n int) ([]byte, error) {
	if err := checkSize(n); err != nil {
		return dst, err
	}
	if len(src) == 0 {
		return dst, fmt.Errorf("%w: zstd: empty input has no frame", ErrCorrupt)
	}
	if n/zstdMaxRatio > len(src) {
		return dst, fmt.Errorf("%w: zstd: %d input bytes cannot decode to %d", ErrTooSmall, len(src), n)
	}
	var total, window C.ulonglong
	if r := C.qv_zstd_scan(bytesPtr(src), C.size_t(len(src)), &total, &window); C.ZSTD_isError(r) != 0 {
		return dst, zstdCError(r, len(src), n)
	}
	if window > zstdMaxWindow {
		return dst, fmt.Errorf("%w: zstd: frame window of %d bytes, over the %d limit", ErrCorrupt, uint64(window), zstdMaxWindow)
	}
	if total != C.ZSTD_CONTENTSIZE_UNKNOWN && uint64(total) != uint64(n) {
		sentinel := ErrTooSmall
		if uint64(total) > uint64(n) {
			sentinel = ErrTooLarge
		}
		return dst, fmt.Errorf("%w: zstd: %d bytes declare %d decoded, expected %d", sentinel, len(src), uint64(total), n)
	}
	base := len(dst)
	out := bufs.Extend(dst, n)
	x := zstdDCtxPool.Get().(*zstdDCtx)
	r := C.ZSTD_decompressDCtx(x.d, bytesPtr(out[base:]), C.size_t(n), bytesPtr(src), C.size_t(len(src)))
	zstdDCtxPool.Put(x)
	if C.ZSTD_isError(r) != 0 {
		return dst, zstdCError(r, len(src), n)
	}
	if got := int(r); got != n {
		return dst, fmt.Errorf("%w: zstd: %d bytes decode to %d, expected %d", ErrTooSmall, len(src), got, n)
	}
	return out, nil
}

// zstdCError maps a libzstd error code to our sentinels, with libzstd's
// name for it in the message.
func zstdCError(r C.size_t, srcLen, n int) error {
	sentinel := ErrCorrupt
	switch C.ZSTD_getErrorCode(r) {
	case C.ZSTD_error_dstSize_tooSmall:
		sentinel = ErrTooLarge
	case C.ZSTD_error_checksum_wrong:
		sentinel = ErrChecksum
	}
	return fmt.Errorf("%w: zstd: %d bytes, expected to decode to %d: libzstd: %s", sentinel, srcLen, n, C.GoString(C.ZSTD_getErrorName(r)))
}
