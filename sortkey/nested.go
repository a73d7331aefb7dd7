package sortkey

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// Lists and structs (doc.go, "Lists and structs"): a list is its
// elements' keys back to back, then the terminator 0x00; a struct is its
// fields' keys back to back. Elements and fields are encoded ASC NULLS
// LAST (a NULL element is larger than any value, as in DuckDB), by a
// child Encoder over the list's values or the struct's fields, once per
// batch; each row then copies its children's keys.

// listEnd ends a list's elements: below every element's null byte, so a
// list sorts before every longer list it prefixes.
const listEnd = 0x00

// isListType reports whether t is one of the list types a key can hold.
// A map is one: DuckDB stores a MAP as a list of {key, value} entries and
// compares, orders and groups it as that list, entries in their stored
// order (so {a: 1, b: 2} and {b: 2, a: 1} are two groups, as in DuckDB).
func isListType(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.LIST, arrow.LARGE_LIST, arrow.FIXED_SIZE_LIST, arrow.LIST_VIEW, arrow.LARGE_LIST_VIEW, arrow.MAP:
		return true
	}
	return false
}

// nestedChildren are the sort fields of a list's element or a struct's
// fields, ASC NULLS LAST; an error when one has no order here.
func nestedChildren(t arrow.DataType) ([]SortField, error) {
	var fields []SortField
	switch {
	case isListType(t):
		fields = []SortField{{Type: t.(arrow.ListLikeType).Elem()}}
	case t.ID() == arrow.STRUCT:
		for _, f := range t.(*arrow.StructType).Fields() {
			fields = append(fields, SortField{Type: f.Type})
		}
	default:
		return nil, fmt.Errorf("%w: %s", ErrUnsupported, t)
	}
	for _, f := range fields {
		if _, err := fixedWidth(f.Type); err != nil {
			return nil, fmt.Errorf("%w (in %s)", err, t)
		}
	}
	return fields, nil
}

// nestedColumn encodes a list or struct column from its children's keys.
type nestedColumn struct {
	list     bool
	children []SortField
	enc      *Encoder // of the children, made on first use
	keys     Rows     // the current batch's children: one key per element, or per struct row
}

func newNestedColumn(t arrow.DataType) (*nestedColumn, error) {
	children, err := nestedChildren(t)
	if err != nil {
		return nil, err
	}
	return &nestedColumn{list: isListType(t), children: children}, nil
}

// prepare encodes the children of col: every value of a list (not only
// those its rows reach: a slice's offsets index the whole child), or the
// fields of a struct (sliced to its rows by arrow-go).
func (c *nestedColumn) prepare(col arrow.Array) error {
	if c.enc == nil {
		enc, err := NewEncoder(c.children)
		if err != nil {
			return err
		}
		c.enc = enc
	}
	c.keys.Reset()
	var cols []arrow.Array
	if c.list {
		cols = []arrow.Array{col.(array.ListLike).ListValues()}
	} else {
		s := col.(*array.Struct)
		for j := range s.NumField() {
			cols = append(cols, s.Field(j))
		}
	}
	if len(cols) == 0 || cols[0].Len() == 0 {
		return nil // no elements, or a struct of no fields: nothing to encode
	}
	return c.enc.Encode(&c.keys, cols)
}

// span is the children's keys of row i of col, a valid row: its
// elements' keys back to back, or its struct row's key.
func (c *nestedColumn) span(col arrow.Array, i int) ([]byte, error) {
	var first, end int
	if len(c.children) == 0 {
		return nil, nil // a struct of no fields
	}
	if c.list {
		s, e := col.(array.ListLike).ValueOffsets(i)
		first, end = int(s), int(e)
	} else {
		first, end = i, i+1
	}
	if first == end {
		return nil, nil
	}
	if first < 0 || end < first || end > c.keys.Len() {
		return nil, fmt.Errorf("%w: row %d spans children %d to %d of %d", ErrInput, i, first, end, c.keys.Len())
	}
	return c.keys.data[c.keys.offsets[first]:c.keys.offsets[end]], nil
}

// addLengths adds each row's key length: the null byte, then the
// children's keys and a list's terminator. Offsets outside the children
// fail with ErrInput (write then trusts them).
func (c *nestedColumn) addLengths(col arrow.Array, lens []uint32) error {
	nulls := col.NullN() > 0
	for i := range lens {
		if nulls && col.IsNull(i) {
			lens[i]++
			continue
		}
		b, err := c.span(col, i)
		if err != nil {
			return err
		}
		n := uint64(lens[i]) + 1 + uint64(len(b))
		if c.list {
			n++
		}
		if n > maxRowsBytes {
			return fmt.Errorf("%w: row %d's key is %d bytes", ErrTooLarge, i, n)
		}
		lens[i] = uint32(n)
	}
	return nil
}

func (c *nestedColumn) write(col arrow.Array, f SortField, buf []byte, cur []uint32) {
	nulls := col.NullN() > 0
	nb := f.nullByte()
	for i, o := range cur {
		if nulls && col.IsNull(i) {
			buf[o] = nb
			cur[i] = o + 1
			continue
		}
		buf[o] = validByte
		b, _ := c.span(col, i) // checked by addLengths
		end := o + 1 + uint32(copy(buf[o+1:], b))
		if c.list {
			buf[end] = listEnd
			end++
		}
		if f.Desc {
			invert(buf[o+1 : end])
		}
		cur[i] = end
	}
}

// IsNestedType reports whether t is a list or struct type, which a key
// encodes from its children (it may still hold a child with no order:
// Supported says).
func IsNestedType(t arrow.DataType) bool {
	return isListType(t) || t.ID() == arrow.STRUCT
}
