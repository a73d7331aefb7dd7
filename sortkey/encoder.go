package sortkey

import (
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// Encoder encodes the sort-key columns of batches into Rows. It keeps
// scratch space between calls, so one Encoder serves one goroutine; make
// one per goroutine (they are cheap).
type Encoder struct {
	fields []SortField
	cols   []column
	fixed  uint32   // bytes every row takes for its fixed-width columns
	cur    []uint32 // scratch: per row, its length, then where its next column goes
}

// column encodes one field.
type column struct {
	f     SortField
	width int    // value bytes of a fixed-width type; -1 variable
	null  []byte // the encoding of NULL: the null byte, then width zeros
	dict  *dictColumn
	nest  *nestedColumn // a list or struct
	union *unionColumn  // a union (union.go)
}

// NewEncoder returns an encoder for keys of fields, in ORDER BY order. It
// fails with ErrUnsupported for a type with no order here.
func NewEncoder(fields []SortField) (*Encoder, error) {
	e := &Encoder{fields: slices.Clone(fields)}
	for i, f := range fields {
		c, err := newColumn(f)
		if err != nil {
			return nil, fmt.Errorf("sort key %d: %w", i, err)
		}
		if c.width >= 0 {
			e.fixed += 1 + uint32(c.width)
		}
		e.cols = append(e.cols, c)
	}
	return e, nil
}

func newColumn(f SortField) (column, error) {
	if f.Type == nil {
		return column{}, fmt.Errorf("%w: no type", ErrUnsupported)
	}
	w, err := fixedWidth(f.Type)
	if err != nil {
		return column{}, err
	}
	c := column{f: f, width: w, null: []byte{f.nullByte()}}
	if w > 0 {
		c.null = append(c.null, make([]byte, w)...)
	}
	if dt, ok := f.Type.(*arrow.DictionaryType); ok {
		vf := f
		vf.Type = dt.ValueType
		vc, err := newColumn(vf)
		if err != nil {
			return column{}, err
		}
		c.dict = &dictColumn{values: vc}
		c.null = vc.null
	}
	switch {
	case isUnionType(f.Type):
		if c.union, err = newUnionColumn(f.Type); err != nil {
			return column{}, err
		}
	case IsNestedType(f.Type):
		if c.nest, err = newNestedColumn(f.Type); err != nil {
			return column{}, err
		}
	}
	return c, nil
}

// Fields returns the encoder's fields.
func (e *Encoder) Fields() []SortField { return slices.Clone(e.fields) }

// Encode appends to dst one key per row of cols, which hold the sort-key
// columns in the order of the encoder's fields, all of the same length. It
// allocates nothing per row: the keys are written column by column into
// one buffer sized up front. Columns that do not match the fields fail with
// ErrInput, and dst is left as it was.
func (e *Encoder) Encode(dst *Rows, cols []arrow.Array) error {
	if len(cols) != len(e.cols) {
		return fmt.Errorf("%w: %d columns for %d sort fields", ErrInput, len(cols), len(e.cols))
	}
	n := 0
	for i, col := range cols {
		if i == 0 {
			n = col.Len()
		}
		if !arrow.TypeEqual(col.DataType(), e.cols[i].f.Type) {
			return fmt.Errorf("%w: column %d is %s, sort field %d is %s", ErrInput, i, col.DataType(), i, e.cols[i].f.Type)
		}
		if col.Len() != n {
			return fmt.Errorf("%w: column %d has %d rows, column 0 has %d", ErrInput, i, col.Len(), n)
		}
	}
	for i, c := range e.cols {
		if c.dict != nil {
			if err := c.dict.prepare(cols[i].(*array.Dictionary)); err != nil {
				return fmt.Errorf("sort key %d: %w", i, err)
			}
		}
		if c.nest != nil {
			if err := c.nest.prepare(cols[i]); err != nil {
				return fmt.Errorf("sort key %d: %w", i, err)
			}
		}
		if c.union != nil {
			if err := c.union.prepare(cols[i]); err != nil {
				return fmt.Errorf("sort key %d: %w", i, err)
			}
		}
	}

	// Pass 1: each row's length.
	cur := slices.Grow(e.cur[:0], n)[:n]
	e.cur = cur
	for i := range cur {
		cur[i] = e.fixed
	}
	for i, c := range e.cols {
		if c.width < 0 {
			if err := c.addLengths(cols[i], cur); err != nil {
				return fmt.Errorf("sort key %d: %w", i, err)
			}
		}
	}
	base := uint64(len(dst.data))
	total := base
	for _, l := range cur {
		total += uint64(l)
	}
	if total > maxRowsBytes {
		return fmt.Errorf("%w: %d bytes of keys after %d rows, a Rows holds under 4 GiB", ErrTooLarge, total, n)
	}

	// Offsets, and cur becomes each row's write position.
	if len(dst.offsets) == 0 {
		dst.offsets = append(dst.offsets, 0)
	}
	dst.offsets = slices.Grow(dst.offsets, n)
	pos := uint32(base)
	for i, l := range cur {
		cur[i] = pos
		pos += l
		dst.offsets = append(dst.offsets, pos)
	}
	dst.data = slices.Grow(dst.data, int(total-base))[:total]

	// Pass 2: column by column, each advancing cur.
	for i, c := range e.cols {
		c.write(cols[i], dst.data, cur)
	}
	return nil
}

// addLengths adds each row's encoded length to lens (variable-length
// columns only).
func (c *column) addLengths(col arrow.Array, lens []uint32) error {
	if c.dict != nil {
		return c.dict.addLengths(col.(*array.Dictionary), c.null, lens)
	}
	if c.nest != nil {
		return c.nest.addLengths(col, lens)
	}
	if c.union != nil {
		return c.union.addLengths(col, lens)
	}
	addVarLengths(valuesOf(col), col, lens)
	return nil
}

// write writes each row's encoding at buf[cur[i]:] and advances cur[i].
func (c *column) write(col arrow.Array, buf []byte, cur []uint32) {
	switch {
	case c.dict != nil:
		c.dict.write(col.(*array.Dictionary), c.null, buf, cur)
	case c.nest != nil:
		c.nest.write(col, c.f, buf, cur)
	case c.union != nil:
		c.union.write(col, c.f, buf, cur)
	case c.width >= 0:
		writeFixed(col, c.f, c.width, buf, cur)
	default:
		writeVar(valuesOf(col), col, c.f, buf, cur)
	}
}
