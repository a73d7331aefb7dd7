package codec

import (
	"errors"
	"fmt"
	"runtime"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// zstd through klauspost/compress: one Decoder for the process and one
// Encoder per klauspost speed, all created on first use and shared, since
// EncodeAll and DecodeAll are safe for concurrent use.

// zstdMaxWindow is the largest window a frame may ask for: 128 MiB, the
// default limit of libzstd's decoder (ZSTD_WINDOWLOG_LIMIT_DEFAULT = 27), so
// we accept what the reference decoder accepts without options. A
// single-segment frame (any one-shot ZSTD_compress output, Arrow C++'s
// included) needs no window beyond the output itself and is not limited by
// it; the output is limited by n through WithDecodeAllCapLimit.
const zstdMaxWindow = 128 << 20

// zstdEncodeWindow is our encoders' window: 1 MiB, which covers a whole
// Arrow buffer of an 8192-row batch. Buffers up to 1 MiB become
// single-segment frames that need no decoder memory beyond the output;
// larger ones use a 1 MiB window, which every decoder supports. Measured on
// 8 MiB of each benchmark data kind, windows of 1, 2 and 8 MiB give ratios
// within 1% of each other at every speed (1 MiB best), but klauspost keeps
// a history of twice the window per encoder state once an input exceeds
// one 128 KiB block: 2 MiB instead of 16 MiB.
const zstdEncodeWindow = 1 << 20

// zstdMaxRatio bounds how far zstd data can expand: a block decodes to at
// most 128 KiB (Block_Maximum_Size) and takes at least 4 input bytes (an RLE
// block: 3-byte header, 1 byte), so no input byte yields more than 32 KiB.
// It lets Decompress refuse an absurd n before allocating for it.
const zstdMaxRatio = 32 << 10

var zstdDecoder = sync.OnceValue(func() *zstd.Decoder {
	d, err := zstd.NewReader(nil,
		zstd.WithDecoderConcurrency(0), // GOMAXPROCS concurrent DecodeAll calls
		zstd.WithDecodeAllCapLimit(true),
		zstd.WithDecoderMaxWindow(zstdMaxWindow),
	)
	if err != nil {
		panic("codec: zstd decoder options: " + err.Error())
	}
	return d
})

// zstdEncoders holds one lazily built encoder per klauspost speed, indexed
// by zstd.EncoderLevel.
var zstdEncoders = func() (e [zstd.SpeedBestCompression + 1]func() *zstd.Encoder) {
	for speed := zstd.SpeedFastest; speed <= zstd.SpeedBestCompression; speed++ {
		e[speed] = sync.OnceValue(func() *zstd.Encoder { return newZstdEncoder(speed) })
	}
	return e
}()

func newZstdEncoder(speed zstd.EncoderLevel) *zstd.Encoder {
	e, err := zstd.NewWriter(nil,
		zstd.WithEncoderLevel(speed),
		zstd.WithEncoderConcurrency(zstdEncoderStates(speed)),
		// No frame checksum, as libzstd's default (checksumFlag=0): quiver's
		// containers carry their own checksums, and Arrow readers do not
		// need one. We still verify checksums in frames that have them.
		zstd.WithEncoderCRC(false),
		zstd.WithWindowSize(zstdEncodeWindow),
		zstd.WithZeroFrames(true), // empty input still makes a frame
	)
	if err != nil {
		panic("codec: zstd encoder options: " + err.Error())
	}
	return e
}

// zstdEncoderStates is how many EncodeAll calls one shared encoder runs at
// once; more wait for a free state. One state serialises all goroutines
// compressing at a level: measured on 2 cores, zstd:1 from two goroutines
// gave 250 MB/s with one state and 500 MB/s with two. klauspost allocates
// every state on first use, and a state's tables cost about 0.3 MiB
// (fastest), 1.3 MiB (default), 4 MiB (better) and 34 MiB (best), so the
// count is capped at 4 (klauspost's decoder default), and the best speed,
// used for offline work, gets one.
func zstdEncoderStates(speed zstd.EncoderLevel) int {
	if speed == zstd.SpeedBestCompression {
		return 1
	}
	return min(runtime.GOMAXPROCS(0), 4)
}

// zstdSpeed maps a zstd level onto klauspost's four encoders. Levels inside
// one band write identical bytes: klauspost has no finer knob.
func zstdSpeed(level int) zstd.EncoderLevel {
	switch {
	case level <= 1: // includes the negative "fast" levels
		return zstd.SpeedFastest
	case level <= 5:
		return zstd.SpeedDefault
	case level <= 9:
		return zstd.SpeedBetterCompression
	}
	return zstd.SpeedBestCompression
}

// zstdCodec writes zstd frames at one level and reads any zstd frames.
type zstdCodec struct{ level int }

// zstdGoFor is the klauspost codec at a level; zstdFor picks it unless the
// build has the cgozstd tag (zstd_select_purego.go).
func zstdGoFor(level int) zstdCodec {
	return zstdCodec{level: Setting{Kind: Zstd, Level: level}.normalized().Level}
}

func (c zstdCodec) Setting() Setting { return Setting{Kind: Zstd, Level: c.level} }

// CompressBound is ZSTD_COMPRESSBOUND from libzstd. klauspost stores a block
// raw when it does not shrink, which costs 3 bytes per 128 KiB block, well
// inside this bound; the conformance suite checks it on random data.
func (zstdCodec) CompressBound(n int) int {
	bound := n + n>>8
	if n < 128<<10 {
		bound += (128<<10 - n) >> 11
	}
	return bound
}

func (c zstdCodec) Compress(dst, src []byte) []byte {
	return zstdEncoders[zstdSpeed(c.level)]().EncodeAll(src, dst)
}

// Decompress decodes the zstd frames in src into exactly n bytes appended
// to dst. DecodeAll writes into spare capacity past the bytes it decodes
// (about 16 bytes), so it only ever sees dst capped at len(dst)+n.
func (zstdCodec) Decompress(dst, src []byte, n int) ([]byte, error) {
	return zstdDecompress(dst, src, n, 0)
}

// decompressSlack is Decompress letting DecodeAll use up to DecodeSlack
// bytes of dst's capacity past n (see DecompressSlack).
func (zstdCodec) decompressSlack(dst, src []byte, n int) ([]byte, error) {
	return zstdDecompress(dst, src, n, DecodeSlack)
}

func zstdDecompress(dst, src []byte, n, slack int) ([]byte, error) {
	if err := checkSize(n); err != nil {
		return dst, err
	}
	if len(src) == 0 {
		return dst, fmt.Errorf("%w: zstd: empty input has no frame", ErrCorrupt)
	}
	if n/zstdMaxRatio > len(src) {
		return dst, fmt.Errorf("%w: zstd: %d input bytes cannot decode to %d", ErrTooSmall, len(src), n)
	}
	base := len(dst)
	var out []byte
	if cap(dst)-base >= n {
		out = dst[: base : base+min(n+slack, cap(dst)-base)]
	} else {
		out = make([]byte, base, base+n+slack)
		copy(out, dst)
	}
	out, err := zstdDecoder().DecodeAll(src, out)
	if err != nil {
		return dst, zstdError(err, len(src), n)
	}
	switch got := len(out) - base; {
	case got > n: // DecodeAllCapLimit makes this an error first
		return dst, fmt.Errorf("%w: zstd: %d bytes decode to %d, expected %d", ErrTooLarge, len(src), got, n)
	case got < n:
		return dst, fmt.Errorf("%w: zstd: %d bytes decode to %d, expected %d", ErrTooSmall, len(src), got, n)
	}
	return out, nil
}

// zstdError maps klauspost's errors to our sentinels and keeps its error in
// the chain too.
func zstdError(err error, srcLen, n int) error {
	sentinel := ErrCorrupt
	switch {
	case errors.Is(err, zstd.ErrDecoderSizeExceeded):
		sentinel = ErrTooLarge
	case errors.Is(err, zstd.ErrCRCMismatch):
		sentinel = ErrChecksum
	}
	return fmt.Errorf("%w: zstd: %d bytes, expected to decode to %d: %w", sentinel, srcLen, n, err)
}
