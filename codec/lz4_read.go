package codec

import (
	"encoding/binary"
	"fmt"
	"sync"

	"github.com/pierrec/lz4/v4"

	"github.com/quiverdb/quiver/internal/bufs"
)

// Reading LZ4 frames. Every length in the frame is checked against the bytes
// left and against n before it is used; blocks decode straight into the
// caller's window dst[len(dst):len(dst)+n], so nothing past it is written.

// lz4MaxRatio bounds how far LZ4 data can expand: a sequence that copies
// 19+255k bytes costs at least k+4 bytes, so no compressed byte yields more
// than 255. It lets Decompress refuse an absurd n before allocating for it.
const lz4MaxRatio = 255

// lz4Frame is a parsed frame descriptor.
type lz4Frame struct {
	flags       byte
	blockMax    int
	contentSize uint64 // valid when flags&lz4FlagSize != 0
}

func (f lz4Frame) has(flag byte) bool { return f.flags&flag != 0 }

// Decompress decodes one LZ4 frame, optionally preceded by skippable
// frames, into exactly n bytes appended to dst.
func (*lz4Codec) Decompress(dst, src []byte, n int) ([]byte, error) {
	if err := checkSize(n); err != nil {
		return dst, err
	}
	if n/lz4MaxRatio > len(src) {
		return dst, fmt.Errorf("%w: lz4: %d input bytes cannot decode to %d", ErrTooSmall, len(src), n)
	}
	src, err := skipSkippable(src)
	if err != nil {
		return dst, err
	}
	f, src, err := parseLZ4Header(src)
	if err != nil {
		return dst, err
	}
	if f.has(lz4FlagSize) && f.contentSize != uint64(n) {
		sentinel := ErrTooSmall
		if f.contentSize > uint64(n) {
			sentinel = ErrTooLarge
		}
		return dst, fmt.Errorf("%w: lz4: frame content size %d, expected %d", sentinel, f.contentSize, n)
	}
	out := bufs.Extend(dst, n)
	win := out[len(dst):len(out):len(out)]
	if err := decodeLZ4Blocks(win, src, f); err != nil {
		return dst, err
	}
	return out, nil
}

// skipSkippable drops skippable frames (magic 0x184D2A5?, 4-byte size,
// data) in front of the frame; lz4 tools use them for metadata.
func skipSkippable(src []byte) ([]byte, error) {
	for len(src) >= 4 && binary.LittleEndian.Uint32(src)&lz4SkipMagicMask == lz4SkipMagic {
		if len(src) < 8 {
			return nil, fmt.Errorf("%w: lz4: skippable frame header has %d of 8 bytes", ErrHeaderTruncated, len(src))
		}
		size := uint64(binary.LittleEndian.Uint32(src[4:]))
		if size > uint64(len(src)-8) {
			return nil, fmt.Errorf("%w: lz4: skippable frame claims %d bytes, %d left", ErrHeaderTruncated, size, len(src)-8)
		}
		src = src[8+size:]
	}
	return src, nil
}

// parseLZ4Header reads magic and frame descriptor and returns what follows.
func parseLZ4Header(src []byte) (lz4Frame, []byte, error) {
	var f lz4Frame
	if len(src) < 4 {
		return f, nil, fmt.Errorf("%w: lz4: %d bytes, no magic number", ErrHeaderTruncated, len(src))
	}
	switch magic := binary.LittleEndian.Uint32(src); magic {
	case lz4Magic:
	case lz4LegacyMagic:
		return f, nil, fmt.Errorf("%w: lz4: legacy frame format (magic %#08x) is not supported", ErrNotFrame, magic)
	default:
		return f, nil, fmt.Errorf("%w: lz4: magic %#08x, want %#08x", ErrNotFrame, magic, lz4Magic)
	}
	if len(src) < 7 {
		return f, nil, fmt.Errorf("%w: lz4: header has %d of at least 7 bytes", ErrHeaderTruncated, len(src))
	}
	flg, bd := src[4], src[5]
	if v := flg & lz4VersionMask; v != lz4Version {
		return f, nil, fmt.Errorf("%w: lz4: frame version %d, want 1", ErrNotFrame, v>>6)
	}
	if flg&lz4FlagReserved != 0 || bd&lz4BDReserved != 0 {
		return f, nil, fmt.Errorf("%w: lz4: reserved bits set in descriptor FLG=%#02x BD=%#02x", ErrNotFrame, flg, bd)
	}
	id := int(bd >> 4)
	if id < 4 {
		return f, nil, fmt.Errorf("%w: lz4: block size id %d, want 4..7", ErrNotFrame, id)
	}
	f.flags = flg
	f.blockMax = 1 << (8 + 2*id) // 4: 64 KiB, 5: 256 KiB, 6: 1 MiB, 7: 4 MiB
	size := 7
	if f.has(lz4FlagSize) {
		size += 8
	}
	if f.has(lz4FlagDictID) {
		size += 4
	}
	if len(src) < size {
		return f, nil, fmt.Errorf("%w: lz4: header has %d of %d bytes", ErrHeaderTruncated, len(src), size)
	}
	if f.has(lz4FlagSize) {
		f.contentSize = binary.LittleEndian.Uint64(src[6:])
	}
	// The dictionary id is skipped: blocks that need a dictionary we do not
	// have fail to decode like any other bad block.
	if hc, want := src[size-1], byte(xxh32(src[4:size-1])>>8); hc != want {
		return f, nil, fmt.Errorf("%w: lz4: header check byte %#02x, computed %#02x", ErrChecksum, hc, want)
	}
	return f, src[size:], nil
}

// decodeLZ4Blocks decodes the blocks, end mark and content checksum in src
// into win, which must come out exactly full. Nothing may follow the frame.
func decodeLZ4Blocks(win, src []byte, f lz4Frame) error {
	pos := 0 // decoded bytes so far
	for i := 0; ; i++ {
		if len(src) < 4 {
			return fmt.Errorf("%w: lz4: input ends after block %d (%d bytes decoded, %d of 4 size bytes left)", ErrNoEndMark, i, pos, len(src))
		}
		word := binary.LittleEndian.Uint32(src)
		src = src[4:]
		if word == lz4EndMark {
			break
		}
		size := int(word &^ lz4BlockRaw)
		if size > f.blockMax {
			return fmt.Errorf("%w: lz4: block %d claims %d bytes, frame maximum %d", ErrBlockCorrupt, i, size, f.blockMax)
		}
		stored := size
		if f.has(lz4FlagBlockSum) {
			stored += 4
		}
		if stored > len(src) {
			return fmt.Errorf("%w: lz4: block %d claims %d bytes, %d left", ErrBlockOverrun, i, stored, len(src))
		}
		data := src[:size]
		if f.has(lz4FlagBlockSum) {
			if sum, want := binary.LittleEndian.Uint32(src[size:]), xxh32(data); sum != want {
				return fmt.Errorf("%w: lz4: block %d checksum %#08x, computed %#08x", ErrChecksum, i, sum, want)
			}
		}
		src = src[stored:]
		n, err := decodeLZ4Block(win, pos, data, word&lz4BlockRaw != 0, f, i)
		if err != nil {
			return err
		}
		pos += n
	}
	if pos < len(win) {
		return fmt.Errorf("%w: lz4: frame decodes to %d bytes, expected %d", ErrTooSmall, pos, len(win))
	}
	if f.has(lz4FlagContentSum) {
		if len(src) < 4 {
			return fmt.Errorf("%w: lz4: content checksum has %d of 4 bytes", ErrNoEndMark, len(src))
		}
		if sum, want := binary.LittleEndian.Uint32(src), xxh32(win); sum != want {
			return fmt.Errorf("%w: lz4: content checksum %#08x, computed %#08x", ErrChecksum, sum, want)
		}
		src = src[4:]
	}
	if len(src) > 0 {
		return fmt.Errorf("%w: lz4: %d bytes after the end of the frame", ErrCorrupt, len(src))
	}
	return nil
}

// decodeLZ4Block decodes block i, data, into win[pos:] and returns its
// decoded size.
func decodeLZ4Block(win []byte, pos int, data []byte, raw bool, f lz4Frame, i int) (int, error) {
	left := len(win) - pos
	if raw {
		if len(data) > left {
			return 0, fmt.Errorf("%w: lz4: stored block %d has %d bytes, %d of %d left", ErrTooLarge, i, len(data), left, len(win))
		}
		return copy(win[pos:], data), nil
	}
	var dict []byte
	if !f.has(lz4FlagIndep) {
		dict = win[max(0, pos-lz4LinkedMax):pos]
	}
	limit := pos + min(left, f.blockMax)
	n, err := lz4.UncompressBlockWithDict(data, win[pos:limit:limit], dict)
	if err == nil {
		return n, nil
	}
	corrupt := fmt.Errorf("%w: lz4: block %d (%d bytes, output offset %d)", ErrBlockCorrupt, i, len(data), pos)
	if left >= f.blockMax {
		return 0, corrupt
	}
	// The block did not fit in what is left of the window: decode it again
	// into a full-size scratch block to tell "n was too small" from
	// "garbage". This is the error path only.
	scratch := lz4Scratch.Get().(*[lz4WriteBlockMax]byte)
	defer lz4Scratch.Put(scratch)
	if m, err := lz4.UncompressBlockWithDict(data, scratch[:f.blockMax], dict); err == nil && m > left {
		return 0, fmt.Errorf("%w: lz4: block %d decodes to %d bytes, %d of %d left", ErrTooLarge, i, m, left, len(win))
	}
	return 0, corrupt
}

// lz4Scratch holds 4 MiB blocks for decodeLZ4Block's error path.
var lz4Scratch = sync.Pool{New: func() any { return new([lz4WriteBlockMax]byte) }}
