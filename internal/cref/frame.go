//go:build cref

package cref

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// lz4Block is one block of an LZ4 frame: its bytes and decoded size.
type lz4Block struct {
	data []byte
	size int
	raw  bool
}

// lz4Blocks splits an LZ4 frame that decodes to n bytes into its blocks,
// so LZ4Block can time LZ4_decompress_safe alone. Every block but the last
// holds a full block-maximum of data, as every LZ4 frame writer we know
// makes them; a frame that breaks this fails the decode check instead.
// It reads only what benchmarks feed it: linked blocks are refused, since
// LZ4_decompress_safe cannot see the previous block.
func lz4Blocks(frame []byte, n int) ([]lz4Block, error) {
	if len(frame) < 7 || binary.LittleEndian.Uint32(frame) != 0x184D2204 {
		return nil, errors.New("not an LZ4 frame")
	}
	flg, bd := frame[4], frame[5]
	if flg&0x20 == 0 {
		return nil, errors.New("linked blocks: LZ4_decompress_safe cannot decode them alone")
	}
	blockMax := 1 << (8 + 2*int(bd>>4&7))
	header := 7 // magic, FLG, BD, [content size], [dictionary id], HC
	if flg&0x08 != 0 {
		header += 8
	}
	if flg&0x01 != 0 {
		header += 4
	}
	if len(frame) < header {
		return nil, errors.New("frame ends inside its header")
	}
	src := frame[header:]
	var blocks []lz4Block
	left := n
	for {
		if len(src) < 4 {
			return nil, errors.New("frame ends before its end mark")
		}
		word := binary.LittleEndian.Uint32(src)
		src = src[4:]
		if word == 0 {
			break
		}
		size, raw := int(word&^0x80000000), word&0x80000000 != 0
		stored := size
		if flg&0x10 != 0 {
			stored += 4 // block checksum
		}
		if stored > len(src) {
			return nil, fmt.Errorf("block of %d bytes, %d left", stored, len(src))
		}
		out := min(left, blockMax)
		if raw {
			out = size
		}
		if out > left || out == 0 {
			return nil, fmt.Errorf("block of %d decoded bytes with %d of %d left", out, left, n)
		}
		blocks = append(blocks, lz4Block{data: src[:size], size: out, raw: raw})
		left -= out
		src = src[stored:]
	}
	if left != 0 {
		return nil, fmt.Errorf("blocks decode to %d bytes, want %d", n-left, n)
	}
	return blocks, nil
}
