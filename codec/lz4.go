package codec

import (
	"encoding/binary"
	"errors"
	"slices"
	"sync"

	"github.com/pierrec/lz4/v4"
)

// LZ4 frame format constants (lz4/doc/lz4_Frame_format.md); doc.go draws
// the layout.
const (
	lz4Magic         = 0x184D2204
	lz4LegacyMagic   = 0x184C2102
	lz4SkipMagicMask = 0xFFFFFFF0 // skippable frames: 0x184D2A50..0x184D2A5F
	lz4SkipMagic     = 0x184D2A50

	// FLG bits.
	lz4VersionMask    = 0xC0
	lz4Version        = 0x40 // version 01 in bits 7-6
	lz4FlagIndep      = 0x20 // blocks are independent (no dictionary)
	lz4FlagBlockSum   = 0x10 // each block is followed by its XXH32
	lz4FlagSize       = 0x08 // 8-byte content size in the descriptor
	lz4FlagContentSum = 0x04 // XXH32 of the content after the end mark
	lz4FlagReserved   = 0x02
	lz4FlagDictID     = 0x01 // 4-byte dictionary id in the descriptor

	// BD bits: 6-4 hold the block maximum size id, the rest are reserved.
	lz4BDReserved = 0x8F

	lz4BlockRaw  = 0x80000000 // high bit of a block size: stored, not compressed
	lz4EndMark   = 0
	lz4LinkedMax = 64 << 10 // linked blocks see at most 64 KiB back

	// What quiver writes: version 01, independent blocks, no checksums, no
	// content size, 4 MiB blocks. The header check byte is xxh32(FLG,BD)>>8,
	// computed in lz4Header.
	lz4WriteFLG      = lz4Version | lz4FlagIndep
	lz4WriteBD       = 7 << 4
	lz4WriteBlockMax = 4 << 20
	lz4HeaderSize    = 7 // magic, FLG, BD, HC
)

// lz4Header is the 7-byte header every frame we write starts with.
var lz4Header = func() [lz4HeaderSize]byte {
	var h [lz4HeaderSize]byte
	binary.LittleEndian.PutUint32(h[:], lz4Magic)
	h[4], h[5] = lz4WriteFLG, lz4WriteBD
	h[6] = byte(xxh32(h[4:6]) >> 8)
	return h
}()

// blockCompressor is what we need of pierrec's block compressors.
type blockCompressor interface {
	CompressBlock(src, dst []byte) (int, error)
}

// lz4Codec writes LZ4 frames block by block with pierrec's block compressor
// and reads any LZ4 frame (lz4_read.go). pierrec's compressors hold a hash
// table (about 140 KiB for lz4.Compressor) that is not safe for concurrent
// use, so they live in a pool; the codec itself is stateless and shared.
type lz4Codec struct {
	compressors sync.Pool // of blockCompressor
}

// lz4Shared is the LZ4 codec New returns. It uses lz4.Compressor, not
// lz4.CompressorCCompat: on the string-value data in BENCHMARKS.md the
// default compressor's output is about 28% smaller (ratio 1.55 vs 1.12)
// for 1 MiB buffers (4% for 64 KiB ones), at roughly half the
// compression speed, and both decode at the same speed. Quiver compresses a
// buffer once and reads and ships it many times, so ratio wins.
var lz4Shared = newLZ4Codec(func() blockCompressor { return new(lz4.Compressor) })

func newLZ4Codec(newCompressor func() blockCompressor) *lz4Codec {
	return &lz4Codec{compressors: sync.Pool{New: func() any { return newCompressor() }}}
}

func (*lz4Codec) Setting() Setting { return SettingLZ4 }

// CompressBound is the size of a frame whose blocks are all stored raw:
// header, a 4-byte size per block, the data, the end mark.
func (*lz4Codec) CompressBound(n int) int {
	blocks := (n + lz4WriteBlockMax - 1) / lz4WriteBlockMax
	return lz4HeaderSize + 4*blocks + n + 4
}

// Compress appends one LZ4 frame holding src. Each 4 MiB block is
// compressed straight into dst; a block that would not shrink is stored raw
// instead, so the frame never exceeds CompressBound. dst grows once, to
// CompressBound, so a caller keeping the result long-term may want to clip
// or copy it.
func (c *lz4Codec) Compress(dst, src []byte) []byte {
	dst = slices.Grow(dst, c.CompressBound(len(src)))
	dst = append(dst, lz4Header[:]...)
	comp := c.compressors.Get().(blockCompressor)
	defer c.compressors.Put(comp)
	for len(src) > 0 {
		block := src[:min(len(src), lz4WriteBlockMax)]
		src = src[len(block):]
		at := len(dst)
		dst = dst[:at+4+len(block)] // within the capacity grown above
		// An output window one byte short of the input makes the
		// compressor give up (n == 0) exactly when it would not shrink.
		n, err := comp.CompressBlock(block, dst[at+4:at+4+len(block)-1])
		if err != nil && !errors.Is(err, lz4.ErrInvalidSourceShortBuffer) {
			panic("codec: lz4 block compressor: " + err.Error())
		}
		if n > 0 && err == nil {
			binary.LittleEndian.PutUint32(dst[at:], uint32(n))
			dst = dst[:at+4+n]
			continue
		}
		binary.LittleEndian.PutUint32(dst[at:], uint32(len(block))|lz4BlockRaw)
		copy(dst[at+4:], block)
	}
	return binary.LittleEndian.AppendUint32(dst, lz4EndMark)
}
