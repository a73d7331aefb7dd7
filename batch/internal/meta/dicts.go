package meta

import (
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
)

// NewSchema wraps s for encoding: it numbers the dictionary-encoded fields
// of s, at any depth, 0, 1, 2, ... in depth-first pre-order (a dictionary
// before the dictionaries nested in its value type), the order arrow-go's
// writer uses (TestSchemaFromArrowGo checks it), and lists them in Dicts in
// that order.
// Extension types are looked through to their storage type.
func NewSchema(s *arrow.Schema) *Schema {
	out := &Schema{Schema: s}
	var path []int
	for i, f := range s.Fields() {
		path = append(path[:0], i)
		out.Dicts = appendDicts(out.Dicts, path, f.Type)
	}
	return out
}

// appendDicts appends the dictionary fields at and below the field at path
// whose type is dt.
func appendDicts(dicts []DictField, path []int, dt arrow.DataType) []DictField {
	if ext, ok := dt.(arrow.ExtensionType); ok {
		dt = ext.StorageType()
	}
	if dict, ok := dt.(*arrow.DictionaryType); ok {
		dicts = append(dicts, DictField{ID: int64(len(dicts)), Path: slices.Clone(path), Type: dict})
		dt = dict.ValueType
		if ext, ok := dt.(arrow.ExtensionType); ok {
			dt = ext.StorageType()
		}
	}
	if nested, ok := dt.(arrow.NestedType); ok {
		for i, c := range nested.Fields() {
			dicts = appendDicts(dicts, append(path, i), c.Type)
		}
	}
	return dicts
}
