package sortkey

import (
	"encoding/binary"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// writeFixed writes a fixed-width column (doc.go, "Fixed-width values").
func writeFixed(col arrow.Array, f SortField, width int, buf []byte, cur []uint32) {
	var desc uint64
	if f.Desc {
		desc = ^uint64(0)
	}
	nb := f.nullByte()
	switch t := col.DataType(); t.ID() {
	case arrow.NULL:
		for i := range cur {
			buf[cur[i]] = nb
			cur[i]++
		}
	case arrow.BOOL:
		a := col.(*array.Boolean)
		writeWords(col, nb, 1, buf, cur, func(i int) uint64 {
			if a.Value(i) {
				return 1 ^ desc
			}
			return desc
		})
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.DATE32, arrow.DATE64, arrow.TIME32,
		arrow.TIME64, arrow.TIMESTAMP, arrow.DURATION, arrow.DECIMAL32, arrow.DECIMAL64:
		writeSigned(col, nb, width, desc, buf, cur)
	case arrow.UINT8:
		v := rawValues(col, 1)
		writeWords(col, nb, 1, buf, cur, func(i int) uint64 { return uint64(v[i]) ^ desc })
	case arrow.UINT16:
		v := arrow.Uint16Traits.CastFromBytes(rawValues(col, 2))
		writeWords(col, nb, 2, buf, cur, func(i int) uint64 { return uint64(v[i]) ^ desc })
	case arrow.UINT32:
		v := arrow.Uint32Traits.CastFromBytes(rawValues(col, 4))
		writeWords(col, nb, 4, buf, cur, func(i int) uint64 { return uint64(v[i]) ^ desc })
	case arrow.UINT64:
		v := arrow.Uint64Traits.CastFromBytes(rawValues(col, 8))
		writeWords(col, nb, 8, buf, cur, func(i int) uint64 { return v[i] ^ desc })
	case arrow.FLOAT16:
		v := arrow.Uint16Traits.CastFromBytes(rawValues(col, 2))
		writeWords(col, nb, 2, buf, cur, func(i int) uint64 { return uint64(float16Key(v[i])) ^ desc })
	case arrow.FLOAT32:
		v := arrow.Float32Traits.CastFromBytes(rawValues(col, 4))
		writeWords(col, nb, 4, buf, cur, func(i int) uint64 { return uint64(float32Key(v[i])) ^ desc })
	case arrow.FLOAT64:
		v := arrow.Float64Traits.CastFromBytes(rawValues(col, 8))
		writeWords(col, nb, 8, buf, cur, func(i int) uint64 { return float64Key(v[i]) ^ desc })
	case arrow.DECIMAL128, arrow.DECIMAL256:
		writeBigDecimal(col, nb, width/8, desc, buf, cur)
	case arrow.FIXED_SIZE_BINARY:
		writeFixedBinary(col, nb, width, byte(desc), buf, cur)
	case arrow.INTERVAL_MONTH_DAY_NANO:
		writeInterval(col, nb, desc, buf, cur)
	default:
		// NewEncoder and Encode admit only the types above.
		panic("sortkey: writeFixed of " + t.String())
	}
}

// rawValues is the value buffer of a fixed-width column from its offset,
// width bytes a row.
func rawValues(col arrow.Array, width int) []byte {
	d := col.Data()
	b := d.Buffers()[1].Bytes()
	return b[d.Offset()*width : (d.Offset()+d.Len())*width]
}

// writeWords writes, per row, the null byte and the low width bytes of
// key(i) big-endian; a NULL gets width zeros.
func writeWords(col arrow.Array, nb byte, width int, buf []byte, cur []uint32, key func(i int) uint64) {
	nulls := col.NullN() > 0
	w := uint32(width)
	for i, o := range cur {
		d := buf[o : o+1+w : o+1+w]
		cur[i] = o + 1 + w
		if nulls && col.IsNull(i) {
			d[0] = nb
			clear(d[1:])
			continue
		}
		d[0] = validByte
		v := key(i)
		switch width {
		case 1:
			d[1] = byte(v)
		case 2:
			binary.BigEndian.PutUint16(d[1:], uint16(v))
		case 4:
			binary.BigEndian.PutUint32(d[1:], uint32(v))
		case 8:
			binary.BigEndian.PutUint64(d[1:], v)
		}
	}
}

// writeSigned writes two's complement integers of width bytes: flipping
// the sign bit maps them onto unsigned order.
func writeSigned(col arrow.Array, nb byte, width int, desc uint64, buf []byte, cur []uint32) {
	raw := rawValues(col, width)
	sign := uint64(1) << (8*width - 1)
	switch width {
	case 1:
		writeWords(col, nb, 1, buf, cur, func(i int) uint64 { return uint64(raw[i]) ^ sign ^ desc })
	case 2:
		v := arrow.Uint16Traits.CastFromBytes(raw)
		writeWords(col, nb, 2, buf, cur, func(i int) uint64 { return uint64(v[i]) ^ sign ^ desc })
	case 4:
		v := arrow.Uint32Traits.CastFromBytes(raw)
		writeWords(col, nb, 4, buf, cur, func(i int) uint64 { return uint64(v[i]) ^ sign ^ desc })
	case 8:
		v := arrow.Uint64Traits.CastFromBytes(raw)
		writeWords(col, nb, 8, buf, cur, func(i int) uint64 { return v[i] ^ sign ^ desc })
	}
}

// writeBigDecimal writes decimal128 (words = 2) and decimal256 (words = 4):
// little-endian 64-bit words, lowest first, written highest first with the
// top word's sign bit flipped.
func writeBigDecimal(col arrow.Array, nb byte, words int, desc uint64, buf []byte, cur []uint32) {
	v := arrow.Uint64Traits.CastFromBytes(rawValues(col, 8*words))
	nulls := col.NullN() > 0
	w := uint32(8 * words)
	for i, o := range cur {
		d := buf[o : o+1+w : o+1+w]
		cur[i] = o + 1 + w
		if nulls && col.IsNull(i) {
			d[0] = nb
			clear(d[1:])
			continue
		}
		d[0] = validByte
		x := v[i*words : (i+1)*words]
		binary.BigEndian.PutUint64(d[1:], x[words-1]^(1<<63)^desc)
		for k := 1; k < words; k++ {
			binary.BigEndian.PutUint64(d[1+8*k:], x[words-1-k]^desc)
		}
	}
}

// writeInterval writes month_day_nano intervals as their three parts in
// order, months (4 bytes), days (4), nanoseconds (8), each big-endian
// with its sign bit flipped: the order of the parts as they are, not of
// the spans they stand for ('1 day' sorts before '25 hours' but so does
// '2 days'). The query engine sorts intervals by a key of its own and
// groups them normalized, so here equal bytes are what matters.
func writeInterval(col arrow.Array, nb byte, desc uint64, buf []byte, cur []uint32) {
	v := arrow.MonthDayNanoIntervalTraits.CastFromBytes(rawValues(col, 16))
	nulls := col.NullN() > 0
	for i, o := range cur {
		d := buf[o : o+17 : o+17]
		cur[i] = o + 17
		if nulls && col.IsNull(i) {
			d[0] = nb
			clear(d[1:])
			continue
		}
		d[0] = validByte
		x := v[i]
		binary.BigEndian.PutUint32(d[1:], uint32(x.Months)^(1<<31)^uint32(desc))
		binary.BigEndian.PutUint32(d[5:], uint32(x.Days)^(1<<31)^uint32(desc))
		binary.BigEndian.PutUint64(d[9:], uint64(x.Nanoseconds)^(1<<63)^desc)
	}
}

// writeFixedBinary writes fixed_size_binary values as they are (inverted
// for DESC).
func writeFixedBinary(col arrow.Array, nb byte, width int, desc byte, buf []byte, cur []uint32) {
	raw := rawValues(col, width)
	nulls := col.NullN() > 0
	w := uint32(width)
	for i, o := range cur {
		d := buf[o : o+1+w : o+1+w]
		cur[i] = o + 1 + w
		if nulls && col.IsNull(i) {
			d[0] = nb
			clear(d[1:])
			continue
		}
		d[0] = validByte
		copy(d[1:], raw[i*width:(i+1)*width])
		if desc != 0 {
			invert(d[1:])
		}
	}
}

// float64Key maps a float64 onto uint64 order: -0.0 is +0.0, every NaN the
// one NaN above +Inf (doc.go).
func float64Key(f float64) uint64 {
	var b uint64
	switch {
	case f != f:
		b = 0x7FF8000000000000
	case f == 0:
		b = 0
	default:
		b = math.Float64bits(f)
	}
	if b>>63 != 0 {
		return ^b
	}
	return b | 1<<63
}

func float32Key(f float32) uint32 {
	var b uint32
	switch {
	case f != f:
		b = 0x7FC00000
	case f == 0:
		b = 0
	default:
		b = math.Float32bits(f)
	}
	if b>>31 != 0 {
		return ^b
	}
	return b | 1<<31
}

// float16Key works on the IEEE half-precision bits: exponent all ones and a
// non-zero mantissa is NaN; 0x8000 is -0.
func float16Key(b uint16) uint16 {
	switch {
	case b&0x7C00 == 0x7C00 && b&0x03FF != 0:
		b = 0x7E00
	case b == 0x8000:
		b = 0
	}
	if b>>15 != 0 {
		return ^b
	}
	return b | 1<<15
}

// invert flips every byte of b (DESC).
func invert(b []byte) {
	for len(b) >= 8 {
		binary.LittleEndian.PutUint64(b, ^binary.LittleEndian.Uint64(b))
		b = b[8:]
	}
	for i := range b {
		b[i] = ^b[i]
	}
}
