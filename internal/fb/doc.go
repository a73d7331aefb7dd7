// Package fb reads FlatBuffers from untrusted bytes.
//
// It is a schema-less view: callers name fields by their slot number (the
// zero-based position of the field in its .fbs table) and say what type they
// expect. Every access is checked against the buffer; a failed check records
// an error on the Reader (the first one wins), and that access and every
// later one return zero values or the caller's defaults. Callers test
// Reader.Err once before they act on what they read, and always before they
// allocate anything sized by a count read from the bytes. Vector lengths are
// checked against the bytes present when the Vector is made, so
// Vector.Len() * elemSize never exceeds len(buf).
//
// The reader does not recurse and holds no state but the buffer and the
// error; how deep a caller follows nested tables is up to the caller. Since
// every offset points forward (to a higher position), following offsets
// always ends, but a buffer may point many offsets at one shared object, so
// callers that materialize what they read must bound the total work
// themselves.
//
// Writing is done with github.com/google/flatbuffers/go's Builder.
//
// # Layout
//
// All integers are little-endian. uoffset is a uint32 added to its own
// position and points forward; soffset is an int32 subtracted from its own
// position. The reader does not require alignment.
//
//	buffer
//	+------------------+----- ... ------------------------------------+
//	| uoffset root     |  tables, vtables, vectors, strings           |
//	+------------------+----- ... ------------------------------------+
//	  0                4
//	  root table = 0 + root
//
//	table at T                           vtable at V = T - soffset
//	+-----------+------------------+     +--------+---------+--------+--------+-----
//	| soffset   | inline fields    |     | u16    | u16     | u16    | u16    | ...
//	| (int32)   | (scalars,        |     | vtable | object  | slot 0 | slot 1 |
//	|           |  uoffsets, ...)  |     | size   | size    | offset | offset |
//	+-----------+------------------+     +--------+---------+--------+--------+-----
//	 T           T+4          T+size      V        V+2       V+4      V+6
//
//	slot i is present when 4+2i+2 <= vtable size and its u16 is non-zero;
//	its value sits at T + offset and must end within the buffer. (The
//	object size is not trusted: the Go Builder shares one vtable between
//	tables of different sizes whose field offsets match.)
//	Absent scalars take the schema default; absent tables, vectors and
//	strings are "not set".
//
//	vector at P = (uoffset position) + uoffset
//	+-------------+-----------+-----------+-----
//	| u32 length  | element 0 | element 1 | ...   elements are scalars, structs
//	+-------------+-----------+-----------+-----  (inline, fixed size) or
//	 P             P+4                            uoffsets to tables/strings
//
//	string: a vector of bytes followed by a zero byte (not checked here).
//
//	union: two slots, a u8 type tag (0 = NONE) and a uoffset to the table
//	of that type.
//
// # Worked example
//
// A table with one int32 field in slot 0 holding 7, as the Builder writes
// it (vtable first, because the Builder writes back to front):
//
//	00: 0c 00 00 00   root uoffset: table at 0+12 = 12
//	04: 00 00         padding
//	06: 06 00         vtable: 6 bytes (header + one slot)
//	08: 08 00         object: 8 bytes (soffset + int32)
//	0a: 04 00         slot 0 at table+4
//	0c: 06 00 00 00   table soffset 6: vtable at 12-6 = 6
//	10: 07 00 00 00   slot 0 value: int32 7
package fb
