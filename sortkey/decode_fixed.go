package sortkey

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/decimal256"
	"github.com/apache/arrow-go/v18/arrow/float16"
)

// appendFixed appends the fixed-width value of t whose key bytes are k
// (fixed.go's encodings, undone) to b.
func appendFixed(b array.Builder, t arrow.DataType, k []byte) error {
	word := func() uint64 { // the big-endian value of k, up to 8 bytes
		var v uint64
		for _, c := range k {
			v = v<<8 | uint64(c)
		}
		return v
	}
	signed := func() int64 { // sign bit flipped back, then sign-extended
		n := 8 * len(k)
		v := word() ^ 1<<(n-1)
		return int64(v<<(64-n)) >> (64 - n)
	}
	switch x := b.(type) {
	case *array.NullBuilder:
		x.AppendNull() // never reached: a NULL type's value is NULL
	case *array.BooleanBuilder:
		if k[0] > 1 {
			return fmt.Errorf("%w: boolean byte %#x", ErrCorrupt, k[0])
		}
		x.Append(k[0] == 1)
	case *array.Int8Builder:
		x.Append(int8(signed()))
	case *array.Int16Builder:
		x.Append(int16(signed()))
	case *array.Int32Builder:
		x.Append(int32(signed()))
	case *array.Int64Builder:
		x.Append(signed())
	case *array.Uint8Builder:
		x.Append(uint8(word()))
	case *array.Uint16Builder:
		x.Append(uint16(word()))
	case *array.Uint32Builder:
		x.Append(uint32(word()))
	case *array.Uint64Builder:
		x.Append(word())
	case *array.Float16Builder:
		v := uint16(word())
		x.Append(float16.FromBits(uint16(unfloat(uint64(v), 16))))
	case *array.Float32Builder:
		x.Append(math.Float32frombits(uint32(unfloat(word(), 32))))
	case *array.Float64Builder:
		x.Append(math.Float64frombits(unfloat(word(), 64)))
	case *array.Date32Builder:
		x.Append(arrow.Date32(signed()))
	case *array.Date64Builder:
		x.Append(arrow.Date64(signed()))
	case *array.Time32Builder:
		x.Append(arrow.Time32(signed()))
	case *array.Time64Builder:
		x.Append(arrow.Time64(signed()))
	case *array.TimestampBuilder:
		x.Append(arrow.Timestamp(signed()))
	case *array.DurationBuilder:
		x.Append(arrow.Duration(signed()))
	case *array.Decimal32Builder:
		x.Append(decimal.Decimal32(signed()))
	case *array.Decimal64Builder:
		x.Append(decimal.Decimal64(signed()))
	case *array.Decimal128Builder:
		hi := binary.BigEndian.Uint64(k) ^ 1<<63
		x.Append(decimal128.New(int64(hi), binary.BigEndian.Uint64(k[8:])))
	case *array.Decimal256Builder:
		x.Append(decimal256.New(binary.BigEndian.Uint64(k)^1<<63, binary.BigEndian.Uint64(k[8:]),
			binary.BigEndian.Uint64(k[16:]), binary.BigEndian.Uint64(k[24:])))
	case *array.FixedSizeBinaryBuilder:
		x.Append(k)
	case *array.MonthDayNanoIntervalBuilder:
		x.Append(arrow.MonthDayNanoInterval{
			Months:      int32(binary.BigEndian.Uint32(k) ^ 1<<31),
			Days:        int32(binary.BigEndian.Uint32(k[4:]) ^ 1<<31),
			Nanoseconds: int64(binary.BigEndian.Uint64(k[8:]) ^ 1<<63),
		})
	default:
		return fmt.Errorf("%w: decoding a %s", ErrUnsupported, t)
	}
	return nil
}

// unfloat undoes float64Key, float32Key and float16Key for bits-wide
// keys: a positive value's key has the top bit set, a negative one's is
// inverted.
func unfloat(k uint64, bits int) uint64 {
	top := uint64(1) << (bits - 1)
	if k&top != 0 {
		return k ^ top
	}
	return ^k & (top<<1 - 1)
}
