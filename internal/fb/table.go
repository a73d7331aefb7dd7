package fb

import "encoding/binary"

// Table is a checked view of one flatbuffer table. The zero Table stands for
// an absent table: every field reads as absent. Tables are small values;
// copy them freely.
type Table struct {
	r      *Reader
	pos    int64 // of the table's soffset
	vt     int64 // of its vtable
	vtSize int64 // vtable bytes, header included
}

// Exists reports whether t is a table read from the buffer (not absent, not
// the result of a failed access).
func (t Table) Exists() bool { return t.r != nil }

// Pos returns the position of the table in the buffer (0 for an absent one).
func (t Table) Pos() int { return int(t.pos) }

// field returns the position of slot's value if the slot is present and its
// n bytes fit in the buffer, or -1. A present slot that does not fit records
// an error.
func (t Table) field(slot, n int) int64 {
	if t.r == nil || t.r.err != nil {
		return -1
	}
	entry := 4 + 2*int64(slot)
	if entry+2 > t.vtSize {
		return -1 // written by an older schema: absent
	}
	off := int64(binary.LittleEndian.Uint16(t.r.buf[t.vt+entry:]))
	if off == 0 {
		return -1
	}
	if !t.r.fits(t.pos+off, int64(n)) {
		t.r.failf("table at %d: slot %d at +%d (%d bytes) beyond buffer of %d bytes", t.pos, slot, off, n, len(t.r.buf))
		return -1
	}
	return t.pos + off
}

// Has reports whether slot is present in the vtable.
func (t Table) Has(slot int) bool { return t.field(slot, 0) >= 0 }

// Bool reads a bool slot (any non-zero byte is true).
func (t Table) Bool(slot int, def bool) bool {
	if p := t.field(slot, 1); p >= 0 {
		return t.r.buf[p] != 0
	}
	return def
}

// Uint8 reads a ubyte slot.
func (t Table) Uint8(slot int, def uint8) uint8 {
	if p := t.field(slot, 1); p >= 0 {
		return t.r.buf[p]
	}
	return def
}

// Int8 reads a byte slot.
func (t Table) Int8(slot int, def int8) int8 { return int8(t.Uint8(slot, uint8(def))) }

// Int16 reads a short slot.
func (t Table) Int16(slot int, def int16) int16 {
	if p := t.field(slot, 2); p >= 0 {
		return int16(binary.LittleEndian.Uint16(t.r.buf[p:]))
	}
	return def
}

// Int32 reads an int slot.
func (t Table) Int32(slot int, def int32) int32 {
	if p := t.field(slot, 4); p >= 0 {
		return int32(binary.LittleEndian.Uint32(t.r.buf[p:]))
	}
	return def
}

// Int64 reads a long slot.
func (t Table) Int64(slot int, def int64) int64 {
	if p := t.field(slot, 8); p >= 0 {
		return int64(binary.LittleEndian.Uint64(t.r.buf[p:]))
	}
	return def
}

// Table reads a slot holding a uoffset to a table. An absent slot gives the
// zero Table.
func (t Table) Table(slot int) Table {
	if p := t.field(slot, 4); p >= 0 {
		return t.r.table(t.r.deref(p))
	}
	return Table{}
}

// Vector reads a slot holding a uoffset to a vector of elemSize-byte
// elements (4 for vectors of tables or strings). An absent slot gives an
// empty Vector.
func (t Table) Vector(slot, elemSize int) Vector {
	if elemSize <= 0 {
		panic("fb: vector element size must be positive")
	}
	if p := t.field(slot, 4); p >= 0 {
		return t.r.vector(p, elemSize)
	}
	return Vector{}
}

// Bytes reads a string slot without copying; the result aliases the buffer.
// An absent slot gives nil.
func (t Table) Bytes(slot int) []byte {
	if p := t.field(slot, 4); p >= 0 {
		return t.r.bytes(p)
	}
	return nil
}

// String reads a string slot into a new string. An absent slot gives "".
func (t Table) String(slot int) string { return string(t.Bytes(slot)) }

// Union reads a union stored as a ubyte tag in tagSlot and a uoffset in
// valueSlot. Tag 0 (NONE) gives the zero Table. A non-zero tag whose value
// is absent gives that tag and the zero Table; the caller decides whether
// that is an error.
func (t Table) Union(tagSlot, valueSlot int) (tag uint8, value Table) {
	tag = t.Uint8(tagSlot, 0)
	if tag == 0 {
		return 0, Table{}
	}
	return tag, t.Table(valueSlot)
}
