package batch

import (
	"bytes"
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/batch/internal/meta"
	"github.com/quiverdb/quiver/codec"
)

// Regression tests for arrays that passed the checks but that arrow-go
// could not build or validate. Each builds a valid one-column record,
// edits its RecordBatch metadata, and decodes it with a checked allocator.

// decodeEdited encodes rec uncompressed, applies edit to its record batch
// metadata and decodes the result with a fresh decoder on mem.
func decodeEdited(t *testing.T, mem memory.Allocator, rec arrow.RecordBatch, edit func(*meta.RecordBatch)) (arrow.RecordBatch, error) {
	t.Helper()
	return decodeEditedBody(t, mem, rec, codec.SettingNone, func(rb *meta.RecordBatch, _ []byte) { edit(rb) })
}

// decodeEditedBody encodes rec with the codec s, applies edit to the
// record batch metadata and a copy of the body, and decodes the result
// with a fresh decoder on mem (dictionary batches decoded first).
func decodeEditedBody(t *testing.T, mem memory.Allocator, rec arrow.RecordBatch, s codec.Setting, edit func(*meta.RecordBatch, []byte)) (arrow.RecordBatch, error) {
	t.Helper()
	enc, err := NewEncoder(rec.Schema(), WriteOptions{Codec: s, Alloc: mem})
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Release()
	msgs, err := enc.Encode(rec)
	if err != nil {
		t.Fatal(err)
	}
	dec, err := NewDecoder(rec.Schema(), ReadOptions{Alloc: mem})
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Release()
	for _, m := range msgs[:len(msgs)-1] {
		if _, err := dec.Decode(m); err != nil {
			t.Fatal(err)
		}
	}
	last := msgs[len(msgs)-1]
	parsed, err := meta.DecodeMessage(last.Meta, meta.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	body := bytes.Clone(last.Body)
	edit(parsed.Record, body)
	return dec.Decode(Message{Meta: mustEncode(parsed), Body: body})
}

func oneColumn(name string, a arrow.Array) arrow.RecordBatch {
	schema := arrow.NewSchema([]arrow.Field{{Name: name, Type: a.DataType(), Nullable: true}}, nil)
	return array.NewRecordBatch(schema, []arrow.Array{a}, int64(a.Len()))
}

// sparseUnionOfInts returns a sparse union of n rows that all select the
// int32 child; the string child holds only empty values.
func sparseUnionOfInts(mem memory.Allocator, n int) arrow.Array {
	ut := arrow.SparseUnionOf([]arrow.Field{
		{Name: "i", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	}, []arrow.UnionTypeCode{0, 1})
	b := array.NewSparseUnionBuilder(mem, ut)
	defer b.Release()
	for i := range n {
		b.Append(0)
		b.Child(0).(*array.Int32Builder).Append(int32(i))
		b.Child(1).AppendEmptyValue()
	}
	return b.NewArray()
}

// TestSparseUnionShortUnusedChild: every child of a sparse union must be
// as long as the union, including a child no row selects; arrow-go slices
// them all when it builds the array and panicked on the short one.
func TestSparseUnionShortUnusedChild(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	u := sparseUnionOfInts(mem, 5)
	defer u.Release()
	rec := oneColumn("u", u)
	defer rec.Release()
	// Nodes: union, int32 child, string child (no row selects it).
	got, err := decodeEdited(t, mem, rec, func(rb *meta.RecordBatch) { rb.Nodes[2].Length = 2 })
	if got != nil || !errors.Is(err, ErrCorrupt) {
		t.Fatalf("got %v, %v; want ErrCorrupt", got, err)
	}
	t.Log(err)
}

// TestRunEndNullCount: a run-end encoded array has no validity and a null
// count of 0 (nulls are null values); arrow-go's ValidateFull refuses any
// other count, so the decoder must too.
func TestRunEndNullCount(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	b := array.NewRunEndEncodedBuilder(mem, arrow.PrimitiveTypes.Int32, arrow.BinaryTypes.String)
	defer b.Release()
	for _, v := range []string{"a", "b", "c"} {
		b.Append(2)
		b.ValueBuilder().(*array.StringBuilder).Append(v)
	}
	ree := b.NewArray()
	defer ree.Release()
	rec := oneColumn("ree", ree)
	defer rec.Release()
	// Nodes: ree, run ends, values.
	got, err := decodeEdited(t, mem, rec, func(rb *meta.RecordBatch) { rb.Nodes[0].NullCount = 1 })
	if got != nil || !errors.Is(err, ErrCorrupt) {
		t.Fatalf("got %v, %v; want ErrCorrupt", got, err)
	}
	t.Log(err)
}

// TestEmptyDenseUnionValidates: an empty dense union is written with no
// offset bytes; arrow-go's DenseUnion.ValidateFull reads the offsets buffer
// unconditionally, so the decoder gives it an empty one instead of nil.
func TestEmptyDenseUnionValidates(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	ut := arrow.DenseUnionOf([]arrow.Field{
		{Name: "i", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	}, []arrow.UnionTypeCode{0, 1})
	b := array.NewDenseUnionBuilder(mem, ut)
	defer b.Release()
	u := b.NewArray()
	defer u.Release()
	rec := oneColumn("u", u)
	defer rec.Release()
	got, err := decodeEdited(t, mem, rec, func(*meta.RecordBatch) {})
	if err != nil {
		t.Fatal(err)
	}
	defer got.Release()
	if err := validateArray(got.Column(0)); err != nil {
		t.Fatal(err)
	}
	_ = got.Column(0).String()
}

// TestNullCountMatchesBitmap: a node's null count must be the number of
// zero bits in its validity bitmap; arrow-go trusts NullN() (its IPC
// writer, told "all null", writes an all-zero bitmap).
func TestNullCountMatchesBitmap(t *testing.T) {
	for _, nulls := range []int64{1, 4} { // the bitmap holds 2 nulls in 4 rows
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		b := array.NewInt64Builder(mem)
		b.AppendValues([]int64{1, 0, 3, 0}, []bool{true, false, true, false})
		a := b.NewArray()
		b.Release()
		rec := oneColumn("v", a)
		a.Release()
		got, err := decodeEdited(t, mem, rec, func(rb *meta.RecordBatch) { rb.Nodes[0].NullCount = nulls })
		rec.Release()
		if got != nil || !errors.Is(err, ErrCorrupt) {
			t.Fatalf("null count %d: got %v, %v; want ErrCorrupt", nulls, got, err)
		}
		t.Log(err)
		mem.AssertSize(t, 0)
	}
}

// TestUnionNullCountIgnored: a union has no validity, so whatever null
// count a writer puts in its node is read as 0, as Arrow C++ reads it, and
// the array passes arrow-go's validation.
func TestUnionNullCountIgnored(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	u := sparseUnionOfInts(mem, 5)
	defer u.Release()
	rec := oneColumn("u", u)
	defer rec.Release()
	got, err := decodeEdited(t, mem, rec, func(rb *meta.RecordBatch) { rb.Nodes[0].NullCount = 3 })
	if err != nil {
		t.Fatal(err)
	}
	defer got.Release()
	if n := got.Column(0).NullN(); n != 0 {
		t.Fatalf("union null count %d, want 0", n)
	}
	if err := validateArray(got.Column(0)); err != nil {
		t.Fatal(err)
	}
}

// TestNoValidityLayoutsValidate: null and run-end encoded arrays, which
// have no buffers in IPC, get the nil validity slot arrow-go's validation
// expects of them.
func TestNoValidityLayoutsValidate(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	nb := array.NewNullBuilder(mem)
	nb.AppendNulls(3)
	nulls := nb.NewArray()
	nb.Release()
	defer nulls.Release()
	rb := array.NewRunEndEncodedBuilder(mem, arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Int64)
	rb.Append(3)
	rb.ValueBuilder().(*array.Int64Builder).Append(7)
	ree := rb.NewArray()
	rb.Release()
	defer ree.Release()
	for _, a := range []arrow.Array{nulls, ree} {
		rec := oneColumn("c", a)
		got, err := decodeEdited(t, mem, rec, func(*meta.RecordBatch) {})
		rec.Release()
		if err != nil {
			t.Fatal(err)
		}
		if err := validateArray(got.Column(0)); err != nil {
			t.Errorf("%s: %v", a.DataType(), err)
		}
		got.Release()
	}
}

// TestFixedSizeBinaryWidthZero: a non-empty FixedSizeBinary(0) array is
// valid Arrow that arrow-go cannot validate, so it is refused as
// unsupported, by the encoder and by the decoder; an empty one still
// round-trips.
func TestFixedSizeBinaryWidthZero(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	b := array.NewFixedSizeBinaryBuilder(mem, &arrow.FixedSizeBinaryType{ByteWidth: 0})
	defer b.Release()
	b.AppendValues([][]byte{{}, {}}, nil)
	a := b.NewArray()
	defer a.Release()
	rec := oneColumn("f", a)
	defer rec.Release()
	enc, err := NewEncoder(rec.Schema(), WriteOptions{Alloc: mem})
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Release()
	if _, err := enc.Encode(rec); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("encode: got %v, want ErrUnsupported", err)
	}
	empty := rec.NewSlice(1, 1)
	defer empty.Release()
	got, err := decodeEdited(t, mem, empty, func(*meta.RecordBatch) {})
	if err != nil {
		t.Fatal(err)
	}
	got.Release()
	// The empty batch's metadata claiming two rows (no bytes needed).
	got, err = decodeEdited(t, mem, empty, func(rb *meta.RecordBatch) { rb.Length, rb.Nodes[0].Length = 2, 2 })
	if got != nil || !errors.Is(err, ErrUnsupported) {
		t.Fatalf("decode: got %v, %v; want ErrUnsupported", got, err)
	}
	t.Log(err)
}
