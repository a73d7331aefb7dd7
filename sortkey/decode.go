package sortkey

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// ErrCorrupt: bytes given to AppendDecoded are not a key of its type.
var ErrCorrupt = errors.New("sortkey: not a key of this type")

// AppendDecoded appends to b, a builder of type t, the value whose ASC
// key (doc.go) without its null byte is key: the inverse of Encode for a
// valid value, so that a query can group or take the minimum of lists
// and structs by their keys and return the values. Floats come back
// canonical (-0.0 as 0.0, every NaN the one NaN); a dictionary value is
// appended to b's dictionary (a dictionary past its indices fails with
// ErrTooLarge); bytes that are not a key of t fail with ErrCorrupt,
// leaving b with whatever was appended before the fault (the caller
// discards it).
func AppendDecoded(b array.Builder, t arrow.DataType, key []byte) error {
	rest, err := decodeValue(b, t, key)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return fmt.Errorf("%w: %d bytes after a %s", ErrCorrupt, len(rest), t)
	}
	return nil
}

// decodeValue reads one value of t from key (its value bytes, after the
// null byte) into b, or only skips it when b is nil, and returns the
// bytes after it.
func decodeValue(b array.Builder, t arrow.DataType, key []byte) ([]byte, error) {
	switch {
	case isListType(t):
		return decodeList(b, t, key)
	case isUnionType(t):
		return decodeUnion(b, t.(arrow.UnionType), key)
	case t.ID() == arrow.STRUCT:
		st := t.(*arrow.StructType)
		var sb *array.StructBuilder
		if b != nil {
			sb = b.(*array.StructBuilder)
			sb.Append(true)
		}
		for j := range st.NumFields() { // not Fields(): a copy per call
			f := st.Field(j)
			var fb array.Builder
			if sb != nil {
				fb = sb.FieldBuilder(j)
			}
			var err error
			if key, err = decodeChild(fb, f.Type, key); err != nil {
				return nil, err
			}
		}
		return key, nil
	}
	w, err := fixedWidth(t)
	if err != nil {
		return nil, err
	}
	if dt, ok := t.(*arrow.DictionaryType); ok {
		return decodeDictValue(b, dt, key)
	}
	if w < 0 {
		return decodeVar(b, key)
	}
	if len(key) < w {
		return nil, fmt.Errorf("%w: %d bytes left for a %s of %d", ErrCorrupt, len(key), t, w)
	}
	if b != nil {
		if err := appendFixed(b, t, key[:w]); err != nil {
			return nil, err
		}
	}
	return key[w:], nil
}

// decodeChild reads an element or field: its null byte, then its value
// (a NULL of a fixed-width type is followed by width zeros).
func decodeChild(b array.Builder, t arrow.DataType, key []byte) ([]byte, error) {
	if len(key) == 0 {
		return nil, fmt.Errorf("%w: a %s ends early", ErrCorrupt, t)
	}
	switch key[0] {
	case validByte:
		return decodeValue(b, t, key[1:])
	case nullLastByte:
		if isUnionType(t) { // an Arrow union has no NULL of its own (union.go)
			return nil, fmt.Errorf("%w: a NULL %s", ErrCorrupt, t)
		}
		vt := t
		if dt, ok := t.(*arrow.DictionaryType); ok { // its NULL is its values' (newColumn)
			vt = dt.ValueType
		}
		w, err := fixedWidth(vt)
		if err != nil {
			return nil, err
		}
		w = max(w, 0)
		if len(key) < 1+w {
			return nil, fmt.Errorf("%w: a NULL %s ends early", ErrCorrupt, t)
		}
		if bytes.ContainsFunc(key[1:1+w], func(r rune) bool { return r != 0 }) {
			return nil, fmt.Errorf("%w: a NULL %s padded with other than zeros", ErrCorrupt, t)
		}
		if b != nil {
			b.AppendNull()
		}
		return key[1+w:], nil
	}
	return nil, fmt.Errorf("%w: null byte %#x in a %s", ErrCorrupt, key[0], t)
}

// decodeList reads elements up to the terminator: once to count them (a
// list view's builder takes the size first), then into b.
func decodeList(b array.Builder, t arrow.DataType, key []byte) ([]byte, error) {
	elem := t.(arrow.ListLikeType).Elem()
	n, rest := 0, key
	for {
		if len(rest) == 0 {
			return nil, fmt.Errorf("%w: a %s without its end", ErrCorrupt, t)
		}
		if rest[0] == listEnd {
			rest = rest[1:]
			break
		}
		if t.ID() == arrow.MAP && (len(rest) < 2 || rest[0] != validByte || rest[1] != validByte) {
			// Arrow has no NULL entry or key in a map: such bytes were never
			// a map's key, and arrow-go's builder would panic on them.
			return nil, fmt.Errorf("%w: a NULL entry or key in a %s", ErrCorrupt, t)
		}
		var err error
		if rest, err = decodeChild(nil, elem, rest); err != nil {
			return nil, err
		}
		n++
	}
	if ft, ok := t.(*arrow.FixedSizeListType); ok && int32(n) != ft.Len() {
		return nil, fmt.Errorf("%w: %d elements in a %s", ErrCorrupt, n, t)
	}
	if b == nil {
		return rest, nil
	}
	var vb array.Builder
	switch lb := b.(type) {
	case *array.FixedSizeListBuilder: // its promoted AppendWithSize writes offsets it has not
		lb.Append(true)
		vb = lb.ValueBuilder()
	case array.VarLenListLikeBuilder:
		lb.AppendWithSize(true, n)
		vb = lb.ValueBuilder()
	}
	for range n {
		key, _ = decodeChild(vb, elem, key) // parsed above
	}
	return rest, nil
}

// decodeVar reads an escaped byte string (varlen.go) into b.
func decodeVar(b array.Builder, key []byte) ([]byte, error) {
	var v []byte
	if z := bytes.IndexByte(key, 0); z >= 0 && z+1 < len(key) && key[z+1] == termByte {
		v, key = key[:z], key[z+2:] // no zero inside: the bytes as they are, no copy
		return key, appendVar(b, v)
	}
	for {
		z := bytes.IndexByte(key, 0)
		if z < 0 || z+1 >= len(key) {
			return nil, fmt.Errorf("%w: a string without its terminator", ErrCorrupt)
		}
		v = append(v, key[:z]...)
		switch key[z+1] {
		case escapeByte:
			v = append(v, 0)
			key = key[z+2:]
			continue
		case termByte:
			key = key[z+2:]
		default:
			return nil, fmt.Errorf("%w: byte %#x after a zero in a string", ErrCorrupt, key[z+1])
		}
		break
	}
	return key, appendVar(b, v)
}

// appendVar appends v to b, a string or binary builder (none: skipped).
func appendVar(b array.Builder, v []byte) error {
	switch x := b.(type) {
	case nil:
	case *array.StringBuilder:
		x.BinaryBuilder.Append(v)
	case *array.LargeStringBuilder:
		x.BinaryBuilder.Append(v)
	case *array.BinaryBuilder:
		x.Append(v)
	case *array.StringViewBuilder:
		x.BinaryViewBuilder.Append(v)
	case *array.BinaryViewBuilder:
		x.Append(v)
	default:
		panic(fmt.Sprintf("sortkey: decoding a string into a %T", b))
	}
	return nil
}

// decodeDictValue reads a value of a dictionary's value type into b's
// dictionary, through a one-value array (arrow-go's dictionary builders
// take values by type or by array).
func decodeDictValue(b array.Builder, dt *arrow.DictionaryType, key []byte) ([]byte, error) {
	if b == nil {
		return decodeValue(nil, dt.ValueType, key)
	}
	vb := array.NewBuilder(memory.DefaultAllocator, dt.ValueType)
	defer vb.Release()
	rest, err := decodeValue(vb, dt.ValueType, key)
	if err != nil {
		return nil, err
	}
	v := vb.NewArray()
	defer v.Release()
	if err := b.(array.DictionaryBuilder).AppendArray(v); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrTooLarge, dt, err)
	}
	return rest, nil
}
