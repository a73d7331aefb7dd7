package cache

import (
	"encoding/binary"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/zeebo/xxh3"
)

// A chunk is one column of one cached batch: a header, a part table and the
// parts' stored bytes (see doc.go for the drawing). This file holds what the
// encoder and decoder share: the constants and the column forms.

const chunkVersion = 1

// Chunk forms: how a column's buffers are laid out in parts.
const (
	// formFixed: parts validity, values. Fixed-width types and booleans
	// (whose values part is a bitmap).
	formFixed = 1
	// formVarBinary: parts validity, offsets, data. Utf8, Binary and their
	// Large variants; offsets start at 0.
	formVarBinary = 2
	// formIPC: parts are (metadata, body) pairs of batch-layer Arrow IPC
	// messages, dictionaries first, for every other type.
	formIPC = 3
)

// Part flags.
const (
	// partEncoded: the inner bytes are a colenc buffer decoding to the
	// part's final bytes.
	partEncoded = 1 << 0
	// partCompressed: the stored bytes are the chunk codec's output,
	// decompressing to the inner bytes; otherwise they are the inner
	// bytes.
	partCompressed = 1 << 1
	// partNarrowed: a decimal128 values part whose every value fits in 64
	// bits, stored as those 64 bits (then colenc and the codec like any
	// int64 part); decoding sign-extends each back to 128 bits.
	partNarrowed = 1 << 2
	partFlags    = partEncoded | partCompressed | partNarrowed
)

// maxChunkRows bounds a chunk's row count (Arrow's 32-bit offsets bound a
// batch anyway); maxPartsIPC the messages a formIPC chunk may hold.
const (
	maxChunkRows = 1<<31 - 1
	maxPartsIPC  = 2 * 1024
)

// columnForm is how a column type is stored.
type columnForm struct {
	form   int
	width  int  // formFixed: bytes per value, 0 for a bitmap; formVarBinary: offset width
	encode bool // formFixed: values are signed integers colenc may encode
	narrow bool // formFixed: 16-byte integers that may be narrowed to 8 (partNarrowed)
}

// formOf returns the form of a top-level column of type dt.
func formOf(dt arrow.DataType) columnForm {
	switch dt.ID() {
	case arrow.BOOL:
		return columnForm{form: formFixed}
	case arrow.INT32, arrow.DATE32, arrow.TIME32:
		return columnForm{form: formFixed, width: 4, encode: true}
	case arrow.INT64, arrow.DATE64, arrow.TIME64, arrow.TIMESTAMP, arrow.DURATION, arrow.DECIMAL64:
		return columnForm{form: formFixed, width: 8, encode: true}
	case arrow.DECIMAL32:
		return columnForm{form: formFixed, width: 4, encode: true}
	case arrow.DECIMAL128:
		return columnForm{form: formFixed, width: 16, narrow: true}
	case arrow.INT8, arrow.UINT8, arrow.INT16, arrow.UINT16, arrow.UINT32, arrow.UINT64,
		arrow.FLOAT16, arrow.FLOAT32, arrow.FLOAT64,
		arrow.DECIMAL256,
		arrow.INTERVAL_MONTHS, arrow.INTERVAL_DAY_TIME, arrow.INTERVAL_MONTH_DAY_NANO,
		arrow.FIXED_SIZE_BINARY:
		return columnForm{form: formFixed, width: dt.(arrow.FixedWidthDataType).BitWidth() / 8}
	case arrow.STRING, arrow.BINARY:
		return columnForm{form: formVarBinary, width: 4}
	case arrow.LARGE_STRING, arrow.LARGE_BINARY:
		return columnForm{form: formVarBinary, width: 8}
	}
	return columnForm{form: formIPC}
}

// partsOf is the number of parts a form has (formIPC: variable).
func partsOf(form int) int {
	switch form {
	case formFixed:
		return 2
	case formVarBinary:
		return 3
	}
	return -1
}

// bitmapLen is the bytes of a bitmap of n bits.
func bitmapLen(n int) int { return (n + 7) / 8 }

// innerLen is the bytes a part's inner form holds when it is not
// colenc-encoded: the final bytes, or half of them when narrowed.
func (s partSpec) innerLen() int {
	if s.flags&partNarrowed != 0 {
		return s.final / 2
	}
	return s.final
}

// partSpec is one entry of the part table.
type partSpec struct {
	flags  uint8
	final  int // bytes of the Arrow buffer the part becomes
	inner  int // bytes the codec yields (final unless encoded)
	stored int // bytes in the chunk
}

// checksum is the 4 bytes closing every chunk: the low half of the XXH3
// 64-bit hash of the bytes before it. XXH3 (zeebo/xxh3, already an arrow-go
// dependency) runs at over 20 GB/s with AVX2, three times the CRC-32C
// instruction here, and a scan of uncompressed chunks hashes every byte it
// reads. Chunks live in memory only, so the hash need not be a standard one.
func checksum(b []byte) uint32 { return uint32(xxh3.Hash(b)) }

// appendCRC appends the checksum of dst[start:].
func appendCRC(dst []byte, start int) []byte {
	return binary.LittleEndian.AppendUint32(dst, checksum(dst[start:]))
}

func appendUvarint(dst []byte, v int) []byte { return binary.AppendUvarint(dst, uint64(v)) }
