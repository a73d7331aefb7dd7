package arrowsize

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// Logical estimates the bytes of the rows an array covers, which for a
// slice of a larger array is less than Data (which counts the buffers it
// shares whole): fixed-width values and validity bits by the slice's
// length, strings and binaries by their offsets and the value bytes
// between them. Other types count as Data. It is what extrapolating from
// a batch to more rows should use: a one-row slice of a 10,000-row array
// is not 10,000 rows' worth.
func Logical(a arrow.Array) int64 {
	n := int64(a.Len())
	valid := int64(0)
	if a.NullN() > 0 {
		valid = (n + 7) / 8
	}
	span32 := func(offs []int32) int64 {
		if len(offs) == 0 {
			return 0
		}
		return 4*int64(len(offs)) + int64(offs[len(offs)-1]-offs[0])
	}
	span64 := func(offs []int64) int64 {
		if len(offs) == 0 {
			return 0
		}
		return 8*int64(len(offs)) + offs[len(offs)-1] - offs[0]
	}
	switch x := a.(type) {
	case *array.String:
		return valid + span32(x.ValueOffsets())
	case *array.Binary:
		return valid + span32(x.ValueOffsets())
	case *array.LargeString:
		return valid + span64(x.ValueOffsets())
	case *array.LargeBinary:
		return valid + span64(x.ValueOffsets())
	}
	if fw, ok := a.DataType().(arrow.FixedWidthDataType); ok && len(a.Data().Children()) == 0 && a.DataType().ID() != arrow.DICTIONARY {
		bits := int64(fw.BitWidth())
		return valid + (n*bits+7)/8
	}
	return Data(a.Data())
}

// LogicalRecord sums Logical over the columns of rec.
func LogicalRecord(rec arrow.RecordBatch) int64 {
	var n int64
	for _, col := range rec.Columns() {
		n += Logical(col)
	}
	return n
}
