package meta

import (
	"errors"

	"github.com/apache/arrow-go/v18/arrow"
)

// ErrCorrupt is matched by every error that comes from bad metadata bytes.
// The batch package re-exports it as batch.ErrCorrupt through errors.Is.
var ErrCorrupt = errors.New("corrupt Arrow IPC metadata")

// ErrUnsupported is matched by errors for well-formed metadata that quiver
// does not handle (tensors, unknown types, big-endian data, ...).
var ErrUnsupported = errors.New("unsupported Arrow IPC metadata")

// MetadataVersion V5 is the only version quiver writes; V4 and V5 are read.
const (
	MetadataV4 int16 = 3
	MetadataV5 int16 = 4
)

// HeaderType is the MessageHeader union tag of the Arrow format.
type HeaderType uint8

const (
	HeaderNone            HeaderType = 0
	HeaderSchema          HeaderType = 1
	HeaderDictionaryBatch HeaderType = 2
	HeaderRecordBatch     HeaderType = 3
	HeaderTensor          HeaderType = 4
	HeaderSparseTensor    HeaderType = 5
)

// Compression is the BodyCompression codec of a batch. Only the BUFFER
// method exists in the format.
type Compression int8

const (
	CompressionNone Compression = -1 // no BodyCompression table
	CompressionLZ4  Compression = 0  // LZ4_FRAME
	CompressionZstd Compression = 1  // ZSTD
)

// FieldNode is one entry of RecordBatch.nodes (a 16-byte struct).
type FieldNode struct {
	Length    int64
	NullCount int64
}

// Buffer is one entry of RecordBatch.buffers (a 16-byte struct): a byte
// range of the message body.
type Buffer struct {
	Offset int64
	Length int64
}

// RecordBatch is the RecordBatch table.
type RecordBatch struct {
	Length         int64
	Nodes          []FieldNode
	Buffers        []Buffer
	Compression    Compression
	VariadicCounts []int64 // one per view-typed field, depth-first
}

// DictionaryBatch is the DictionaryBatch table.
type DictionaryBatch struct {
	ID      int64
	Data    RecordBatch
	IsDelta bool
}

// DictField describes one dictionary-encoded field of a schema, in the
// depth-first order in which dictionary ids are assigned by writers.
type DictField struct {
	ID   int64
	Path []int // child indexes from the schema's top-level field down
	Type *arrow.DictionaryType
}

// Schema is a decoded Schema table: the arrow schema (dictionary-encoded
// fields carry *arrow.DictionaryType) plus the ids of its dictionaries.
type Schema struct {
	Schema *arrow.Schema
	Dicts  []DictField
}

// Message is a decoded Message table. Exactly one of Schema, Record and
// Dictionary is set, according to Header.
type Message struct {
	Version    int16
	Header     HeaderType
	BodyLength int64
	Schema     *Schema
	Record     *RecordBatch
	Dictionary *DictionaryBatch
	Metadata   arrow.Metadata // custom_metadata of the Message
}

// Block is one entry of the file footer's dictionaries or recordBatches
// vectors: where an encapsulated message sits in the file.
type Block struct {
	Offset         int64 // of the message's first byte (continuation marker)
	MetaDataLength int32 // prefix + flatbuffer + padding, 8-aligned
	BodyLength     int64
}

// Footer is the Footer table of the IPC file format.
type Footer struct {
	Version      int16
	Schema       *Schema
	Dictionaries []Block
	Records      []Block
	Metadata     arrow.Metadata
}

// Limits bound what a decoder accepts before it allocates anything sized by
// the bytes. Zero fields take the defaults of DefaultLimits.
type Limits struct {
	MaxFields   int // total fields in a schema, all depths
	MaxDepth    int // nesting depth of a schema (a top-level field is at depth 1)
	MaxNodes    int // field nodes in one batch; also its variadic counts and each footer Block vector
	MaxBuffers  int // buffers in one batch; also the largest variadic buffer count
	MaxMetadata int // custom metadata entries per table
}

// DefaultLimits are sized for real data: far above any sane schema, far
// below what would hurt.
var DefaultLimits = Limits{
	MaxFields:   1 << 16,
	MaxDepth:    64,
	MaxNodes:    1 << 20,
	MaxBuffers:  1 << 22,
	MaxMetadata: 1 << 16,
}
