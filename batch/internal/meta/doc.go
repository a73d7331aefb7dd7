// Package meta encodes and decodes the flatbuffer metadata of the Arrow IPC
// format: the Message table that heads every encapsulated message (with a
// Schema, RecordBatch or DictionaryBatch header) and the Footer table of the
// file format, written against the format's Schema.fbs, Message.fbs and
// File.fbs. It does not frame messages (continuation marker, length,
// padding) and does not touch bodies; package batch does both.
//
// Writing: NewSchema numbers a schema's dictionaries, an Encoder (reusable,
// append-style) writes Message and Footer flatbuffers with the flatbuffers
// Builder, always as metadata version V5 and little-endian. Reading:
// DecodeMessage and DecodeFooter read untrusted bytes through the
// bounds-checked views of package internal/fb and return plain Go values
// that do not alias the input.
//
// # The Message table
//
// Slot numbers in brackets; scalars are stored inline in the table, the
// rest behind uoffsets.
//
//	Message
//	+-----------------+-----------------+------------------+----------------+-------------------+
//	| [0] version     | [1] header_type | [2] header       | [3] bodyLength | [4] custom_meta.  |
//	| short: V4=3,V5=4| ubyte union tag | -> Schema |      | long           | -> [KeyValue]     |
//	|                 | 1 Schema        |    DictionaryBatch                 |   {key, value}    |
//	|                 | 2 DictionaryB.  |    | RecordBatch  |                |                   |
//	|                 | 3 RecordBatch   |                  |                |                   |
//	+-----------------+-----------------+------------------+----------------+-------------------+
//
//	Schema          [0] endianness short (Little only)  [1] fields -> [Field]
//	                [2] custom_metadata                 [3] features -> [long]
//	Field           [0] name string  [1] nullable bool  [2] type_type ubyte
//	                [3] type -> Int | FloatingPoint | ... (27 type tables)
//	                [4] dictionary -> DictionaryEncoding {id long, indexType -> Int,
//	                                  isOrdered bool, dictionaryKind short}
//	                [5] children -> [Field]  [6] custom_metadata
//	RecordBatch     [0] length long  [1] nodes -> [FieldNode {length, null_count long}]
//	                [2] buffers -> [Buffer {offset, length long}]
//	                [3] compression -> BodyCompression {codec byte, method byte = BUFFER}
//	                [4] variadicBufferCounts -> [long]
//	DictionaryBatch [0] id long  [1] data -> RecordBatch  [2] isDelta bool
//	Footer          [0] version short  [1] schema -> Schema
//	                [2] dictionaries, [3] recordBatches -> [Block {offset long,
//	                    metaDataLength int, (4 pad), bodyLength long}]
//	                [4] custom_metadata
//
// The annotated dumps in testdata/*.golden walk one Schema and one
// RecordBatch message byte by byte.
//
// # Types
//
// Every type arrow-go v18.8.0 has is written and read: null, bool,
// (u)int8-64, float16/32/64, decimal32/64/128/256, date32/64, time32/64,
// timestamp (unit, zone), duration, the three intervals, (large) binary and
// utf8, binary and utf8 views, fixed size binary, (large) list, (large) list
// view, fixed size list, struct, map, sparse and dense union, run-end
// encoded. Dictionary encoding sits on the Field, at any depth. Extension
// types travel as the ARROW:extension:name and ARROW:extension:metadata
// field metadata over their storage type; on read a type registered with
// arrow.RegisterExtensionType is rebuilt (and the two keys dropped), any
// other keeps its storage type and the keys, as arrow-go does.
//
// Dictionary ids are assigned by NewSchema 0, 1, 2, ... in depth-first
// pre-order (a dictionary before those nested in its value type), the order
// of arrow-go's writer; Schema.Dicts lists them with their field paths.
// Decoding fills Dicts in the same order with the ids found in the bytes.
//
// # Errors and limits
//
// Decoders never panic on any input. An error matches ErrCorrupt when the
// bytes are not valid metadata: offsets or lengths outside the buffer,
// negative sizes, a union or type tag that is NONE or has no table, values
// the format forbids (Int bitWidth other than 8/16/32/64, time32 in us,
// decimal precision outside [1, 9/18/38/76] or scale beyond plus or minus
// that bound (arrow-go cannot format such decimals), repeated dictionary ids,
// union type ids outside [0, 127] or repeated, child counts that do not fit
// the type), buffers outside the body, counts above Limits. It matches
// ErrUnsupported when valid metadata asks for something quiver does not
// read: metadata versions other than V4 and V5, tensors, big-endian data,
// and enum values newer than this package (type tags above 26, unknown
// units, precisions, union modes, codecs, compression methods, dictionary
// kinds, schema features).
//
// Limits bound, before anything they size is allocated, the fields of a
// schema (all depths), its nesting depth, the nodes and buffers of a batch,
// the blocks of a footer (MaxNodes each) and the custom metadata entries of
// a table. Vector lengths are also checked against the bytes present. On
// top of that, a decoder charges each field, string, metadata entry and
// union type id the bytes it takes in an unshared flatbuffer against a
// budget of the input's length: an honest buffer never runs out, one that
// points many offsets at a shared object does. Decoded output is therefore
// at most a constant times the input: about 20x for typical schemas, 75x
// for a schema made only of childless unions (arrow-go's union type holds a
// 1 KiB table), and never more than MaxFields fields.
package meta
