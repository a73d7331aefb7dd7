// Package colenc applies lightweight encodings to the raw value buffers of
// integer columns (int32, int64, date32, timestamp: little-endian, 4 or 8
// bytes a value) before a block codec compresses them, in quiver's
// cache-internal format. It works on bytes, not on Arrow arrays.
//
//   - FOR (frame of reference): the minimum, then value-min bit-packed to
//     the bits that hold max-min (0..64).
//   - Delta: the first value, the smallest difference between neighbours
//     (the step), then each difference minus the step, bit-packed.
//     Sequential ids are step 1, 0 bits a value.
//   - Lengths: an offsets buffer (string, binary) as its first offset and
//     the lengths offsets[i+1]-offsets[i], bit-packed.
//   - Plain: the bytes as they are.
//
// Choose picks the smallest of Plain, Delta and FOR, and keeps Plain unless
// the winner is at least 25% smaller. Encode(dst, src, width, enc) appends;
// Decode(dst, src, limit) appends the values back and treats src as
// hostile: the version, tag, width and bit width are checked, the decoded
// size against the caller's limit (ErrLimit) and the payload length against
// the bytes present (ErrCorrupt, which ErrLimit also matches), all before
// anything is allocated. Nothing panics on bad bytes; Encode panics only on
// the caller's bugs (a width other than 4 or 8, a partial value, an unknown
// encoding).
//
// # Format
//
// Little-endian; sizes in bytes. Every buffer starts
//
//	+---------+----------+-------+-------------+
//	| version | encoding | width | count       |
//	| 1 (=1)  | 1        | 1     | 4, uint32   |
//	+---------+----------+-------+-------------+
//	  encoding: 0 plain, 1 delta, 2 for, 3 lengths
//	  width:    4 or 8, bytes a decoded value
//	  count:    values decoded (for lengths: offsets, one more than strings)
//
// then, by encoding:
//
//	plain    +------------------+
//	         | count*width      |
//	         | values as given  |
//	         +------------------+
//
//	for      +-----------+-----+-----------------------------+
//	         | base      | b   | payload                     |
//	         | 8, int64  | 1   | ceil(count*b/8): value-base |
//	         +-----------+-----+-----------------------------+
//
//	delta    +-----------+-----------+-----+-----------------------------------+
//	         | first     | step      | b   | payload                           |
//	         | 8, int64  | 8, int64  | 1   | ceil((count-1)*b/8):              |
//	         |           |           |     | (v[i]-v[i-1]) - step, i=1..count-1 |
//	         +-----------+-----------+-----+-----------------------------------+
//
//	lengths  +-----------+-----+-----------------------------------+
//	         | offset 0  | b   | payload                           |
//	         | 8, int64  | 1   | ceil((count-1)*b/8):              |
//	         |           |     | o[i]-o[i-1], i=1..count-1         |
//	         +-----------+-----+-----------------------------------+
//
// b is 0..8*width. A payload is values of b bits laid end to end, least
// significant bit first: value i is bits [i*b, (i+1)*b) of the payload,
// bit j of the payload being bit j%8 of byte j/8. Bits after the last value
// are written as zero and ignored on reading. The payload ends the buffer:
// a buffer with bytes after it, or fewer, is corrupt. For 4-byte columns
// base, first and step must fit int32; sums wrap at the column width, so
// Delta and FOR round-trip every value including the int64 extremes
// (their spread, up to 2^64-1, fits 64 bits). Lengths rejects a first
// offset below 0 and offsets past 2^31-1 (4-byte) or 2^63-1 (8-byte), so
// it never decodes a negative length. Encode writes Plain when asked for
// Lengths on a buffer that is not offsets (decreasing, or starting below
// 0). Headers cost 7 bytes for plain, 16 for for and lengths, 24 for delta.
//
// # Worked example
//
// The int32 values 10 7 9 9 2 (20 bytes plain) as delta: the differences
// are -3 2 0 -7, the step is -7, so the packed values are 4 9 7 0 and need
// 4 bits each:
//
//	01                       version 1
//	01                       encoding delta
//	04                       width 4
//	05 00 00 00              count 5
//	0a 00 00 00 00 00 00 00  first 10
//	f9 ff ff ff ff ff ff ff  step -7
//	04                       b = 4
//	94 07                    payload: 4 | 9<<4, 7 | 0<<4
//
// Decoding: 10, 10+(-7+4) = 7, 7+(-7+9) = 9, 9+(-7+7) = 9, 9+(-7+0) = 2.
// The int64 values 1000 1003 1001 1007 1000 1005 as for are base 1000,
// b = 3, and the 3-bit values 0 3 1 7 0 5 in the payload 58 8e 02.
// testdata/*.golden pins these and other bytes (go test -rewrite
// regenerates them).
//
// # Measured
//
// BENCHMARKS.md has the tables and the command. One 8192-row int64 column
// (64 KiB), one goroutine, medians of 3 runs: stored bytes and decode MB/s
// (codec, then colenc) of plain bytes.
//
//	column      lz4            zstd:1         colenc         colenc+lz4
//	id = i      32,760  1,469  8,346  1,360      24  9,520      39 10,460
//	k = i%1000   4,269 12,410  8,349  1,363  10,256  5,842   1,336  5,887
//	v = i+1     32,770    808  8,349  1,387      24 11,050      39 11,050
//	random      65,550 86,060 65,550 82,710  65,543 44,450  65,560 45,390
//
// colenc+lz4 is smaller than zstd:1 on every compressible column and
// decodes 4-8x faster. Encoding alone runs at 2.3-3.6 GB/s, Choose plus
// Encode at about 1.6 GB/s; decoding at 3.1 GB/s (64-bit values) to 11 GB/s
// (0-bit deltas).
package colenc
