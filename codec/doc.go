// Package codec compresses whole buffers with the block codecs Arrow IPC
// allows: none, LZ4 (the LZ4 frame format, Arrow's LZ4_FRAME) and zstd.
//
// A Setting names a codec and, for zstd, a level; New returns the shared,
// concurrency-safe Codec for it. Compress appends to dst; Decompress appends
// exactly n bytes, the size the caller recorded, and never writes past
// len(dst)+n. Every decode failure matches ErrCorrupt; the finer sentinels
// say what was wrong, and the message carries the sizes involved, e.g.
//
//	codec: block runs past the end of the input: lz4: block 3 claims 70000 bytes, 512 left
//
// Decompress also refuses an n the input cannot possibly reach (more than
// 255 bytes per input byte for LZ4, 32 KiB for zstd) before allocating for
// it.
//
// # LZ4 frame format
//
// The frame, as lz4/doc/lz4_Frame_format.md defines it. Little-endian; sizes
// in bytes.
//
//	+-------------+-----+----+------------------+-------------+----+
//	| magic       | FLG | BD | content size     | dict id     | HC |
//	| 04 22 4D 18 |  1  | 1  | 8, if FLG bit 3  | 4, if bit 0 | 1  |
//	+-------------+-----+----+------------------+-------------+----+
//	  FLG: bits 7-6 version (01)   bit 5 blocks independent
//	       bit 4 block checksums   bit 3 content size present
//	       bit 2 content checksum  bit 1 reserved (0)   bit 0 dict id present
//	  BD:  bit 7 reserved (0)  bits 6-4 block max size: 4 = 64 KiB,
//	       5 = 256 KiB, 6 = 1 MiB, 7 = 4 MiB   bits 3-0 reserved (0)
//	  HC:  (xxh32(FLG .. end of dict id, seed 0) >> 8) & 0xFF
//
// then blocks, each
//
//	+-------------------------------+------------------+-----------------+
//	| size: 4 bytes                 | data: size bytes | block checksum  |
//	| bit 31 set = stored raw       |                  | 4, if FLG bit 4 |
//	| bits 30-0 = size <= block max |                  | xxh32(data)     |
//	+-------------------------------+------------------+-----------------+
//
// then
//
//	+-------------+------------------------------+
//	| end mark    | content checksum             |
//	| 00 00 00 00 | 4, if FLG bit 2: xxh32(all)  |
//	+-------------+------------------------------+
//
// A compressed block is one LZ4 block (lz4/doc/lz4_Block_format.md) that
// decodes to at most the block max size. With linked blocks (FLG bit 5
// clear) a block may copy from the previous 64 KiB of decoded output.
// Skippable frames (magic 0x184D2A50..5F, 4-byte size, data) may precede
// the frame.
//
// What quiver writes: FLG 0x60 (version 01, independent blocks, no
// checksums, no content size, no dict id), BD 0x70 (4 MiB blocks), so the
// header is always 04 22 4D 18 60 70 73. Input is cut into 4 MiB blocks;
// each is compressed by pierrec/lz4's lz4.Compressor, or stored raw when
// compression would not make it smaller, so a frame is at most
// CompressBound(n) = 7 + 4*ceil(n/4 MiB) + n + 4 bytes. Empty input is the
// 11-byte frame 04 22 4D 18 60 70 73 00 00 00 00. The six bytes "quiver":
//
//	04 22 4d 18  magic
//	60           FLG: version 01, independent blocks
//	70           BD: 4 MiB blocks
//	73           HC: xxh32({60 70}) = 0x789F73AA, >> 8, low byte
//	06 00 00 80  block 0: 6 bytes, stored raw (too short to compress)
//	71 75 69 76 65 72   "quiver"
//	00 00 00 00  end mark
//
// testdata/lz4_frame.golden pins these bytes (go test -rewrite regenerates
// it). There are no checksums because quiver's own containers carry them and
// Arrow's LZ4_FRAME writers (arrow-go, Arrow C++) write none either.
//
// What quiver reads: any frame of that format, from any writer: 64 KiB to
// 4 MiB blocks, independent or linked, raw or compressed, with or without
// block checksums, content checksum (both verified), content size (must
// equal n, checked before decoding) and dict id (skipped; a block that
// needs the missing dictionary fails to decode). Tests read frames written
// by pierrec's lz4.Writer with several option sets and by the lz4 tool
// (testdata/lz4/, linked blocks included). The legacy format, reserved
// bits and other versions are rejected (ErrNotFrame), as are bytes after
// the frame.
//
// Reading checks each recorded length before using it: the header against
// the bytes present (ErrHeaderTruncated), each block size against the block
// maximum (ErrBlockCorrupt) and against the bytes left (ErrBlockOverrun),
// then its checksum (ErrChecksum). Blocks decode straight into the window
// dst[len(dst):len(dst)+n]; a block that does not fit is decoded again into
// a scratch block, on that error path only, to tell ErrTooLarge from
// ErrBlockCorrupt. A frame cut before its end mark is ErrNoEndMark; one that
// decodes to fewer than n bytes is ErrTooSmall.
//
// # Why our own frame code over pierrec's block functions
//
// pierrec/lz4's frame Reader and Writer are streams: they copy through
// their own block buffers, and Reader with default options (4 MiB blocks,
// content checksum) decodes at 55-83% of the speed of pierrec's block
// decoder on compressible data and at 20% on incompressible data, while
// the block decoder runs at C liblz4's speed (shared/reference/codecs.md,
// out of cache: 860 vs 1,040 MB/s on sequential int64, 2,110 vs 3,490 on
// small ints, 2,260 vs 4,140 on strings, 3.8 vs 19.7 GB/s on random bytes). Writing the frame ourselves also lets
// us decode into the caller's buffer with a hard bound of n bytes, give each
// kind of corruption its own error with sizes, choose the compressor, and
// store incompressible blocks raw without a second pass.
//
// lz4.Compressor rather than lz4.CompressorCCompat: on string values the
// default compressor's output is 28% smaller for 1 MiB buffers (ratio 1.55
// vs 1.12; 4% at 64 KiB) at 0.4-0.7x the encode speed; elsewhere its ratio
// is the same or better (2.65 vs 2.56 on small ints) and both decode at the
// same speed. Quiver compresses a buffer once and keeps, reads and ships it
// many times, so it takes the ratio. Compressors hold a hash table and are not
// safe for concurrent use, so they are pooled; the Codec is stateless.
//
// # zstd
//
// klauspost/compress/zstd, pure Go. One *zstd.Decoder serves the process
// (DecodeAll is safe for concurrent use), with GOMAXPROCS decoder states,
// DecodeAll limited to the capacity it is given, and windows up to 128 MiB
// (libzstd's default limit). DecodeAll writes into spare capacity past the
// bytes it decodes, so it is always given dst capped at exactly len(dst)+n.
// Frame checksums are verified when a frame has one. Errors map to
// ErrTooLarge (output would exceed n), ErrTooSmall, ErrChecksum, or
// ErrCorrupt, each wrapping klauspost's own error too.
//
// klauspost has four encoders, not 22 levels, so levels map onto them:
//
//	zstd level                 klauspost speed          libzstd equivalent
//	<= 1 (all negative levels) SpeedFastest             about level 1
//	2..5 (3 is the default)    SpeedDefault             about level 3
//	6..9                       SpeedBetterCompression   about level 7
//	>= 10                      SpeedBestCompression     about level 11
//
// Levels in one band write identical bytes. There is one shared encoder per
// speed, built on first use, with a 1 MiB window (one 8192-row batch's
// buffer fits; larger windows did not change ratios on Arrow-like data but
// cost 16 MiB of history per encoder state instead of 2), up to four
// concurrent states (one for the best speed, whose tables are 34 MiB), and
// no frame checksum: WithEncoderCRC(false) matches libzstd's default
// checksumFlag=0, and our containers carry their own checksums. Empty input
// still makes a frame.
//
// # libzstd (build tag cgozstd)
//
// Built with cgo and -tags cgozstd, every zstd setting uses libzstd instead
// (zstd_cgo.go; Debian's libzstd-dev, linked with -lzstd); the default build
// stays pure Go. Each level is libzstd's own (no bands): ZSTD_compress2 on
// pooled contexts, checksum off, content size on, the level's window.
// Decompress checks the frames' declared content sizes against n and their
// windows against 128 MiB before ZSTD_decompressDCtx writes exactly n bytes;
// errors map to the same sentinels, with libzstd's error name. Frames
// interoperate with the pure-Go codec both ways. Measured (CGO.md, MB
// per CPU second): zstd:1 and zstd:3 encode compressible 1 MiB buffers
// 1.4-1.9x faster (0.9-1.5x at 64 KiB) and decode them 1.0-1.4x faster at
// equal ratios, except strvalues at zstd:1 (2.04 vs 2.31); data klauspost
// stores raw (i32offsets) libzstd compresses to 1.28-1.35, 10-30x slower;
// zstd:7 and zstd:19 are libzstd's real levels, up to 14x slower than
// klauspost's bands for equal or better ratios.
//
// # Measured
//
// BENCHMARKS.md has the full tables and the command. 1 MiB buffers,
// one goroutine, medians of 5 runs, MB of uncompressed data per CPU second
// (the machine was shared, see there), encode / decode, then the ratio:
//
//	codec          i64seq           i64rand1000      i64rand           strvalues        i32offsets
//	copy()         37064/36998 1.00 35160/37470 1.00 35542/37119  1.00 35785/36575 1.00 37183/37664  1.00
//	lz4              681/1846  2.00   737/4180  2.65 30362/35998  1.00   255/5849  1.55 29678/34869  1.00
//	lz4 CCompat      889/1826  2.00   871/4262  2.56 23143/37103  1.00   603/6913  1.12 23608/35587  1.00
//	pierrec frame    782/1844  2.00   740/3925  2.56  9479/30470  1.00   276/6065  1.29  9207/30738  1.00
//	zstd:1           332/1150  7.85   300/1185  4.99 15108/53855  1.00   237/1395  2.31 14734/53266  1.00
//	zstd:3           258/1221  5.93   268/1211  4.14 11575/53621  1.00   136/1284  2.48 11508/52665  1.00
//	zstd:7           130/1241  5.87   264/1687  4.39  2418/53149  1.00    70/1460  2.40   635/1598  1.28
//	zstd:19           17/1182  7.78    57/2071  4.60  1003/53939  1.00    15/1302  2.59   404/1646  1.28
//
// "pierrec frame" is pierrec's Writer/Reader as arrow-go uses them (64 KiB
// blocks, no checksum). The buffer stays in cache, hence copy() at 37 GB/s
// (17-20 GB/s out of cache in shared/reference/codecs.md). Decoding runs at
// 1.1-6.9 GB/s on compressible data, 5-30x slower than copy(); stored
// (incompressible) blocks cost about one copy.
package codec
