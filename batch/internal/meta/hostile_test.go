package meta

import (
	"bytes"
	"encoding/binary"
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	flatbuffers "github.com/google/flatbuffers/go"
)

func TestSanityOfRawBuilders(t *testing.T) {
	m, err := DecodeMessage(schemaMsg(rawI32Field), Limits{})
	if err != nil || m.Schema.Schema.NumFields() != 1 || m.Schema.Schema.Field(0).Type.ID() != arrow.INT32 {
		t.Fatalf("raw schema: %v %v", m, err)
	}
	m, err = DecodeMessage(recordMsg(16, rawRecord(2,
		off(recordNodes, rawPairs([2]int64{2, 0})),
		off(recordBuffers, rawPairs([2]int64{0, 8}, [2]int64{8, 8})))), Limits{})
	if err != nil || len(m.Record.Buffers) != 2 {
		t.Fatalf("raw record: %v %v", m, err)
	}
}

// decodeCase is a message that must fail with want.
type decodeCase struct {
	name string
	msg  []byte
	lim  Limits
	want error
}

func TestDecodeRejects(t *testing.T) {
	timeT := func(unit, bits int64) build { return rawTableOf(i16(timeUnit, unit), i32(timeBitWidth, bits)) }
	decimal := func(prec, bits int64) build {
		return rawTableOf(i32(decimalPrecision, prec), i32(decimalScale, 2), i32(decimalBitWidth, bits))
	}
	union := func(mode int64, ids build, n int) build {
		fields := make([]build, n)
		for i := range fields {
			fields[i] = rawI32Field
		}
		vals := []slotVal{i16(unionMode, mode)}
		if ids != nil {
			vals = append(vals, off(unionTypeIDs, ids))
		}
		return rawField(typeUnion, rawTableOf(vals...), kids(fields...))
	}
	utf8Field := rawField(typeUtf8, rawEmpty)
	entries := func(nullable, keyNullable bool) build {
		return rawField(typeStruct, rawEmpty, boolean(fieldNullable, nullable),
			kids(rawField(typeUtf8, rawEmpty, boolean(fieldNullable, keyNullable)), rawI32Field))
	}
	dictField := func(enc ...slotVal) build {
		return rawField(typeUtf8, rawEmpty, off(fieldDictionary, rawTableOf(enc...)))
	}
	nest := func(depth int) build {
		f := rawI32Field
		for range depth - 1 {
			f = rawField(typeList, rawEmpty, kids(f))
		}
		return f
	}
	many := func(n int, f build) []build {
		out := make([]build, n)
		for i := range out {
			out[i] = f
		}
		return out
	}
	nodes := func(ns ...[2]int64) slotVal { return off(recordNodes, rawPairs(ns...)) }
	bufs := func(bs ...[2]int64) slotVal { return off(recordBuffers, rawPairs(bs...)) }
	comp := func(codec, method int64) slotVal {
		return off(recordCompression, rawTableOf(i8(bodyCompressionCodec, codec), i8(bodyCompressionMethod, method)))
	}
	uuidOverInt := rawField(typeInt, rawInt(32, true), off(fieldCustomMetadata, rawVectorOf(rawKV(extensionNameKey, "arrow.uuid"), rawKV(extensionMetadataKey, ""))))

	C, U := ErrCorrupt, ErrUnsupported
	cases := []decodeCase{
		// Framing.
		{"empty", nil, Limits{}, C},
		{"three bytes", []byte{1, 2, 3}, Limits{}, C},
		{"root past end", []byte{0xf0, 0xff, 0xff, 0x7f, 0, 0, 0, 0}, Limits{}, C},
		{"no header", rawMessage(int64(HeaderNone), nil, 0), Limits{}, C},
		{"header tag without table", rawMessage(int64(HeaderSchema), nil, 0), Limits{}, C},
		{"negative body length", rawMessage(int64(HeaderRecordBatch), rawRecord(0), -1), Limits{}, C},
		{"tensor", rawMessage(int64(HeaderTensor), rawEmpty, 0), Limits{}, U},
		{"sparse tensor", rawMessage(int64(HeaderSparseTensor), rawEmpty, 0), Limits{}, U},
		{"header 9", rawMessage(9, rawEmpty, 0), Limits{}, U},
		{"version V3", rawBytes(rawTableOf(i16(messageVersion, 2), i8(messageHeaderType, 3), off(messageHeader, rawRecord(0)))), Limits{}, U},
		{"version V6", rawBytes(rawTableOf(i16(messageVersion, 5), i8(messageHeaderType, 3), off(messageHeader, rawRecord(0)))), Limits{}, U},
		{"message metadata over limit", rawMessage(int64(HeaderRecordBatch), rawRecord(0), 0,
			off(messageCustomMetadata, rawVectorOf(rawKV("a", "1"), rawKV("b", "2")))), Limits{MaxMetadata: 1}, C},

		// Schema.
		{"big endian", rawMessage(int64(HeaderSchema), rawSchema(nil, i16(schemaEndianness, 1)), 0), Limits{}, U},
		{"endianness 7", rawMessage(int64(HeaderSchema), rawSchema(nil, i16(schemaEndianness, 7)), 0), Limits{}, U},
		{"feature 4", rawMessage(int64(HeaderSchema), rawSchema(nil, off(schemaFeatures, rawLongs(2, 4))), 0), Limits{}, U},
		{"type NONE", schemaMsg(rawField(typeNone, rawEmpty)), Limits{}, C},
		{"type tag without table", schemaMsg(rawField(typeInt, nil)), Limits{}, C},
		{"type tag 27", schemaMsg(rawField(27, rawEmpty)), Limits{}, U},
		{"type tag 255", schemaMsg(rawField(255, rawEmpty)), Limits{}, U},
		{"int bitWidth 12", schemaMsg(rawField(typeInt, rawInt(12, true))), Limits{}, C},
		{"int bitWidth 128", schemaMsg(rawField(typeInt, rawInt(128, false))), Limits{}, C},
		{"int bitWidth absent", schemaMsg(rawField(typeInt, rawEmpty)), Limits{}, C},
		{"float precision 3", schemaMsg(rawField(typeFloatingPoint, rawTableOf(i16(floatPrecision, 3)))), Limits{}, U},
		{"decimal precision 0", schemaMsg(rawField(typeDecimal, decimal(0, 128))), Limits{}, C},
		{"decimal128 precision 39", schemaMsg(rawField(typeDecimal, decimal(39, 128))), Limits{}, C},
		{"decimal32 precision 10", schemaMsg(rawField(typeDecimal, decimal(10, 32))), Limits{}, C},
		{"decimal bitWidth 100", schemaMsg(rawField(typeDecimal, decimal(5, 100))), Limits{}, C},
		{"decimal256 scale 77", schemaMsg(rawField(typeDecimal, rawTableOf(i32(decimalPrecision, 5), i32(decimalScale, 77), i32(decimalBitWidth, 256)))), Limits{}, C},
		{"decimal32 scale -10", schemaMsg(rawField(typeDecimal, rawTableOf(i32(decimalPrecision, 5), i32(decimalScale, -10), i32(decimalBitWidth, 32)))), Limits{}, C},
		{"decimal128 scale -5371", schemaMsg(rawField(typeDecimal, rawTableOf(i32(decimalPrecision, 5), i32(decimalScale, -5371), i32(decimalBitWidth, 128)))), Limits{}, C},
		{"date unit 2", schemaMsg(rawField(typeDate, rawTableOf(i16(dateUnit, 2)))), Limits{}, U},
		{"time32 us", schemaMsg(rawField(typeTime, timeT(timeUnitMicrosecond, 32))), Limits{}, C},
		{"time64 s", schemaMsg(rawField(typeTime, timeT(timeUnitSecond, 64))), Limits{}, C},
		{"time bitWidth 16", schemaMsg(rawField(typeTime, timeT(timeUnitSecond, 16))), Limits{}, C},
		{"time unit 4", schemaMsg(rawField(typeTime, timeT(4, 64))), Limits{}, U},
		{"timestamp unit -1", schemaMsg(rawField(typeTimestamp, rawTableOf(i16(timestampUnit, -1)))), Limits{}, U},
		{"duration unit 9", schemaMsg(rawField(typeDuration, rawTableOf(i16(durationUnit, 9)))), Limits{}, U},
		{"interval unit 3", schemaMsg(rawField(typeInterval, rawTableOf(i16(intervalUnit, 3)))), Limits{}, U},
		{"fixed size binary -1", schemaMsg(rawField(typeFixedSizeBinary, rawTableOf(i32(fixedSizeBinaryByteWidth, -1)))), Limits{}, C},
		{"fixed size list 0", schemaMsg(rawField(typeFixedSizeList, rawTableOf(i32(fixedSizeListListSize, 0)), kids(rawI32Field))), Limits{}, C},
		{"list without child", schemaMsg(rawField(typeList, rawEmpty)), Limits{}, C},
		{"list with two children", schemaMsg(rawField(typeList, rawEmpty, kids(rawI32Field, rawI32Field))), Limits{}, C},
		{"int with a child", schemaMsg(rawField(typeInt, rawInt(8, true), kids(rawI32Field))), Limits{}, C},
		{"map of int", schemaMsg(rawField(typeMap, rawEmpty, kids(rawI32Field))), Limits{}, C},
		{"map entries nullable", schemaMsg(rawField(typeMap, rawEmpty, kids(entries(true, false)))), Limits{}, C},
		{"map keys nullable", schemaMsg(rawField(typeMap, rawEmpty, kids(entries(false, true)))), Limits{}, C},
		{"union mode 2", schemaMsg(union(2, nil, 1)), Limits{}, U},
		{"union ids count", schemaMsg(union(0, rawInts(0, 1, 2), 2)), Limits{}, C},
		{"union id 200", schemaMsg(union(1, rawInts(0, 200), 2)), Limits{}, C},
		{"union id -1", schemaMsg(union(1, rawInts(-1, 0), 2)), Limits{}, C},
		{"union id repeated", schemaMsg(union(0, rawInts(3, 3), 2)), Limits{}, C},
		{"union of 129", schemaMsg(union(0, nil, 129)), Limits{}, C},
		{"run ends utf8", schemaMsg(rawField(typeRunEndEncoded, rawEmpty, kids(utf8Field, rawI32Field))), Limits{}, C},
		{"run end encoded one child", schemaMsg(rawField(typeRunEndEncoded, rawEmpty, kids(rawI32Field))), Limits{}, C},
		{"dictionary id -1", schemaMsg(dictField(i64(dictEncodingID, -1))), Limits{}, C},
		{"dictionary kind 1", schemaMsg(dictField(i16(dictEncodingKind, 1))), Limits{}, U},
		{"dictionary index int7", schemaMsg(dictField(off(dictEncodingIndexType, rawInt(7, true)))), Limits{}, C},
		{"dictionary ids repeated", schemaMsg(dictField(i64(dictEncodingID, 4)), dictField(i64(dictEncodingID, 4))), Limits{}, C},
		{"uuid over int32", schemaMsg(uuidOverInt), Limits{}, C},
		{"depth over limit", schemaMsg(nest(5)), Limits{MaxDepth: 4}, C},
		{"depth over default", schemaMsg(nest(DefaultLimits.MaxDepth + 1)), Limits{}, C},
		{"depth over cap", schemaMsg(nest(maxDepthCap + 1)), Limits{MaxDepth: 1 << 30}, C},
		{"fields over limit", schemaMsg(many(10, rawI32Field)...), Limits{MaxFields: 9}, C},
		{"nested fields over limit", schemaMsg(nest(4), nest(4)), Limits{MaxFields: 7}, C},
		{"field metadata over limit", schemaMsg(rawField(typeInt, rawInt(8, true),
			off(fieldCustomMetadata, rawVectorOf(rawKV("a", "1"), rawKV("b", "2"))))), Limits{MaxMetadata: 1}, C},

		// RecordBatch.
		{"negative length", recordMsg(0, rawRecord(-1)), Limits{}, C},
		{"negative node length", recordMsg(0, rawRecord(1, nodes([2]int64{-1, 0}))), Limits{}, C},
		{"negative null count", recordMsg(0, rawRecord(1, nodes([2]int64{1, -1}))), Limits{}, C},
		{"null count over length", recordMsg(0, rawRecord(1, nodes([2]int64{1, 2}))), Limits{}, C},
		{"negative buffer offset", recordMsg(16, rawRecord(1, bufs([2]int64{-8, 8}))), Limits{}, C},
		{"negative buffer length", recordMsg(16, rawRecord(1, bufs([2]int64{0, -8}))), Limits{}, C},
		{"buffer past body", recordMsg(16, rawRecord(1, bufs([2]int64{8, 9}))), Limits{}, C},
		{"buffer overflowing", recordMsg(16, rawRecord(1, bufs([2]int64{8, 1<<63 - 1}))), Limits{}, C},
		{"nodes over limit", recordMsg(0, rawRecord(1, nodes([2]int64{1, 0}, [2]int64{1, 0}))), Limits{MaxNodes: 1}, C},
		{"buffers over limit", recordMsg(16, rawRecord(1, bufs([2]int64{0, 8}, [2]int64{8, 8}))), Limits{MaxBuffers: 1}, C},
		{"negative variadic count", recordMsg(0, rawRecord(1, off(recordVariadicCounts, rawLongs(-1)))), Limits{}, C},
		{"huge variadic count", recordMsg(0, rawRecord(1, off(recordVariadicCounts, rawLongs(1<<40)))), Limits{}, C},
		{"codec 2", recordMsg(0, rawRecord(1, comp(2, 0))), Limits{}, U},
		{"codec -1 written", recordMsg(0, rawRecord(1, comp(-1, 0))), Limits{}, U},
		{"method 1", recordMsg(0, rawRecord(1, comp(0, 1))), Limits{}, U},
		{"dictionary batch without data", rawMessage(int64(HeaderDictionaryBatch), rawTableOf(i64(dictBatchID, 1)), 0), Limits{}, C},
		{"dictionary batch id -2", rawMessage(int64(HeaderDictionaryBatch), rawTableOf(i64(dictBatchID, -2), off(dictBatchData, rawRecord(0))), 0), Limits{}, C},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m, err := DecodeMessage(tc.msg, tc.lim)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v (message %+v), want %v", err, m, tc.want)
			}
			if errors.Is(err, ErrCorrupt) == errors.Is(err, ErrUnsupported) {
				t.Fatalf("err = %v matches both or neither sentinel", err)
			}
			if m != nil {
				t.Fatalf("message %+v returned with an error", m)
			}
		})
	}
}

func TestDecodeFooterRejects(t *testing.T) {
	schema := rawSchema([]build{rawI32Field})
	blocks := func(bs ...[3]int64) build {
		return func(b *flatbuffers.Builder) flatbuffers.UOffsetT {
			b.StartVector(blockSize, len(bs), 8)
			for i := len(bs) - 1; i >= 0; i-- {
				b.Prep(8, blockSize)
				b.PrependInt64(bs[i][2])
				b.Pad(4)
				b.PrependInt32(int32(bs[i][1]))
				b.PrependInt64(bs[i][0])
			}
			return b.EndVector(len(bs))
		}
	}
	v5 := i16(footerVersion, int64(MetadataV5))
	cases := []decodeCase{
		{"empty", nil, Limits{}, ErrCorrupt},
		{"no schema", rawBytes(rawTableOf(v5)), Limits{}, ErrCorrupt},
		{"version V2", rawBytes(rawTableOf(i16(footerVersion, 1), off(footerSchema, schema))), Limits{}, ErrUnsupported},
		{"negative offset", rawBytes(rawTableOf(v5, off(footerSchema, schema), off(footerRecordBatches, blocks([3]int64{-8, 16, 0})))), Limits{}, ErrCorrupt},
		{"negative metadata", rawBytes(rawTableOf(v5, off(footerSchema, schema), off(footerDictionaries, blocks([3]int64{8, -16, 0})))), Limits{}, ErrCorrupt},
		{"overflowing block", rawBytes(rawTableOf(v5, off(footerSchema, schema), off(footerRecordBatches, blocks([3]int64{1 << 62, 16, 1 << 62})))), Limits{}, ErrCorrupt},
		{"blocks over limit", rawBytes(rawTableOf(v5, off(footerSchema, schema), off(footerRecordBatches, blocks([3]int64{8, 16, 0}, [3]int64{24, 16, 0})))), Limits{MaxNodes: 1}, ErrCorrupt},
		{"bad schema", rawBytes(rawTableOf(v5, off(footerSchema, rawSchema([]build{rawField(typeInt, rawInt(3, true))})))), Limits{}, ErrCorrupt},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, err := DecodeFooter(tc.msg, tc.lim)
			if !errors.Is(err, tc.want) || f != nil {
				t.Fatalf("err = %v (footer %+v), want %v", err, f, tc.want)
			}
		})
	}
}

// validMessages are encodings of every kind of table, for mutation tests.
func validMessages(t *testing.T) [][]byte {
	registerPair(t)
	var out [][]byte
	for _, m := range append(sampleMessages(), &Message{Header: HeaderSchema, Schema: NewSchema(allTypesSchema()), Metadata: md("k", "v")}) {
		b, err := EncodeMessage(m)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// checkErr fails unless err is nil or matches exactly one sentinel.
func checkErr(t *testing.T, err error, what string) {
	t.Helper()
	if err != nil && errors.Is(err, ErrCorrupt) == errors.Is(err, ErrUnsupported) {
		t.Fatalf("%s: err = %v matches both or neither sentinel", what, err)
	}
}

// TestTruncatedAndFlipped decodes every prefix of valid messages and every
// single-byte corruption of them: errors, never panics.
func TestTruncatedAndFlipped(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	for i, msg := range validMessages(t) {
		for n := range len(msg) {
			_, err := DecodeMessage(msg[:n], Limits{})
			checkErr(t, err, "truncated")
			if err == nil && n < 8 {
				t.Fatalf("message %d cut to %d bytes decoded", i, n)
			}
		}
		for p := range msg {
			for _, x := range []byte{0x01, 0x80, 0xff} {
				bad := bytes.Clone(msg)
				bad[p] ^= x
				_, err := DecodeMessage(bad, Limits{})
				checkErr(t, err, "flipped")
			}
		}
	}
}

// sharedFieldsMessage builds a schema whose field vectors, levels deep,
// each hold width offsets to one shared Field table: width^levels fields
// from a few hundred bytes.
func sharedFieldsMessage(width, levels int) []byte {
	b := flatbuffers.NewBuilder(0)
	f := rawI32Field(b)
	for range levels - 1 {
		vec := sharedVector(b, f, width)
		f = rawTable(b, i8(fieldTypeType, typeStruct), off(fieldType, rawEmpty), off(fieldChildren, func(*flatbuffers.Builder) flatbuffers.UOffsetT { return vec }))
	}
	fields := sharedVector(b, f, width)
	schema := rawTable(b, off(schemaFields, func(*flatbuffers.Builder) flatbuffers.UOffsetT { return fields }))
	b.Finish(rawTable(b, i16(messageVersion, int64(MetadataV5)), i8(messageHeaderType, int64(HeaderSchema)),
		off(messageHeader, func(*flatbuffers.Builder) flatbuffers.UOffsetT { return schema })))
	return b.FinishedBytes()
}

func sharedVector(b *flatbuffers.Builder, obj flatbuffers.UOffsetT, n int) flatbuffers.UOffsetT {
	b.StartVector(4, n, 4)
	for range n {
		b.PrependUOffsetT(obj)
	}
	return b.EndVector(n)
}

// sharedStringMessage gives n metadata entries the same long key.
func sharedStringMessage(n, keyLen int) []byte {
	b := flatbuffers.NewBuilder(0)
	key := b.CreateString(strings.Repeat("k", keyLen))
	kv := rawTable(b, off(keyValueKey, func(*flatbuffers.Builder) flatbuffers.UOffsetT { return key }))
	vec := sharedVector(b, kv, n)
	rec := rawRecord(0)(b)
	b.Finish(rawTable(b, i16(messageVersion, int64(MetadataV5)), i8(messageHeaderType, int64(HeaderRecordBatch)),
		off(messageHeader, func(*flatbuffers.Builder) flatbuffers.UOffsetT { return rec }),
		off(messageCustomMetadata, func(*flatbuffers.Builder) flatbuffers.UOffsetT { return vec })))
	return b.FinishedBytes()
}

// TestSharedObjects: a buffer that points many offsets at one object is
// charged per visit and rejected before it decodes to more than a small
// multiple of its size.
func TestSharedObjects(t *testing.T) {
	for _, tc := range []struct {
		name string
		msg  []byte
	}{
		{"fields 8^6", sharedFieldsMessage(8, 6)},
		{"fields 64^3", sharedFieldsMessage(64, 3)},
		{"fields 1000 wide", sharedFieldsMessage(1000, 1)},
		{"metadata key 1000x1KiB", sharedStringMessage(1000, 1024)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			alloc := allocated(func() { _, err = DecodeMessage(tc.msg, Limits{}) })
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "shared") {
				t.Fatalf("err = %v, want the budget error", err)
			}
			if limit := 64*uint64(len(tc.msg)) + 64<<10; alloc > limit {
				t.Fatalf("decoding %d bytes allocated %d bytes (limit %d)", len(tc.msg), alloc, limit)
			}
			t.Logf("%d bytes in, %d bytes allocated before the error", len(tc.msg), alloc)
		})
	}
	// An honest buffer of the same shape decodes.
	if _, err := DecodeMessage(sharedFieldsMessage(1, 6), Limits{}); err != nil {
		t.Fatal(err)
	}
}

// TestAllocationBound: decoding the largest real schema we have allocates
// a small multiple of its size.
func TestAllocationBound(t *testing.T) {
	for i, msg := range validMessages(t) {
		alloc := allocated(func() {
			if _, err := DecodeMessage(msg, Limits{}); err != nil {
				t.Fatal(err)
			}
		})
		if limit := 64*uint64(len(msg)) + 4<<10; alloc > limit {
			t.Fatalf("message %d: %d bytes allocated %d (limit %d)", i, len(msg), alloc, limit)
		}
		t.Logf("message %d: %d bytes in, %d allocated", i, len(msg), alloc)
	}
}

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// A vector claiming more elements than the buffer holds is rejected before
// anything is allocated for it.
func TestVectorLengthCheckedBeforeAllocation(t *testing.T) {
	msg := recordMsg(0, rawRecord(1, off(recordNodes, rawPairs([2]int64{1, 0}))))
	// Find the nodes vector length (1) followed by the node {1, 0} and
	// make it claim 2^28 nodes.
	pat := binary.LittleEndian.AppendUint32(nil, 1)
	pat = binary.LittleEndian.AppendUint64(pat, 1)
	p := bytes.Index(msg, pat)
	if p < 0 {
		t.Fatal("nodes vector not found")
	}
	binary.LittleEndian.PutUint32(msg[p:], 1<<28)
	var err error
	alloc := allocated(func() { _, err = DecodeMessage(msg, Limits{MaxNodes: 1 << 30}) })
	if !errors.Is(err, ErrCorrupt) || alloc > 64<<10 {
		t.Fatalf("err = %v after allocating %d bytes", err, alloc)
	}
}
