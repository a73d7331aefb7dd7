package meta

import (
	"github.com/apache/arrow-go/v18/arrow"
	flatbuffers "github.com/google/flatbuffers/go"
)

// typ writes the Type union table of dt (a storage type: not an extension
// or dictionary type) and returns its union tag. Child fields are written
// by the caller.
func (e *Encoder) typ(dt arrow.DataType) (uint8, flatbuffers.UOffsetT, error) {
	if bits, signed, ok := intBits(dt); ok {
		return typeInt, e.intTable(bits, signed), nil
	}
	switch dt := dt.(type) {
	case *arrow.NullType:
		return typeNull, e.emptyTable(), nil
	case *arrow.BooleanType:
		return typeBool, e.emptyTable(), nil
	case *arrow.BinaryType:
		return typeBinary, e.emptyTable(), nil
	case *arrow.StringType:
		return typeUtf8, e.emptyTable(), nil
	case *arrow.LargeBinaryType:
		return typeLargeBinary, e.emptyTable(), nil
	case *arrow.LargeStringType:
		return typeLargeUtf8, e.emptyTable(), nil
	case *arrow.BinaryViewType:
		return typeBinaryView, e.emptyTable(), nil
	case *arrow.StringViewType:
		return typeUtf8View, e.emptyTable(), nil
	case *arrow.Float16Type:
		return typeFloatingPoint, e.int16Table(floatPrecision, precisionHalf, -1), nil
	case *arrow.Float32Type:
		return typeFloatingPoint, e.int16Table(floatPrecision, precisionSingle, -1), nil
	case *arrow.Float64Type:
		return typeFloatingPoint, e.int16Table(floatPrecision, precisionDouble, -1), nil
	case arrow.DecimalType:
		return e.decimal(dt)
	case *arrow.Date32Type:
		return typeDate, e.int16Table(dateUnit, dateUnitDay, -1), nil
	case *arrow.Date64Type:
		return typeDate, e.int16Table(dateUnit, dateUnitMillisecond, -1), nil
	case *arrow.Time32Type:
		return e.time(dt.Unit, 32)
	case *arrow.Time64Type:
		return e.time(dt.Unit, 64)
	case *arrow.TimestampType:
		return e.timestamp(dt)
	case *arrow.DurationType:
		u, err := e.timeUnit(dt.Unit)
		return typeDuration, e.int16Table(durationUnit, u, -1), err
	case *arrow.MonthIntervalType:
		return typeInterval, e.int16Table(intervalUnit, intervalYearMonth, -1), nil
	case *arrow.DayTimeIntervalType:
		return typeInterval, e.int16Table(intervalUnit, intervalDayTime, -1), nil
	case *arrow.MonthDayNanoIntervalType:
		return typeInterval, e.int16Table(intervalUnit, intervalMonthDayNano, -1), nil
	case *arrow.FixedSizeBinaryType:
		if dt.ByteWidth < 0 || dt.ByteWidth > 1<<31-1 {
			return 0, 0, unsupportedf("field %v: fixed size binary width %d", e.path, dt.ByteWidth)
		}
		return typeFixedSizeBinary, e.int32Table(fixedSizeBinaryByteWidth, int32(dt.ByteWidth)), nil
	case *arrow.ListType:
		return typeList, e.emptyTable(), nil
	case *arrow.LargeListType:
		return typeLargeList, e.emptyTable(), nil
	case *arrow.ListViewType:
		return typeListView, e.emptyTable(), nil
	case *arrow.LargeListViewType:
		return typeLargeListView, e.emptyTable(), nil
	case *arrow.FixedSizeListType:
		if dt.Len() < 1 {
			return 0, 0, unsupportedf("field %v: fixed size list of %d", e.path, dt.Len())
		}
		return typeFixedSizeList, e.int32Table(fixedSizeListListSize, dt.Len()), nil
	case *arrow.StructType:
		return typeStruct, e.emptyTable(), nil
	case *arrow.MapType:
		e.b.StartObject(mapSlots)
		e.b.PrependBoolSlot(mapKeysSorted, dt.KeysSorted, false)
		return typeMap, e.b.EndObject(), nil
	case arrow.UnionType:
		return typeUnion, e.union(dt), nil
	case *arrow.RunEndEncodedType:
		return typeRunEndEncoded, e.emptyTable(), nil
	}
	return 0, 0, unsupportedf("field %v: type %v", e.path, dt)
}

// intBits returns the width and signedness of an integer type.
func intBits(dt arrow.DataType) (bits int32, signed, ok bool) {
	switch dt.ID() {
	case arrow.INT8:
		return 8, true, true
	case arrow.INT16:
		return 16, true, true
	case arrow.INT32:
		return 32, true, true
	case arrow.INT64:
		return 64, true, true
	case arrow.UINT8:
		return 8, false, true
	case arrow.UINT16:
		return 16, false, true
	case arrow.UINT32:
		return 32, false, true
	case arrow.UINT64:
		return 64, false, true
	}
	return 0, false, false
}

// intTable writes an Int table.
func (e *Encoder) intTable(bits int32, signed bool) flatbuffers.UOffsetT {
	e.b.StartObject(intSlots)
	e.b.PrependInt32Slot(intBitWidth, bits, 0)
	e.b.PrependBoolSlot(intIsSigned, signed, false)
	return e.b.EndObject()
}

// int16Table writes a table whose only field is a short enum in slot. The
// value is always written (def -1 never matches) so that readers need not
// know the schema default.
func (e *Encoder) int16Table(slot int, v, def int16) flatbuffers.UOffsetT {
	e.b.StartObject(slot + 1)
	e.b.PrependInt16Slot(slot, v, def)
	return e.b.EndObject()
}

// int32Table writes a table whose only field is an int in slot.
func (e *Encoder) int32Table(slot int, v int32) flatbuffers.UOffsetT {
	e.b.StartObject(slot + 1)
	e.b.PrependInt32Slot(slot, v, 0)
	return e.b.EndObject()
}

func (e *Encoder) decimal(dt arrow.DecimalType) (uint8, flatbuffers.UOffsetT, error) {
	bits := int32(dt.BitWidth())
	maxPrec, ok := decimalMaxPrecision(bits)
	if !ok || dt.GetPrecision() < 1 || dt.GetPrecision() > maxPrec || dt.GetScale() < -maxPrec || dt.GetScale() > maxPrec {
		return 0, 0, unsupportedf("field %v: %v: precision outside [1, %d] or scale outside [-%d, %d]", e.path, dt, maxPrec, maxPrec, maxPrec)
	}
	e.b.StartObject(decimalSlots)
	e.b.PrependInt32Slot(decimalPrecision, dt.GetPrecision(), 0)
	e.b.PrependInt32Slot(decimalScale, dt.GetScale(), 0)
	e.b.PrependInt32Slot(decimalBitWidth, bits, -1)
	return typeDecimal, e.b.EndObject(), nil
}

func (e *Encoder) timeUnit(u arrow.TimeUnit) (int16, error) {
	switch u {
	case arrow.Second:
		return timeUnitSecond, nil
	case arrow.Millisecond:
		return timeUnitMillisecond, nil
	case arrow.Microsecond:
		return timeUnitMicrosecond, nil
	case arrow.Nanosecond:
		return timeUnitNanosecond, nil
	}
	return 0, unsupportedf("field %v: time unit %d", e.path, u)
}

func (e *Encoder) time(unit arrow.TimeUnit, bits int32) (uint8, flatbuffers.UOffsetT, error) {
	u, err := e.timeUnit(unit)
	if err != nil {
		return 0, 0, err
	}
	if (bits == 32) != (unit == arrow.Second || unit == arrow.Millisecond) {
		return 0, 0, unsupportedf("field %v: time%d with unit %v", e.path, bits, unit)
	}
	e.b.StartObject(timeSlots)
	e.b.PrependInt32Slot(timeBitWidth, bits, -1)
	e.b.PrependInt16Slot(timeUnit, u, -1)
	return typeTime, e.b.EndObject(), nil
}

func (e *Encoder) timestamp(dt *arrow.TimestampType) (uint8, flatbuffers.UOffsetT, error) {
	u, err := e.timeUnit(dt.Unit)
	if err != nil {
		return 0, 0, err
	}
	var tz flatbuffers.UOffsetT
	if dt.TimeZone != "" {
		tz = e.b.CreateString(dt.TimeZone)
	}
	e.b.StartObject(timestampSlots)
	e.b.PrependUOffsetTSlot(timestampTimezone, tz, 0)
	e.b.PrependInt16Slot(timestampUnit, u, -1)
	return typeTimestamp, e.b.EndObject(), nil
}

// union writes a Union table with its mode and type ids.
func (e *Encoder) union(dt arrow.UnionType) flatbuffers.UOffsetT {
	codes := dt.TypeCodes()
	e.b.StartVector(4, len(codes), 4)
	for i := len(codes) - 1; i >= 0; i-- {
		e.b.PrependInt32(int32(codes[i]))
	}
	ids := e.b.EndVector(len(codes))
	mode := int16(unionModeSparse)
	if dt.Mode() == arrow.DenseMode {
		mode = unionModeDense
	}
	e.b.StartObject(unionSlots)
	e.b.PrependUOffsetTSlot(unionTypeIDs, ids, 0)
	e.b.PrependInt16Slot(unionMode, mode, -1)
	return e.b.EndObject()
}
