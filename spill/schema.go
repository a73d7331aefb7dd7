package spill

import (
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// versionKey goes in the spill schema's metadata with the version of the
// layout doc.go draws, for readers of the file other than this process
// (quiver inspect, a person with pyarrow).
const (
	versionKey    = "quiver.spill.version"
	formatVersion = "1"
)

// Field metadata keys that mark a column written as lengths plus one run
// of bytes (doc.go), so that any reader can rebuild the original type.
const (
	encodingKey     = "quiver.spill.encoding" // value: lengthsEncoding
	origTypeKey     = "quiver.spill.type"     // the original type's name: utf8, large_binary, string_view, ...
	lengthsEncoding = "lengths"
)

// colKind says how one top-level column is written.
type colKind uint8

const (
	colAsIs         colKind = iota // as it is (views and nested views compacted)
	colLengths                     // Utf8, Binary: Struct{Int32, REE<Int32, Binary>}
	colLargeLengths                // LargeUtf8, LargeBinary: Struct{Int64, REE<Int32, LargeBinary>}
	colViewLengths                 // StringView, BinaryView: Struct{Int32, REE<Int32, LargeBinary>}
)

// plan maps a schema to the schema of its spill files and back.
type plan struct {
	schema *arrow.Schema // what callers write and read
	spill  *arrow.Schema // what the file holds
	kinds  []colKind
}

// newPlan writes top-level string and binary columns as lengths when the
// codec compresses (lengths of similar values repeat and compress; the
// offsets they replace grow and do not). Uncompressed, the struct would
// only cost bytes, so columns stay as they are.
func newPlan(schema *arrow.Schema, compress bool) *plan {
	p := &plan{schema: schema, kinds: make([]colKind, schema.NumFields())}
	fields := make([]arrow.Field, schema.NumFields())
	for i, f := range schema.Fields() {
		fields[i] = f
		if !compress {
			continue
		}
		switch f.Type.ID() {
		case arrow.STRING, arrow.BINARY:
			p.kinds[i] = colLengths
		case arrow.LARGE_STRING, arrow.LARGE_BINARY:
			p.kinds[i] = colLargeLengths
		case arrow.STRING_VIEW, arrow.BINARY_VIEW:
			p.kinds[i] = colViewLengths
		default:
			continue
		}
		// Concat, not append: the metadata's slices are the caller's.
		keys := slices.Concat(f.Metadata.Keys(), []string{encodingKey, origTypeKey})
		vals := slices.Concat(f.Metadata.Values(), []string{lengthsEncoding, f.Type.Name()})
		fields[i] = arrow.Field{Name: f.Name, Type: lengthsType(p.kinds[i]), Nullable: f.Nullable, Metadata: arrow.NewMetadata(keys, vals)}
	}
	md := withKey(schema.Metadata(), versionKey, formatVersion)
	p.spill = arrow.NewSchema(fields, &md)
	return p
}

// withKey returns md with key set to value (replaced if present).
func withKey(md arrow.Metadata, key, value string) arrow.Metadata {
	keys, vals := slices.Clone(md.Keys()), slices.Clone(md.Values())
	if i := md.FindKey(key); i >= 0 {
		vals[i] = value
	} else {
		keys, vals = append(keys, key), append(vals, value)
	}
	return arrow.NewMetadata(keys, vals)
}

// lengthsType is the struct a column of kind k is written as.
func lengthsType(k colKind) arrow.DataType {
	var lengths, values arrow.DataType = arrow.PrimitiveTypes.Int32, arrow.BinaryTypes.Binary
	switch k {
	case colLargeLengths:
		lengths, values = arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.LargeBinary
	case colViewLengths:
		values = arrow.BinaryTypes.LargeBinary // all of a batch's view bytes may pass 2 GiB
	}
	return arrow.StructOf(
		arrow.Field{Name: "lengths", Type: lengths},
		arrow.Field{Name: "bytes", Type: arrow.RunEndEncodedOf(arrow.PrimitiveTypes.Int32, values)},
	)
}

// toSpill returns rec in the form the file holds: lengths columns
// encoded, views compacted. The caller releases the result.
func (p *plan) toSpill(rec arrow.RecordBatch, mem memory.Allocator) arrow.RecordBatch {
	cols := make([]arrow.Array, len(p.kinds))
	defer releaseArrays(cols)
	for i, c := range rec.Columns() {
		var d arrow.ArrayData
		if p.kinds[i] == colAsIs {
			d = compact(c.Data(), mem)
		} else {
			d = encodeLengths(c.Data(), p.kinds[i], mem)
		}
		cols[i] = array.MakeFromData(d)
		d.Release()
	}
	return array.NewRecordBatch(p.spill, cols, rec.NumRows())
}

// fromSpill rebuilds a record of the caller's schema from one decoded
// from the file. A failure names the column; the caller adds file, batch
// and ErrCorrupt.
func (p *plan) fromSpill(rec arrow.RecordBatch, mem memory.Allocator) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, len(p.kinds))
	defer releaseArrays(cols)
	for i, c := range rec.Columns() {
		if p.kinds[i] == colAsIs {
			c.Retain()
			cols[i] = c
			continue
		}
		d, err := decodeLengths(c.Data(), p.kinds[i], p.schema.Field(i).Type, mem)
		if err != nil {
			return nil, fmt.Errorf("column %d (%q): %w", i, p.schema.Field(i).Name, err)
		}
		cols[i] = array.MakeFromData(d)
		d.Release()
	}
	return array.NewRecordBatch(p.schema, cols, rec.NumRows()), nil
}

func releaseArrays(as []arrow.Array) {
	for _, a := range as {
		if a != nil {
			a.Release()
		}
	}
}
