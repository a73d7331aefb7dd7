package meta

// Slot numbers (zero-based field positions) and enum values of the tables
// this package reads and writes, from the Arrow format's Schema.fbs,
// Message.fbs and File.fbs. Field offsets within structs are in bytes.

// table Message (Message.fbs)
const (
	messageVersion        = 0 // MetadataVersion (short), default V1
	messageHeaderType     = 1 // MessageHeader union tag (ubyte)
	messageHeader         = 2 // MessageHeader union value
	messageBodyLength     = 3 // long
	messageCustomMetadata = 4 // [KeyValue]
	messageSlots          = 5
)

// table Schema (Schema.fbs)
const (
	schemaEndianness     = 0 // Endianness (short), default Little
	schemaFields         = 1 // [Field]
	schemaCustomMetadata = 2 // [KeyValue]
	schemaFeatures       = 3 // [Feature] (long)
	schemaSlots          = 4
)

// Endianness
const (
	endianLittle = 0
	endianBig    = 1
)

// Feature (long) values a reader must understand.
const (
	featureUnused                = 0
	featureDictionaryReplacement = 1
	featureCompressedBody        = 2
)

// table Field
const (
	fieldName           = 0 // string
	fieldNullable       = 1 // bool
	fieldTypeType       = 2 // Type union tag (ubyte)
	fieldType           = 3 // Type union value
	fieldDictionary     = 4 // DictionaryEncoding
	fieldChildren       = 5 // [Field]
	fieldCustomMetadata = 6 // [KeyValue]
	fieldSlots          = 7
)

// table KeyValue
const (
	keyValueKey   = 0 // string
	keyValueValue = 1 // string
	keyValueSlots = 2
)

// table DictionaryEncoding
const (
	dictEncodingID        = 0 // long
	dictEncodingIndexType = 1 // Int; absent means signed 32-bit
	dictEncodingIsOrdered = 2 // bool
	dictEncodingKind      = 3 // DictionaryKind (short): only DenseArray = 0
	dictEncodingSlots     = 4
)

// Type union tags.
const (
	typeNone            = 0
	typeNull            = 1
	typeInt             = 2
	typeFloatingPoint   = 3
	typeBinary          = 4
	typeUtf8            = 5
	typeBool            = 6
	typeDecimal         = 7
	typeDate            = 8
	typeTime            = 9
	typeTimestamp       = 10
	typeInterval        = 11
	typeList            = 12
	typeStruct          = 13
	typeUnion           = 14
	typeFixedSizeBinary = 15
	typeFixedSizeList   = 16
	typeMap             = 17
	typeDuration        = 18
	typeLargeBinary     = 19
	typeLargeUtf8       = 20
	typeLargeList       = 21
	typeRunEndEncoded   = 22
	typeBinaryView      = 23
	typeUtf8View        = 24
	typeListView        = 25
	typeLargeListView   = 26
	typeMax             = typeLargeListView
)

// Slots of the Type tables that have fields. The other type tables (Null,
// Binary, Utf8, Bool, List, Struct_, LargeBinary, LargeUtf8, LargeList,
// RunEndEncoded, BinaryView, Utf8View, ListView, LargeListView) are empty.
const (
	intBitWidth = 0 // int
	intIsSigned = 1 // bool
	intSlots    = 2

	floatPrecision = 0 // Precision (short): HALF, SINGLE, DOUBLE
	floatSlots     = 1

	decimalPrecision = 0 // int
	decimalScale     = 1 // int
	decimalBitWidth  = 2 // int, default 128
	decimalSlots     = 3

	dateUnit  = 0 // DateUnit (short), default MILLISECOND
	dateSlots = 1

	timeUnit     = 0 // TimeUnit (short), default MILLISECOND
	timeBitWidth = 1 // int, default 32
	timeSlots    = 2

	timestampUnit     = 0 // TimeUnit (short), default SECOND
	timestampTimezone = 1 // string
	timestampSlots    = 2

	intervalUnit  = 0 // IntervalUnit (short)
	intervalSlots = 1

	durationUnit  = 0 // TimeUnit (short), default MILLISECOND
	durationSlots = 1

	unionMode    = 0 // UnionMode (short): Sparse, Dense
	unionTypeIDs = 1 // [int], optional
	unionSlots   = 2

	fixedSizeBinaryByteWidth = 0 // int
	fixedSizeBinarySlots     = 1

	fixedSizeListListSize = 0 // int
	fixedSizeListSlots    = 1

	mapKeysSorted = 0 // bool
	mapSlots      = 1
)

// Enum values of the Type tables.
const (
	precisionHalf   = 0
	precisionSingle = 1
	precisionDouble = 2

	dateUnitDay         = 0
	dateUnitMillisecond = 1

	timeUnitSecond      = 0
	timeUnitMillisecond = 1
	timeUnitMicrosecond = 2
	timeUnitNanosecond  = 3

	intervalYearMonth    = 0
	intervalDayTime      = 1
	intervalMonthDayNano = 2

	unionModeSparse = 0
	unionModeDense  = 1
)

// table RecordBatch (Message.fbs)
const (
	recordLength         = 0 // long
	recordNodes          = 1 // [FieldNode]
	recordBuffers        = 2 // [Buffer]
	recordCompression    = 3 // BodyCompression
	recordVariadicCounts = 4 // [long]
	recordSlots          = 5
)

// struct FieldNode { length: long; null_count: long; } and
// struct Buffer { offset: long; length: long; }: 16 bytes each.
const (
	fieldNodeSize      = 16
	fieldNodeLength    = 0
	fieldNodeNullCount = 8
	bufferSize         = 16
	bufferOffset       = 0
	bufferLength       = 8
)

// table BodyCompression
const (
	bodyCompressionCodec    = 0 // CompressionType (byte): LZ4_FRAME, ZSTD
	bodyCompressionMethod   = 1 // BodyCompressionMethod (byte): BUFFER = 0
	bodyCompressionSlots    = 2
	compressionMethodBuffer = 0
)

// table DictionaryBatch
const (
	dictBatchID      = 0 // long
	dictBatchData    = 1 // RecordBatch
	dictBatchIsDelta = 2 // bool
	dictBatchSlots   = 3
)

// table Footer (File.fbs)
const (
	footerVersion        = 0 // MetadataVersion (short)
	footerSchema         = 1 // Schema
	footerDictionaries   = 2 // [Block]
	footerRecordBatches  = 3 // [Block]
	footerCustomMetadata = 4 // [KeyValue]
	footerSlots          = 5
)

// struct Block { offset: long; metaDataLength: int; (4 bytes padding)
// bodyLength: long; }: 24 bytes, 8-aligned.
const (
	blockSize           = 24
	blockOffset         = 0
	blockMetaDataLength = 8
	blockBodyLength     = 16
)
