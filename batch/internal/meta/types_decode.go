package meta

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/quiverdb/quiver/internal/fb"
)

// Decoding the Type union of a Field. Enum values the format does not
// define (a newer writer's) are ErrUnsupported; defined values in a
// combination the format forbids, and sizes out of range, are ErrCorrupt.

// typ builds the arrow type of union tag from its table t and the already
// decoded child fields.
func (d *decoder) typ(tag uint8, t fb.Table, kids []arrow.Field) (arrow.DataType, error) {
	switch {
	case tag == typeNone:
		return nil, corruptf("field %v has no type", d.path)
	case tag > typeMax:
		return nil, unsupportedf("field %v has Type union tag %d (newest known %d)", d.path, tag, typeMax)
	case !t.Exists():
		return nil, corruptf("field %v: Type tag %d without a type table", d.path, tag)
	}
	if want := childCount(tag); want >= 0 && len(kids) != want {
		return nil, corruptf("field %v: type %d has %d children, want %d", d.path, tag, len(kids), want)
	}
	var (
		dt  arrow.DataType
		err error
	)
	switch tag {
	case typeNull:
		dt = arrow.Null
	case typeBool:
		dt = arrow.FixedWidthTypes.Boolean
	case typeBinary:
		dt = arrow.BinaryTypes.Binary
	case typeUtf8:
		dt = arrow.BinaryTypes.String
	case typeLargeBinary:
		dt = arrow.BinaryTypes.LargeBinary
	case typeLargeUtf8:
		dt = arrow.BinaryTypes.LargeString
	case typeBinaryView:
		dt = arrow.BinaryTypes.BinaryView
	case typeUtf8View:
		dt = arrow.BinaryTypes.StringView
	case typeInt:
		dt, err = d.intType(t)
	case typeFloatingPoint:
		dt, err = d.floatType(t)
	case typeDecimal:
		dt, err = d.decimalType(t)
	case typeDate:
		dt, err = d.dateType(t)
	case typeTime:
		dt, err = d.timeType(t)
	case typeTimestamp:
		dt, err = d.timestampType(t)
	case typeInterval:
		dt, err = d.intervalType(t)
	case typeDuration:
		dt, err = d.durationType(t)
	case typeFixedSizeBinary:
		dt, err = d.fixedSizeBinaryType(t)
	case typeList:
		dt = arrow.ListOfField(kids[0])
	case typeLargeList:
		dt = arrow.LargeListOfField(kids[0])
	case typeListView:
		dt = arrow.ListViewOfField(kids[0])
	case typeLargeListView:
		dt = arrow.LargeListViewOfField(kids[0])
	case typeFixedSizeList:
		dt, err = d.fixedSizeListType(t, kids[0])
	case typeStruct:
		dt = arrow.StructOf(kids...)
	case typeMap:
		dt, err = d.mapType(t, kids[0])
	case typeUnion:
		dt, err = d.unionType(t, kids)
	case typeRunEndEncoded:
		dt, err = d.runEndEncodedType(kids)
	}
	if err == nil {
		err = readErr(&d.r, "type")
	}
	return dt, err
}

// childCount returns how many children a field of type tag has, or -1 for
// any number.
func childCount(tag uint8) int {
	switch tag {
	case typeList, typeLargeList, typeListView, typeLargeListView, typeFixedSizeList, typeMap:
		return 1
	case typeRunEndEncoded:
		return 2
	case typeStruct, typeUnion:
		return -1
	}
	return 0
}

// intType decodes an Int table (also a dictionary's indexType).
func (d *decoder) intType(t fb.Table) (arrow.DataType, error) {
	bits, signed := t.Int32(intBitWidth, 0), t.Bool(intIsSigned, false)
	switch {
	case bits == 8 && signed:
		return arrow.PrimitiveTypes.Int8, nil
	case bits == 8:
		return arrow.PrimitiveTypes.Uint8, nil
	case bits == 16 && signed:
		return arrow.PrimitiveTypes.Int16, nil
	case bits == 16:
		return arrow.PrimitiveTypes.Uint16, nil
	case bits == 32 && signed:
		return arrow.PrimitiveTypes.Int32, nil
	case bits == 32:
		return arrow.PrimitiveTypes.Uint32, nil
	case bits == 64 && signed:
		return arrow.PrimitiveTypes.Int64, nil
	case bits == 64:
		return arrow.PrimitiveTypes.Uint64, nil
	}
	return nil, corruptf("field %v: Int bitWidth %d, want 8, 16, 32 or 64", d.path, bits)
}

func (d *decoder) floatType(t fb.Table) (arrow.DataType, error) {
	switch p := t.Int16(floatPrecision, precisionHalf); p {
	case precisionHalf:
		return arrow.FixedWidthTypes.Float16, nil
	case precisionSingle:
		return arrow.PrimitiveTypes.Float32, nil
	case precisionDouble:
		return arrow.PrimitiveTypes.Float64, nil
	default:
		return nil, unsupportedf("field %v: FloatingPoint precision %d", d.path, p)
	}
}

// decimalMaxPrecision returns the largest precision a decimal of bits
// holds, or false for a width the format does not have.
func decimalMaxPrecision(bits int32) (int32, bool) {
	switch bits {
	case 32:
		return 9, true
	case 64:
		return 18, true
	case 128:
		return 38, true
	case 256:
		return 76, true
	}
	return 0, false
}

func (d *decoder) decimalType(t fb.Table) (arrow.DataType, error) {
	prec, scale := t.Int32(decimalPrecision, 0), t.Int32(decimalScale, 0)
	bits := t.Int32(decimalBitWidth, 128)
	maxPrec, ok := decimalMaxPrecision(bits)
	switch {
	case !ok:
		return nil, corruptf("field %v: Decimal bitWidth %d, want 32, 64, 128 or 256", d.path, bits)
	case prec < 1 || prec > maxPrec:
		return nil, corruptf("field %v: Decimal%d precision %d outside [1, %d]", d.path, bits, prec, maxPrec)
	case scale < -maxPrec || scale > maxPrec:
		// The format sets no bound, but arrow-go indexes tables of powers
		// of ten by scale and panics beyond them.
		return nil, corruptf("field %v: Decimal%d scale %d outside [-%d, %d]", d.path, bits, scale, maxPrec, maxPrec)
	}
	switch bits {
	case 32:
		return &arrow.Decimal32Type{Precision: prec, Scale: scale}, nil
	case 64:
		return &arrow.Decimal64Type{Precision: prec, Scale: scale}, nil
	case 128:
		return &arrow.Decimal128Type{Precision: prec, Scale: scale}, nil
	default:
		return &arrow.Decimal256Type{Precision: prec, Scale: scale}, nil
	}
}

func (d *decoder) dateType(t fb.Table) (arrow.DataType, error) {
	switch u := t.Int16(dateUnit, dateUnitMillisecond); u {
	case dateUnitDay:
		return arrow.FixedWidthTypes.Date32, nil
	case dateUnitMillisecond:
		return arrow.FixedWidthTypes.Date64, nil
	default:
		return nil, unsupportedf("field %v: DateUnit %d", d.path, u)
	}
}

// timeUnit maps a TimeUnit enum value.
func (d *decoder) timeUnit(u int16) (arrow.TimeUnit, error) {
	switch u {
	case timeUnitSecond:
		return arrow.Second, nil
	case timeUnitMillisecond:
		return arrow.Millisecond, nil
	case timeUnitMicrosecond:
		return arrow.Microsecond, nil
	case timeUnitNanosecond:
		return arrow.Nanosecond, nil
	}
	return 0, unsupportedf("field %v: TimeUnit %d", d.path, u)
}

func (d *decoder) timeType(t fb.Table) (arrow.DataType, error) {
	unit, err := d.timeUnit(t.Int16(timeUnit, timeUnitMillisecond))
	if err != nil {
		return nil, err
	}
	bits := t.Int32(timeBitWidth, 32)
	switch {
	case bits == 32 && (unit == arrow.Second || unit == arrow.Millisecond):
		return &arrow.Time32Type{Unit: unit}, nil
	case bits == 64 && (unit == arrow.Microsecond || unit == arrow.Nanosecond):
		return &arrow.Time64Type{Unit: unit}, nil
	}
	return nil, corruptf("field %v: Time bitWidth %d with unit %v (want 32 for s/ms, 64 for us/ns)", d.path, bits, unit)
}

func (d *decoder) timestampType(t fb.Table) (arrow.DataType, error) {
	unit, err := d.timeUnit(t.Int16(timestampUnit, timeUnitSecond))
	if err != nil {
		return nil, err
	}
	tz, err := d.str(t, timestampTimezone, "Timestamp timezone")
	if err != nil {
		return nil, err
	}
	return &arrow.TimestampType{Unit: unit, TimeZone: tz}, nil
}

func (d *decoder) intervalType(t fb.Table) (arrow.DataType, error) {
	switch u := t.Int16(intervalUnit, intervalYearMonth); u {
	case intervalYearMonth:
		return arrow.FixedWidthTypes.MonthInterval, nil
	case intervalDayTime:
		return arrow.FixedWidthTypes.DayTimeInterval, nil
	case intervalMonthDayNano:
		return arrow.FixedWidthTypes.MonthDayNanoInterval, nil
	default:
		return nil, unsupportedf("field %v: IntervalUnit %d", d.path, u)
	}
}

func (d *decoder) durationType(t fb.Table) (arrow.DataType, error) {
	unit, err := d.timeUnit(t.Int16(durationUnit, timeUnitMillisecond))
	if err != nil {
		return nil, err
	}
	return &arrow.DurationType{Unit: unit}, nil
}

func (d *decoder) fixedSizeBinaryType(t fb.Table) (arrow.DataType, error) {
	w := t.Int32(fixedSizeBinaryByteWidth, 0)
	if w < 0 {
		return nil, corruptf("field %v: FixedSizeBinary byteWidth %d", d.path, w)
	}
	return &arrow.FixedSizeBinaryType{ByteWidth: int(w)}, nil
}

func (d *decoder) fixedSizeListType(t fb.Table, elem arrow.Field) (arrow.DataType, error) {
	n := t.Int32(fixedSizeListListSize, 0)
	if n < 1 {
		// arrow-go cannot represent a list size of 0 (Arrow C++ can).
		return nil, corruptf("field %v: FixedSizeList listSize %d, want >= 1", d.path, n)
	}
	return arrow.FixedSizeListOfField(n, elem), nil
}

// mapType checks the entries child: a non-nullable struct of a non-nullable
// key and a value. Child names are not checked (the format does not fix
// them); arrow-go renames them entries, key and value.
func (d *decoder) mapType(t fb.Table, entries arrow.Field) (arrow.DataType, error) {
	st, ok := entries.Type.(*arrow.StructType)
	switch {
	case !ok || st.NumFields() != 2:
		return nil, corruptf("field %v: Map child is %v, want a struct of key and value", d.path, entries.Type)
	case entries.Nullable:
		return nil, corruptf("field %v: Map entries are nullable", d.path)
	case st.Field(0).Nullable:
		return nil, corruptf("field %v: Map keys are nullable", d.path)
	}
	mt := arrow.MapOfFields(st.Field(0), st.Field(1))
	mt.KeysSorted = t.Bool(mapKeysSorted, false)
	return mt, nil
}

// unionType reads the mode and the optional typeIds (default: the child
// indexes), which must be distinct and within [0, 127].
func (d *decoder) unionType(t fb.Table, kids []arrow.Field) (arrow.DataType, error) {
	mode := arrow.SparseMode
	switch m := t.Int16(unionMode, unionModeSparse); m {
	case unionModeSparse:
	case unionModeDense:
		mode = arrow.DenseMode
	default:
		return nil, unsupportedf("field %v: UnionMode %d", d.path, m)
	}
	ids := t.Vector(unionTypeIDs, 4)
	if err := readErr(&d.r, "Union typeIds"); err != nil {
		return nil, err
	}
	if ids.Len() != 0 && ids.Len() != len(kids) {
		return nil, corruptf("field %v: Union has %d typeIds for %d children", d.path, ids.Len(), len(kids))
	}
	if len(kids) > int(arrow.MaxUnionTypeCode)+1 {
		return nil, corruptf("field %v: Union has %d children, at most %d", d.path, len(kids), int(arrow.MaxUnionTypeCode)+1)
	}
	if err := d.spend(int64(ids.Len())*typeIDCost, "Union typeIds"); err != nil {
		return nil, err
	}
	codes := make([]arrow.UnionTypeCode, len(kids))
	var seen [int(arrow.MaxUnionTypeCode) + 1]bool
	for i := range codes {
		id := int32(i)
		if ids.Len() != 0 {
			id = ids.Int32(i)
		}
		if id < 0 || id > int32(arrow.MaxUnionTypeCode) || seen[id] {
			return nil, corruptf("field %v: Union type id %d out of range or repeated", d.path, id)
		}
		seen[id] = true
		codes[i] = arrow.UnionTypeCode(id)
	}
	return arrow.UnionOf(mode, kids, codes), nil
}

func (d *decoder) runEndEncodedType(kids []arrow.Field) (arrow.DataType, error) {
	switch kids[0].Type.ID() {
	case arrow.INT16, arrow.INT32, arrow.INT64:
	default:
		return nil, corruptf("field %v: run_ends type %v, want int16, int32 or int64", d.path, kids[0].Type)
	}
	ree := arrow.RunEndEncodedOf(kids[0].Type, kids[1].Type)
	ree.ValueNullable = kids[1].Nullable
	return ree, nil
}
