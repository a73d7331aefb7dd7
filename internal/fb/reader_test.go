package fb

import (
	"bytes"
	"errors"
	"testing"

	flatbuffers "github.com/google/flatbuffers/go"
)

// sample builds a root table with every kind of slot:
//
//	0 bool true  1 u8 200  2 i16 -3  3 i32 -70000  4 i64 1<<40
//	5 string "hello"  6 [int] {1,2,3}  7 [Pair] {(1,2),(3,4)}
//	8 [Child] {Child{0 i32 10}, Child{0 i32 20}}  9/10 union tag 3 + Child{0 i32 30}
//	11 [string] {"a", "bc"}  12 absent  13 i32 = default (not written)
func sample() []byte {
	b := flatbuffers.NewBuilder(0)
	child := func(v int32) flatbuffers.UOffsetT {
		b.StartObject(1)
		b.PrependInt32Slot(0, v, 0)
		return b.EndObject()
	}
	c1, c2, c3 := child(10), child(20), child(30)
	s := b.CreateString("hello")
	sa, sbc := b.CreateString("a"), b.CreateString("bc")
	b.StartVector(4, 3, 4)
	b.PrependInt32(3)
	b.PrependInt32(2)
	b.PrependInt32(1)
	ints := b.EndVector(3)
	b.StartVector(16, 2, 8)
	for _, p := range [][2]int64{{3, 4}, {1, 2}} {
		b.Prep(8, 16)
		b.PrependInt64(p[1])
		b.PrependInt64(p[0])
	}
	pairs := b.EndVector(2)
	kids := b.CreateVectorOfTables([]flatbuffers.UOffsetT{c1, c2})
	strs := b.CreateVectorOfTables([]flatbuffers.UOffsetT{sa, sbc})
	b.StartObject(14)
	b.PrependBoolSlot(0, true, false)
	b.PrependUint8Slot(1, 200, 0)
	b.PrependInt16Slot(2, -3, 0)
	b.PrependInt32Slot(3, -70000, 0)
	b.PrependInt64Slot(4, 1<<40, 0)
	b.PrependUOffsetTSlot(5, s, 0)
	b.PrependUOffsetTSlot(6, ints, 0)
	b.PrependUOffsetTSlot(7, pairs, 0)
	b.PrependUOffsetTSlot(8, kids, 0)
	b.PrependUint8Slot(9, 3, 0)
	b.PrependUOffsetTSlot(10, c3, 0)
	b.PrependUOffsetTSlot(11, strs, 0)
	b.PrependInt32Slot(13, 5, 5)
	b.Finish(b.EndObject())
	return b.FinishedBytes()
}

func TestReadSample(t *testing.T) {
	r := NewReader(sample())
	root := r.Root()
	if !root.Exists() {
		t.Fatalf("root: %v", r.Err())
	}
	if got := root.Bool(0, false); !got {
		t.Errorf("bool = %v", got)
	}
	if got := root.Uint8(1, 0); got != 200 {
		t.Errorf("u8 = %d", got)
	}
	if got := root.Int8(1, 0); got != -56 {
		t.Errorf("i8 = %d", got)
	}
	if got := root.Int16(2, 0); got != -3 {
		t.Errorf("i16 = %d", got)
	}
	if got := root.Int32(3, 0); got != -70000 {
		t.Errorf("i32 = %d", got)
	}
	if got := root.Int64(4, 0); got != 1<<40 {
		t.Errorf("i64 = %d", got)
	}
	if got := root.String(5); got != "hello" {
		t.Errorf("string = %q", got)
	}
	ints := root.Vector(6, 4)
	if ints.Len() != 3 || ints.Int32(0) != 1 || ints.Int32(2) != 3 {
		t.Errorf("ints len %d", ints.Len())
	}
	pairs := root.Vector(7, 16)
	if pairs.Len() != 2 || pairs.Struct(1).Int64(0) != 3 || pairs.Struct(1).Int64(8) != 4 || pairs.Struct(0).Int64(8) != 2 {
		t.Errorf("pairs len %d", pairs.Len())
	}
	kids := root.Vector(8, 4)
	if kids.Len() != 2 || kids.Table(0).Int32(0, 0) != 10 || kids.Table(1).Int32(0, 0) != 20 {
		t.Errorf("kids len %d", kids.Len())
	}
	tag, u := root.Union(9, 10)
	if tag != 3 || u.Int32(0, 0) != 30 {
		t.Errorf("union tag %d value %d", tag, u.Int32(0, 0))
	}
	strs := root.Vector(11, 4)
	if strs.Len() != 2 || string(strs.Bytes(0)) != "a" || string(strs.Bytes(1)) != "bc" {
		t.Errorf("strings len %d", strs.Len())
	}
	if root.Has(12) || root.Table(12).Exists() || root.Vector(12, 4).Len() != 0 || root.Bytes(12) != nil {
		t.Errorf("slot 12 should be absent")
	}
	if root.Has(13) || root.Int32(13, 5) != 5 {
		t.Errorf("slot 13 should be absent with default 5")
	}
	if root.Int32(200, -1) != -1 {
		t.Errorf("slot beyond vtable should be absent")
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
}

func TestZeroValues(t *testing.T) {
	var tbl Table
	if tbl.Exists() || tbl.Has(0) || tbl.Int64(0, 9) != 9 || tbl.Table(0).Exists() || tbl.Vector(0, 8).Len() != 0 || tbl.String(0) != "" {
		t.Fatal("zero Table is not empty")
	}
	if tag, v := tbl.Union(0, 1); tag != 0 || v.Exists() {
		t.Fatal("zero Table union")
	}
}

func TestBytesAliasAndCap(t *testing.T) {
	buf := sample()
	r := NewReader(buf)
	s := r.Root().Bytes(5)
	if cap(s) != len(s) {
		t.Fatalf("cap %d != len %d: appends would overwrite the buffer", cap(s), len(s))
	}
	before := bytes.Clone(buf)
	_ = append(s, 'x')
	if !bytes.Equal(buf, before) {
		t.Fatal("append to Bytes result changed the buffer")
	}
}

func TestCorrupt(t *testing.T) {
	good := sample()
	rootPos := int(good[0]) | int(good[1])<<8
	tests := []struct {
		name string
		buf  []byte
		read func(Table)
	}{
		{"empty", nil, nil},
		{"short", []byte{1, 0}, nil},
		{"root beyond", []byte{0xff, 0xff, 0xff, 0xff}, nil},
		{"root at zero", []byte{0, 0, 0, 0, 0, 0, 0, 0}, nil},
		{"truncated", good[:len(good)-4], func(t Table) { t.Vector(8, 4).Table(0).Int32(0, 0) }},
		{"vtable negative", patch32(good, rootPos, uint32(int32(rootPos+10))), nil},
		{"vtable beyond", patch32(good, rootPos, 0x80000000), nil},
		{"vector too long", nil, func(t Table) { t.Vector(6, 4) }},
		{"string too long", nil, func(t Table) { t.Bytes(5) }},
		{"struct vector too long", nil, func(t Table) { t.Vector(7, 16) }},
	}
	// Make the vector and string lengths lie.
	for i, tc := range tests {
		if tc.buf != nil || tc.read == nil || tc.name == "truncated" {
			continue
		}
		buf := bytes.Clone(good)
		r := NewReader(buf)
		slot := map[string]int{"vector too long": 6, "string too long": 5, "struct vector too long": 7}[tc.name]
		p := r.Root().field(slot, 4)
		vec := r.deref(p)
		tests[i].buf = patch32(buf, int(vec), 1<<30)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := NewReader(tc.buf)
			root := r.Root()
			if tc.read != nil {
				tc.read(root)
			}
			err := r.Err()
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("err = %v, want ErrInvalid", err)
			}
			// Sticky: later reads give defaults, the error stays the first one.
			if root.Int32(3, 42) != 42 && root.Exists() {
				t.Errorf("read after error returned data")
			}
			if r.Err() != err {
				t.Errorf("error changed to %v", r.Err())
			}
		})
	}
}

func TestSlotBeyondBuffer(t *testing.T) {
	// The vtable says slot 0 is at +4 and the buffer ends two bytes later,
	// so an int16 there reads and an int32 would reach past the end.
	buf := []byte{
		12, 0, 0, 0, // root -> table at 12
		0, 0, // pad
		6, 0, 6, 0, 4, 0, // vtable at 6: size 6, object 6, slot 0 at +4
		6, 0, 0, 0, // table at 12: soffset 6 -> vtable at 6
		1, 2, // slot 0
	}
	r := NewReader(buf)
	root := r.Root()
	if !root.Exists() {
		t.Fatal(r.Err())
	}
	if root.Int16(0, 0) != 0x0201 {
		t.Errorf("int16 within the buffer should read")
	}
	root.Int32(0, 0)
	if !errors.Is(r.Err(), ErrInvalid) {
		t.Fatalf("int32 reaching past the buffer: err = %v", r.Err())
	}
}

func TestFail(t *testing.T) {
	r := NewReader(sample())
	mine := errors.New("mine")
	r.Fail(mine)
	r.Fail(errors.New("second"))
	if r.Err() != mine {
		t.Fatalf("err = %v", r.Err())
	}
	if r.Root().Exists() {
		t.Fatal("Root after Fail")
	}
	r.Reset(sample())
	if r.Err() != nil || !r.Root().Exists() {
		t.Fatal("Reset did not clear the error")
	}
}

func patch32(b []byte, pos int, v uint32) []byte {
	b = bytes.Clone(b)
	b[pos], b[pos+1], b[pos+2], b[pos+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
	return b
}
