// Package batch encodes Arrow record batches as compressed Arrow IPC
// messages and decodes them back, with stream and file writers and
// readers built on the two.
//
// Everything it writes is standard Arrow IPC (format version V5): any
// Arrow implementation reads it. Everything it reads is treated as
// hostile: every length is checked against the bytes present and the
// caller's Limits before it sizes an allocation, every offset inside an
// array is checked before an array is built, and every failure is an
// error matching ErrCorrupt, ErrLimit or ErrUnsupported, never a panic.
//
// quiver owns this layer rather than using arrow-go's ipc package because
// that package has no zstd level, no pluggable codec, no projected decode,
// and trusts the lengths in its input (a 40-byte message claiming a 1 TiB
// buffer ends the process; see TestHugeClaimFailsFast).
//
// # Encapsulated message
//
//	 0        4        8                 8+M              8+M+B
//	┌────────┬────────┬─────────────────┬────────────────┐
//	│FFFFFFFF│ int32 M│ Message         │ body (B bytes) │
//	│        │   LE   │ flatbuffer, 0-  │ 8-aligned      │
//	│        │        │ padded to 8     │ buffers        │
//	└────────┴────────┴─────────────────┴────────────────┘
//
// M counts the flatbuffer and its padding, so the body starts 8-aligned.
// Readers also accept the pre-1.0 prefix without FFFFFFFF. A stream is a
// Schema message, then DictionaryBatch and RecordBatch messages, then the
// end-of-stream marker FFFFFFFF 00000000. A file is "ARROW1\0\0", the same
// messages, the Footer flatbuffer (block index), its int32 length and
// "ARROW1".
//
// # Body
//
// The RecordBatch flatbuffer lists one field node (length, null count)
// per array, depth first, and one (offset, length) range of the body per
// buffer, in the order each type's layout defines (see layout.go). With
// body compression (codec LZ4_FRAME or ZSTD, method BUFFER) each non-empty
// buffer is stored as:
//
//	┌──────────────────────┬──────────────────────────────┬─────────┐
//	│ int64 LE decoded len │ codec frame (LZ4 / zstd)     │ 0-pad   │
//	│ or -1 (stored raw)   │ or the raw bytes when -1     │ to 8    │
//	└──────────────────────┴──────────────────────────────┴─────────┘
//
// Empty buffers take no bytes at all (range length 0), as Arrow C++ and
// arrow-go write them; a prefix of 0 (Arrow Java's way) also reads as
// empty. A buffer is stored raw when compressing does not save at least
// WriteOptions.MinSaving of it (default: any saving at all).
//
// Worked example: one int64 column, 3 rows [1, null, 3], lz4. Nodes:
// [{3, 1}]. Buffers: validity (1 byte 0b101 → compresses to more than 1
// byte, stored raw: prefix -1, 1 byte, padding = 16 bytes at offset 0),
// values (24 bytes; an LZ4 frame would be larger, so again -1 + 24 bytes
// = 32 bytes at offset 16). Body length 48.
//
// # Projection and limits
//
// A Decoder reads only the selected top-level columns: it walks the
// metadata to find each column's nodes and buffers (spans.go), checks and
// decompresses only those, and with no column selected returns the row
// count without touching the body. Decompression of one batch's buffers
// runs on ReadOptions.Concurrency goroutines; FileReader.Record may be
// called concurrently to decode batches in parallel.
//
// Decoded bytes per batch are capped by
// min(MaxUncompressed, max(MaxRatio × body, RatioFloor)) (defaults 16 GiB,
// 8×, 256 MiB), checked against the sum of the buffers' decoded-length
// prefixes before any buffer is allocated. That sum then goes to
// ReadOptions.Admit, if set, so that a caller can bound what many batches
// decode together (quiver's server: every upload against its budget).
package batch
