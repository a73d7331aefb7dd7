package sortkey_test

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/sortkey"
	"github.com/quiverdb/quiver/sortkey/sortkeytest"
)

// TestNestedOrder checks lists and structs in every direction against
// the oracle's DuckDB order (element by element, NULL elements last,
// shorter prefixes first), on every pair of rows.
func TestNestedOrder(t *testing.T) {
	rows := 150
	if testing.Short() {
		rows = 70 // every pair is compared: a quarter of the work
	}
	for _, typ := range sortkeytest.NestedTypes() {
		for _, d := range directions {
			f := sortkey.SortField{Type: typ, Desc: d.desc, NullsFirst: d.nullsFirst}
			t.Run(f.String(), func(t *testing.T) {
				mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
				defer mem.AssertSize(t, 0)
				r := rand.New(rand.NewPCG(uint64(typ.ID()), 11))
				col := sortkeytest.Column(mem, typ, rows, 6, 0.15, r)
				defer col.Release()
				checkOrder(t, []arrow.Array{col}, []sortkey.SortField{f})
			})
		}
	}
}

// keysOf encodes col ASC NULLS LAST, one key per row.
func keysOf(t testing.TB, col arrow.Array) *sortkey.Rows {
	enc, err := sortkey.NewEncoder([]sortkey.SortField{{Type: col.DataType()}})
	if err != nil {
		t.Fatal(err)
	}
	var rows sortkey.Rows
	if err := enc.Encode(&rows, []arrow.Array{col}); err != nil {
		t.Fatal(err)
	}
	return &rows
}

// decodeAll decodes each key (its null byte 0x02 a NULL) into a new
// array of t.
func decodeAll(mem memory.Allocator, t arrow.DataType, rows *sortkey.Rows) (arrow.Array, error) {
	b := array.NewBuilder(mem, t)
	defer b.Release()
	for i := range rows.Len() {
		k := rows.Row(i)
		if k[0] != 0x01 {
			b.AppendNull()
			continue
		}
		if err := sortkey.AppendDecoded(b, t, k[1:]); err != nil {
			return nil, err
		}
	}
	return b.NewArray(), nil
}

// TestNestedRoundTrip decodes every key and encodes the values again:
// the same keys (floats come back canonical, which has the same key).
func TestNestedRoundTrip(t *testing.T) {
	types := append(sortkeytest.NestedTypes(),
		arrow.ListOf(&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Uint8, ValueType: arrow.PrimitiveTypes.Int64}),
		arrow.ListOf(arrow.StructOf(
			arrow.Field{Name: "f16", Type: arrow.FixedWidthTypes.Float16, Nullable: true},
			arrow.Field{Name: "f32", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
			arrow.Field{Name: "u", Type: arrow.PrimitiveTypes.Uint64, Nullable: true},
			arrow.Field{Name: "b", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
			arrow.Field{Name: "d", Type: &arrow.Decimal256Type{Precision: 60, Scale: 3}, Nullable: true},
			arrow.Field{Name: "d32", Type: &arrow.Decimal32Type{Precision: 9, Scale: 3}, Nullable: true},
			arrow.Field{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, Nullable: true},
			arrow.Field{Name: "dt", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
			arrow.Field{Name: "iv", Type: arrow.FixedWidthTypes.MonthDayNanoInterval, Nullable: true},
			arrow.Field{Name: "fb", Type: &arrow.FixedSizeBinaryType{ByteWidth: 3}, Nullable: true},
			arrow.Field{Name: "sv", Type: arrow.BinaryTypes.StringView, Nullable: true},
			arrow.Field{Name: "n", Type: arrow.Null, Nullable: true},
		)))
	for _, typ := range types {
		t.Run(typ.String(), func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			r := rand.New(rand.NewPCG(uint64(typ.ID()), 5))
			col := sortkeytest.Column(mem, typ, 200, 8, 0.2, r)
			defer col.Release()
			keys := keysOf(t, col)
			back, err := decodeAll(mem, typ, keys)
			if err != nil {
				t.Fatal(err)
			}
			defer back.Release()
			again := keysOf(t, back)
			for i := range keys.Len() {
				if !bytes.Equal(keys.Row(i), again.Row(i)) {
					t.Fatalf("row %d (%s): key %x, decoded %s, key again %x", i, col.ValueStr(i), keys.Row(i), back.ValueStr(i), again.Row(i))
				}
			}
		})
	}
}

func TestNestedErrors(t *testing.T) {
	if !sortkey.Supported(arrow.ListOf(arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64))) {
		t.Error("a list of maps is no sort key")
	}
	if sortkey.Supported(arrow.MapOf(arrow.BinaryTypes.String, arrow.RunEndEncodedOf(arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64))) {
		t.Error("a map of run-end encoded values is a sort key")
	}
	if !sortkey.Supported(arrow.StructOf()) || !sortkey.Supported(arrow.ListOf(arrow.StructOf())) {
		t.Error("a struct of no fields is no sort key")
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dt := arrow.ListOf(&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.String})
	b := array.NewBuilder(mem, dt)
	defer b.Release()
	if err := sortkey.AppendDecoded(b, dt, []byte{1, 'a', 0, 1, 2, 1, 'a', 0, 1, 0}); err != nil {
		t.Errorf("decoding a list of dictionary values: %v", err)
	} else if a := b.NewArray(); a.ValueStr(0) != `["a",null,"a"]` {
		t.Errorf("decoded %s", a.ValueStr(0))
		a.Release()
	} else {
		a.Release()
	}
	lt := arrow.ListOf(arrow.PrimitiveTypes.Int32)
	for _, bad := range [][]byte{{}, {1}, {1, 0x80, 0, 0}, {3, 0}, {2, 0, 0}, {0, 0}, {1, 0x80, 0, 0, 1, 5}, {1, 0x80, 0, 0, 1, 0, 0}} {
		lb := array.NewBuilder(mem, lt)
		if err := sortkey.AppendDecoded(lb, lt, bad); !errors.Is(err, sortkey.ErrCorrupt) {
			t.Errorf("%x: %v", bad, err)
		}
		lb.Release()
	}
}

// FuzzDecodeNested: garbage never panics, and what decodes encodes back
// to the same bytes.
func FuzzDecodeNested(f *testing.F) {
	types := []arrow.DataType{
		arrow.ListOf(arrow.PrimitiveTypes.Int32),
		arrow.ListOf(arrow.ListOf(arrow.BinaryTypes.String)),
		arrow.FixedSizeListOf(2, arrow.PrimitiveTypes.Float64),
		arrow.StructOf(arrow.Field{Name: "a", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
			arrow.Field{Name: "b", Type: arrow.LargeListOf(&arrow.Decimal128Type{Precision: 30, Scale: 1}), Nullable: true}),
		arrow.ListViewOf(arrow.BinaryTypes.BinaryView),
		arrow.MapOf(arrow.BinaryTypes.String, arrow.ListOf(arrow.PrimitiveTypes.Int16)),
		arrow.ListOf(arrow.DenseUnionOf([]arrow.Field{{Name: "i", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
			{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true}}, []arrow.UnionTypeCode{3, 1})),
		arrow.SparseUnionOf([]arrow.Field{{Name: "i", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
			{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true}}, []arrow.UnionTypeCode{0, 1}),
	}
	mem := memory.NewGoAllocator()
	r := rand.New(rand.NewPCG(3, 4))
	for k, typ := range types {
		col := sortkeytest.Column(mem, typ, 20, 4, 0.1, r)
		keys := keysOf(f, col)
		for i := range keys.Len() {
			if row := keys.Row(i); row[0] == 0x01 {
				f.Add(uint8(k), bytes.Clone(row[1:]))
			}
		}
		col.Release()
	}
	f.Fuzz(func(t *testing.T, which uint8, key []byte) {
		typ := types[int(which)%len(types)]
		b := array.NewBuilder(mem, typ)
		defer b.Release()
		if err := sortkey.AppendDecoded(b, typ, key); err != nil {
			if !errors.Is(err, sortkey.ErrCorrupt) {
				t.Fatalf("%x: %v", key, err)
			}
			return
		}
		a := b.NewArray()
		defer a.Release()
		again := keysOf(t, a)
		if got := again.Row(0); got[0] != 0x01 || !bytes.Equal(got[1:], key) && !canonicalFloats(typ) {
			t.Fatalf("%s: decoded %x to %s, which encodes to %x", typ, key, a.ValueStr(0), got)
		}
	})
}

// canonicalFloats: a key of floats may decode to another NaN or -0.0
// that encodes canonically, so only the decoded value must encode.
func canonicalFloats(t arrow.DataType) bool {
	return t.ID() == arrow.FIXED_SIZE_LIST
}
