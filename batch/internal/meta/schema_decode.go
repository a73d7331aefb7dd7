package meta

import (
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/endian"

	"github.com/quiverdb/quiver/internal/fb"
)

// Extension types travel as two custom metadata keys on their field.
const (
	extensionNameKey     = "ARROW:extension:name"
	extensionMetadataKey = "ARROW:extension:metadata"
)

// schema decodes a Schema table.
func (d *decoder) schema(t fb.Table) (*Schema, error) {
	if !t.Exists() {
		return nil, corruptf("missing Schema table")
	}
	endianness := t.Int16(schemaEndianness, endianLittle)
	features := t.Vector(schemaFeatures, 8)
	if err := readErr(&d.r, "Schema"); err != nil {
		return nil, err
	}
	switch endianness {
	case endianLittle:
	case endianBig:
		return nil, unsupportedf("big-endian schema")
	default:
		return nil, unsupportedf("schema endianness %d", endianness)
	}
	for i := range features.Len() {
		switch f := features.Int64(i); f {
		case featureUnused, featureDictionaryReplacement, featureCompressedBody:
		default:
			return nil, unsupportedf("schema uses feature %d", f)
		}
	}
	d.path, d.dicts = d.path[:0], nil
	fields, err := d.children(t, schemaFields, 0)
	if err != nil {
		return nil, err
	}
	md, err := d.metadata(t, schemaCustomMetadata, "Schema")
	if err != nil {
		return nil, err
	}
	if err := checkDictIDs(d.dicts); err != nil {
		return nil, err
	}
	return &Schema{Schema: arrow.NewSchemaWithEndian(fields, &md, endian.LittleEndian), Dicts: d.dicts}, nil
}

// checkDictIDs rejects a schema in which two fields name one dictionary.
func checkDictIDs(dicts []DictField) error {
	if len(dicts) < 2 {
		return nil
	}
	ids := make([]int64, len(dicts))
	for i, df := range dicts {
		ids[i] = df.ID
	}
	slices.Sort(ids)
	for i := 1; i < len(ids); i++ {
		if ids[i] == ids[i-1] {
			return corruptf("dictionary id %d used by two fields", ids[i])
		}
	}
	return nil
}

// children decodes the vector of Field tables in slot of t, the fields of
// a schema (depth 0) or the children of a field at depth.
func (d *decoder) children(t fb.Table, slot, depth int) ([]arrow.Field, error) {
	v := t.Vector(slot, 4)
	if err := readErr(&d.r, "fields"); err != nil {
		return nil, err
	}
	n := v.Len()
	if n == 0 {
		return nil, nil
	}
	switch {
	case depth+1 > d.lim.MaxDepth:
		return nil, corruptf("field %v: schema nesting deeper than %d", d.path, d.lim.MaxDepth)
	case n > d.lim.MaxFields-d.fields:
		return nil, corruptf("field %v: more than %d fields in schema", d.path, d.lim.MaxFields)
	}
	d.fields += n
	if err := d.spend(int64(n)*fieldCost, "fields"); err != nil {
		return nil, err
	}
	fields := make([]arrow.Field, n)
	for i := range fields {
		d.path = append(d.path, i)
		f, err := d.field(v.Table(i), depth+1)
		if err != nil {
			return nil, err
		}
		fields[i] = f
		d.path = d.path[:len(d.path)-1]
	}
	return fields, nil
}

// field decodes one Field table at depth (1 for a top-level field).
func (d *decoder) field(t fb.Table, depth int) (arrow.Field, error) {
	tag, typ := t.Union(fieldTypeType, fieldType)
	name, err := d.str(t, fieldName, "Field name")
	if err != nil {
		return arrow.Field{}, err
	}
	f := arrow.Field{Name: name, Nullable: t.Bool(fieldNullable, false)}
	if f.Metadata, err = d.metadata(t, fieldCustomMetadata, "Field"); err != nil {
		return f, err
	}
	// A dictionary takes its id before the dictionaries nested in its
	// value type: Dicts is in depth-first pre-order, as writers number them.
	dict := -1
	if enc := t.Table(fieldDictionary); enc.Exists() {
		if dict, err = d.dictEncoding(enc); err != nil {
			return f, err
		}
	}
	if err := readErr(&d.r, "Field"); err != nil {
		return f, err
	}
	kids, err := d.children(t, fieldChildren, depth)
	if err != nil {
		return f, err
	}
	if f.Type, err = d.typ(tag, typ, kids); err != nil {
		return f, err
	}
	if dict >= 0 {
		dt := d.dicts[dict].Type
		dt.ValueType = f.Type
		f.Type = dt
	}
	return d.extension(f)
}

// dictEncoding decodes a DictionaryEncoding table into a new entry of
// d.dicts (its Type has no ValueType yet) and returns the entry's index.
func (d *decoder) dictEncoding(t fb.Table) (int, error) {
	id := t.Int64(dictEncodingID, 0)
	kind := t.Int16(dictEncodingKind, 0)
	index := arrow.DataType(arrow.PrimitiveTypes.Int32) // the format's default
	if it := t.Table(dictEncodingIndexType); it.Exists() {
		var err error
		if index, err = d.intType(it); err != nil {
			return 0, err
		}
	}
	ordered := t.Bool(dictEncodingIsOrdered, false)
	if err := readErr(&d.r, "DictionaryEncoding"); err != nil {
		return 0, err
	}
	switch {
	case kind != 0:
		return 0, unsupportedf("field %v: DictionaryKind %d", d.path, kind)
	case id < 0:
		return 0, corruptf("field %v: dictionary id %d", d.path, id)
	}
	d.dicts = append(d.dicts, DictField{
		ID:   id,
		Path: slices.Clone(d.path),
		Type: &arrow.DictionaryType{IndexType: index, Ordered: ordered},
	})
	return len(d.dicts) - 1, nil
}

// extension rebuilds a registered extension type named in f's metadata and
// drops the two extension keys. An unregistered extension keeps its
// storage type and its metadata, as arrow-go does.
func (d *decoder) extension(f arrow.Field) (arrow.Field, error) {
	i := f.Metadata.FindKey(extensionNameKey)
	if i < 0 {
		return f, nil
	}
	ext := arrow.GetExtensionType(f.Metadata.Values()[i])
	if ext == nil {
		return f, nil
	}
	var data string
	j := f.Metadata.FindKey(extensionMetadataKey)
	if j >= 0 {
		data = f.Metadata.Values()[j]
	}
	dt, err := ext.Deserialize(f.Type, data)
	if err != nil {
		return f, corruptf("field %v: extension %q: %v", d.path, ext.ExtensionName(), err)
	}
	var keys, vals []string
	for k, key := range f.Metadata.Keys() {
		if k != i && k != j {
			keys, vals = append(keys, key), append(vals, f.Metadata.Values()[k])
		}
	}
	f.Type, f.Metadata = dt, arrow.NewMetadata(keys, vals)
	return f, nil
}
