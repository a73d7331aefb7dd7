package fb

import (
	"encoding/binary"
	"testing"

	flatbuffers "github.com/google/flatbuffers/go"
)

// walk reads every slot of t in every way the reader offers and follows
// tables, vectors of tables and unions down to depth, visiting at most
// *budget tables. It must never panic, whatever the bytes.
func walk(t Table, depth int, budget *int) {
	if depth == 0 || !t.Exists() || *budget <= 0 {
		return
	}
	*budget--
	for slot := range 8 {
		t.Has(slot)
		t.Bool(slot, false)
		t.Int8(slot, 0)
		t.Int16(slot, 0)
		t.Int32(slot, 0)
		t.Int64(slot, 0)
		t.Bytes(slot)
		walk(t.Table(slot), depth-1, budget)
		_, u := t.Union(slot, slot+1)
		walk(u, depth-1, budget)
		for _, size := range []int{1, 2, 4, 8, 16, 24} {
			v := t.Vector(slot, size)
			for i := range min(v.Len(), 8) {
				switch size {
				case 1:
					v.Uint8(i)
				case 2:
					v.Int16(i)
				case 4:
					v.Int32(i)
					v.Bytes(i)
					walk(v.Table(i), depth-1, budget)
				case 8:
					v.Int64(i)
				default:
					s := v.Struct(i)
					s.Int64(0)
					s.Int32(size - 4)
				}
			}
		}
	}
}

func FuzzReader(f *testing.F) {
	f.Add(sample())
	f.Add([]byte{})
	f.Add([]byte{4, 0, 0, 0, 0xfc, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, data []byte) {
		r := NewReader(data)
		budget := 256
		walk(r.Root(), 4, &budget)
	})
}

// FuzzRoundTrip builds a table from the fuzz input with the flatbuffers
// Builder (one field per 9-byte record: a kind byte and a value) and checks
// the reader returns what was written.
func FuzzRoundTrip(f *testing.F) {
	f.Add([]byte{0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 2, 7, 0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{3, 5, 0, 0, 0, 0, 0, 0, 0, 4, 3, 0, 0, 0, 0, 0, 0, 0, 5, 2, 0, 0, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		type field struct {
			kind byte
			val  uint64
		}
		var fields []field
		for len(data) >= 9 && len(fields) < 32 {
			fields = append(fields, field{data[0] % 6, binary.LittleEndian.Uint64(data[1:])})
			data = data[9:]
		}
		b := flatbuffers.NewBuilder(0)
		offs := make([]flatbuffers.UOffsetT, len(fields))
		for i, fl := range fields {
			n := int(fl.val % 8)
			switch fl.kind {
			case 3: // string
				s := make([]byte, n)
				for j := range s {
					s[j] = byte(fl.val >> (8 * j))
				}
				offs[i] = b.CreateByteString(s)
			case 4: // vector of int64
				b.StartVector(8, n, 8)
				for j := n - 1; j >= 0; j-- {
					b.PrependInt64(int64(fl.val) + int64(j))
				}
				offs[i] = b.EndVector(n)
			case 5: // sub-table holding the value in slot 1
				b.StartObject(2)
				b.PrependUint64Slot(1, fl.val, 0)
				offs[i] = b.EndObject()
			}
		}
		b.StartObject(len(fields))
		for i, fl := range fields {
			switch fl.kind {
			case 0:
				b.PrependByteSlot(i, byte(fl.val), 0)
			case 1:
				b.PrependInt16Slot(i, int16(fl.val), 0)
			case 2:
				b.PrependInt64Slot(i, int64(fl.val), 0)
			default:
				b.PrependUOffsetTSlot(i, offs[i], 0)
			}
		}
		b.Finish(b.EndObject())
		r := NewReader(b.FinishedBytes())
		root := r.Root()
		for i, fl := range fields {
			n := int(fl.val % 8)
			switch fl.kind {
			case 0:
				if got := root.Uint8(i, 0); got != byte(fl.val) {
					t.Fatalf("slot %d: u8 %d, want %d", i, got, byte(fl.val))
				}
			case 1:
				if got := root.Int16(i, 0); got != int16(fl.val) {
					t.Fatalf("slot %d: i16 %d, want %d", i, got, int16(fl.val))
				}
			case 2:
				if got := root.Int64(i, 0); got != int64(fl.val) {
					t.Fatalf("slot %d: i64 %d, want %d", i, got, int64(fl.val))
				}
			case 3:
				got := root.Bytes(i)
				if len(got) != n {
					t.Fatalf("slot %d: string of %d bytes, want %d", i, len(got), n)
				}
				for j := range got {
					if got[j] != byte(fl.val>>(8*j)) {
						t.Fatalf("slot %d: string byte %d", i, j)
					}
				}
			case 4:
				v := root.Vector(i, 8)
				if v.Len() != n {
					t.Fatalf("slot %d: vector of %d, want %d", i, v.Len(), n)
				}
				for j := range n {
					if v.Int64(j) != int64(fl.val)+int64(j) {
						t.Fatalf("slot %d: element %d", i, j)
					}
				}
			case 5:
				if got := root.Table(i).Int64(1, 0); got != int64(fl.val) {
					t.Fatalf("slot %d: sub-table %d, want %d", i, got, int64(fl.val))
				}
			}
		}
		if err := r.Err(); err != nil {
			t.Fatal(err)
		}
	})
}
