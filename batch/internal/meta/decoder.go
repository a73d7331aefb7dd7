package meta

import (
	"github.com/quiverdb/quiver/internal/fb"
)

// Charges against a decoder's budget, in bytes. Each is at most the number
// of bytes the charged object occupies by itself in a flatbuffer whose
// objects are not shared (every writer we know of shares only vtables), so
// an honest buffer never spends more than its own length. A hostile buffer
// that points many offsets at one object is charged on every visit and runs
// out. This is what bounds the decoder's output to a small multiple of its
// input; the limits in Limits bound it in absolute terms.
const (
	// A Field: its uoffset in the parent's vector (4), its table's soffset,
	// type tag and type uoffset (9), its type table's soffset (4).
	fieldCost = 16
	// A KeyValue: its uoffset in the vector and its table's soffset.
	keyValueCost = 8
	// A string: its u32 length, plus one per byte.
	stringCost = 4
	// A union type id: one int in the typeIds vector.
	typeIDCost = 4
)

// decoder holds the state of one DecodeMessage or DecodeFooter call.
type decoder struct {
	r      fb.Reader
	lim    Limits
	budget int64 // bytes left to spend, see fieldCost
	fields int   // fields decoded so far, all depths
	path   []int // child indexes of the field being decoded
	dicts  []DictField
}

func newDecoder(buf []byte, lim Limits) *decoder {
	d := &decoder{lim: lim.orDefault(), budget: int64(len(buf))}
	d.r.Reset(buf)
	return d
}

// spend charges n bytes of decoded output against the budget.
func (d *decoder) spend(n int64, what string) error {
	d.budget -= n
	if d.budget < 0 {
		return corruptf("%s: decoded metadata exceeds the %d bytes it was read from (shared flatbuffer objects?)", what, d.r.Len())
	}
	return nil
}

// str reads a string slot and charges it.
func (d *decoder) str(t fb.Table, slot int, what string) (string, error) {
	b := t.Bytes(slot)
	if err := readErr(&d.r, what); err != nil {
		return "", err
	}
	if b == nil {
		return "", nil
	}
	if err := d.spend(stringCost+int64(len(b)), what); err != nil {
		return "", err
	}
	return string(b), nil
}
