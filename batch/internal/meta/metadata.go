package meta

import (
	"github.com/apache/arrow-go/v18/arrow"
	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/quiverdb/quiver/internal/fb"
)

// Custom metadata is a vector of KeyValue tables, { key: string; value:
// string; }, on Message, Schema, Field and Footer. Order is kept; keys may
// repeat.

// metadata decodes the custom_metadata vector in slot of t.
func (d *decoder) metadata(t fb.Table, slot int, what string) (arrow.Metadata, error) {
	v := t.Vector(slot, 4)
	if err := readErr(&d.r, what+" custom_metadata"); err != nil {
		return arrow.Metadata{}, err
	}
	n := v.Len()
	if n == 0 {
		return arrow.Metadata{}, nil
	}
	if n > d.lim.MaxMetadata {
		return arrow.Metadata{}, corruptf("%s: %d custom metadata entries, limit %d", what, n, d.lim.MaxMetadata)
	}
	if err := d.spend(int64(n)*keyValueCost, what); err != nil {
		return arrow.Metadata{}, err
	}
	keys, vals := make([]string, n), make([]string, n)
	for i := range n {
		kv := v.Table(i)
		var err error
		if keys[i], err = d.str(kv, keyValueKey, what+" metadata key"); err != nil {
			return arrow.Metadata{}, err
		}
		if vals[i], err = d.str(kv, keyValueValue, what+" metadata value"); err != nil {
			return arrow.Metadata{}, err
		}
	}
	return arrow.NewMetadata(keys, vals), nil
}

// metadata writes md as a KeyValue vector, or returns 0 (absent) if there
// is nothing to write. If ext is not nil, md's own extension keys are
// dropped and ext's name and serialized metadata are written after md's
// entries (the convention arrow-go and Arrow C++ read).
func (e *Encoder) metadata(md arrow.Metadata, ext arrow.ExtensionType) flatbuffers.UOffsetT {
	if md.Len() == 0 && ext == nil {
		return 0
	}
	base := len(e.stack)
	for i, k := range md.Keys() {
		if ext != nil && (k == extensionNameKey || k == extensionMetadataKey) {
			continue
		}
		e.keyValue(k, md.Values()[i])
	}
	if ext != nil {
		e.keyValue(extensionNameKey, ext.ExtensionName())
		e.keyValue(extensionMetadataKey, ext.Serialize())
	}
	return e.popVector(base)
}

// keyValue writes one KeyValue table and pushes its offset.
func (e *Encoder) keyValue(k, v string) {
	ko, vo := e.b.CreateString(k), e.b.CreateString(v)
	e.b.StartObject(keyValueSlots)
	e.b.PrependUOffsetTSlot(keyValueKey, ko, 0)
	e.b.PrependUOffsetTSlot(keyValueValue, vo, 0)
	e.stack = append(e.stack, e.b.EndObject())
}
