package meta

import (
	flatbuffers "github.com/google/flatbuffers/go"
)

// Hand-built flatbuffers for tests that need bytes our Encoder refuses to
// write. Each builder func writes one object and returns its offset.
type build func(b *flatbuffers.Builder) flatbuffers.UOffsetT

// slotVal is one field of a raw table: a scalar of the given kind ('b'
// byte, 'h' int16, 'i' int32, 'q' int64) or an offset ('o', from obj).
type slotVal struct {
	slot int
	kind byte
	v    int64
	obj  build
}

func i8(slot int, v int64) slotVal     { return slotVal{slot: slot, kind: 'b', v: v} }
func i16(slot int, v int64) slotVal    { return slotVal{slot: slot, kind: 'h', v: v} }
func i32(slot int, v int64) slotVal    { return slotVal{slot: slot, kind: 'i', v: v} }
func i64(slot int, v int64) slotVal    { return slotVal{slot: slot, kind: 'q', v: v} }
func off(slot int, obj build) slotVal  { return slotVal{slot: slot, kind: 'o', obj: obj} }
func boolean(slot int, v bool) slotVal { return i8(slot, map[bool]int64{false: 0, true: 1}[v]) }
func str(s string) build {
	return func(b *flatbuffers.Builder) flatbuffers.UOffsetT { return b.CreateString(s) }
}
func rawTableOf(vals ...slotVal) build {
	return func(b *flatbuffers.Builder) flatbuffers.UOffsetT { return rawTable(b, vals...) }
}
func rawVectorOf(objs ...build) build {
	return func(b *flatbuffers.Builder) flatbuffers.UOffsetT { return rawVector(b, objs...) }
}
func rawInts(ids ...int32) build {
	return func(b *flatbuffers.Builder) flatbuffers.UOffsetT { return rawInt32s(b, ids) }
}
func rawLongs(vs ...int64) build {
	return func(b *flatbuffers.Builder) flatbuffers.UOffsetT { return rawInt64s(b, vs) }
}
func rawPairs(vs ...[2]int64) build {
	return func(b *flatbuffers.Builder) flatbuffers.UOffsetT { return rawStructs16(b, vs) }
}

// rawTable writes the offsets first, then the table.
func rawTable(b *flatbuffers.Builder, vals ...slotVal) flatbuffers.UOffsetT {
	offs := make([]flatbuffers.UOffsetT, len(vals))
	n := 0
	for i, v := range vals {
		if v.kind == 'o' {
			offs[i] = v.obj(b)
		}
		n = max(n, v.slot+1)
	}
	b.StartObject(n)
	for i, v := range vals {
		switch v.kind {
		case 'b':
			b.PrependInt8Slot(v.slot, int8(v.v), ^int8(v.v))
		case 'h':
			b.PrependInt16Slot(v.slot, int16(v.v), ^int16(v.v))
		case 'i':
			b.PrependInt32Slot(v.slot, int32(v.v), ^int32(v.v))
		case 'q':
			b.PrependInt64Slot(v.slot, v.v, ^v.v)
		case 'o':
			b.PrependUOffsetTSlot(v.slot, offs[i], 0)
		}
	}
	return b.EndObject()
}

func rawVector(b *flatbuffers.Builder, objs ...build) flatbuffers.UOffsetT {
	offs := make([]flatbuffers.UOffsetT, len(objs))
	for i, o := range objs {
		offs[i] = o(b)
	}
	b.StartVector(4, len(offs), 4)
	for i := len(offs) - 1; i >= 0; i-- {
		b.PrependUOffsetT(offs[i])
	}
	return b.EndVector(len(offs))
}

func rawInt32s(b *flatbuffers.Builder, vs []int32) flatbuffers.UOffsetT {
	b.StartVector(4, len(vs), 4)
	for i := len(vs) - 1; i >= 0; i-- {
		b.PrependInt32(vs[i])
	}
	return b.EndVector(len(vs))
}

func rawInt64s(b *flatbuffers.Builder, vs []int64) flatbuffers.UOffsetT {
	b.StartVector(8, len(vs), 8)
	for i := len(vs) - 1; i >= 0; i-- {
		b.PrependInt64(vs[i])
	}
	return b.EndVector(len(vs))
}

func rawStructs16(b *flatbuffers.Builder, vs [][2]int64) flatbuffers.UOffsetT {
	b.StartVector(16, len(vs), 8)
	for i := len(vs) - 1; i >= 0; i-- {
		b.Prep(8, 16)
		b.PrependInt64(vs[i][1])
		b.PrependInt64(vs[i][0])
	}
	return b.EndVector(len(vs))
}

// rawBytes finishes a buffer whose root is obj.
func rawBytes(obj build) []byte {
	b := flatbuffers.NewBuilder(0)
	b.Finish(obj(b))
	return b.FinishedBytes()
}

// Raw Arrow objects.

func rawInt(bits int64, signed bool) build {
	return rawTableOf(i32(intBitWidth, bits), boolean(intIsSigned, signed))
}

var rawEmpty = rawTableOf()

// rawField writes a Field with a type and optional extras (dictionary,
// children, metadata, name, nullable as slotVals).
func rawField(tag int64, typ build, extra ...slotVal) build {
	vals := []slotVal{i8(fieldTypeType, tag)}
	if typ != nil {
		vals = append(vals, off(fieldType, typ))
	}
	return rawTableOf(append(vals, extra...)...)
}

func kids(fields ...build) slotVal { return off(fieldChildren, rawVectorOf(fields...)) }

func rawKV(k, v string) build {
	return rawTableOf(off(keyValueKey, str(k)), off(keyValueValue, str(v)))
}

var rawI32Field = rawField(typeInt, rawInt(32, true))

// rawSchema writes a Schema table of fields plus extra slots.
func rawSchema(fields []build, extra ...slotVal) build {
	return rawTableOf(append([]slotVal{off(schemaFields, rawVectorOf(fields...))}, extra...)...)
}

// rawMessage writes a V5 Message with the given header.
func rawMessage(tag int64, hdr build, bodyLen int64, extra ...slotVal) []byte {
	vals := []slotVal{i16(messageVersion, int64(MetadataV5)), i8(messageHeaderType, tag), i64(messageBodyLength, bodyLen)}
	if hdr != nil {
		vals = append(vals, off(messageHeader, hdr))
	}
	return rawBytes(rawTableOf(append(vals, extra...)...))
}

func schemaMsg(fields ...build) []byte {
	return rawMessage(int64(HeaderSchema), rawSchema(fields), 0)
}

func rawRecord(length int64, extra ...slotVal) build {
	return rawTableOf(append([]slotVal{i64(recordLength, length)}, extra...)...)
}

func recordMsg(bodyLen int64, rec build) []byte {
	return rawMessage(int64(HeaderRecordBatch), rec, bodyLen)
}
