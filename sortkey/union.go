package sortkey

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// Unions (sparse or dense): a row's key is the member it holds, as its
// position among the union's members (one byte), then that member's key
// (its null byte, then its value):
//
//	u UNION(i BIGINT, s VARCHAR)   {i: 7}   01 00 01 80000000_00000007
//	                               {s: ''}  01 01 01 00 01
//	                               {i: ∅}   01 00 02 00000000_00000000
//
// so unions order by member first, then by the member's value, a NULL
// member value last among its member: DuckDB's order, which compares a
// union as the struct it stores (its tag, then the members). An Arrow
// union has no NULL of its own (no validity bitmap), so its key always
// starts with the valid byte.

// unionColumn encodes a union column from its members' keys.
type unionColumn struct {
	t       arrow.UnionType
	members []*Encoder // one per member, made on first use
	keys    []Rows     // the current batch's members' keys, one per member row
}

func isUnionType(t arrow.DataType) bool {
	return t.ID() == arrow.SPARSE_UNION || t.ID() == arrow.DENSE_UNION
}

// unionMembers are the sort fields of a union's members, ASC NULLS LAST;
// an error when one has no order here.
func unionMembers(t arrow.DataType) ([]SortField, error) {
	ut := t.(arrow.UnionType)
	if len(ut.Fields()) > 256 {
		return nil, fmt.Errorf("%w: %s has more than 256 members", ErrUnsupported, t)
	}
	var fields []SortField
	for _, f := range ut.Fields() {
		if _, err := fixedWidth(f.Type); err != nil {
			return nil, fmt.Errorf("%w (in %s)", err, t)
		}
		fields = append(fields, SortField{Type: f.Type})
	}
	return fields, nil
}

func newUnionColumn(t arrow.DataType) (*unionColumn, error) {
	fields, err := unionMembers(t)
	if err != nil {
		return nil, err
	}
	c := &unionColumn{t: t.(arrow.UnionType), keys: make([]Rows, len(fields))}
	for _, f := range fields {
		enc, err := NewEncoder([]SortField{f})
		if err != nil {
			return nil, err
		}
		c.members = append(c.members, enc)
	}
	return c, nil
}

// prepare encodes every row of each member of col (a sparse union's
// members are its rows; a dense union's rows point into theirs).
func (c *unionColumn) prepare(col arrow.Array) error {
	u := col.(array.Union)
	for j, enc := range c.members {
		c.keys[j].Reset()
		m := u.Field(j)
		if m.Len() == 0 {
			continue
		}
		if err := enc.Encode(&c.keys[j], []arrow.Array{m}); err != nil {
			return err
		}
	}
	return nil
}

// unionRows is what member reads of a union column, taken once per call
// rather than per row.
type unionRows struct {
	codes []arrow.UnionTypeCode // per row
	ids   []int                 // per type code: its member
	offs  []int32               // a dense union's per-row member rows; nil for a sparse one
}

func rowsOf(col arrow.Array) unionRows {
	u := col.(array.Union)
	r := unionRows{codes: u.RawTypeCodes(), ids: u.UnionType().ChildIDs()}
	if d, ok := col.(*array.DenseUnion); ok {
		r.offs = d.RawValueOffsets()
	}
	return r
}

// member returns the member and the member's key that row i holds,
// checked against the members' keys.
func (c *unionColumn) member(u unionRows, i int) (int, []byte, error) {
	j := -1
	if code := u.codes[i]; code >= 0 { // a negative code would index out of ids
		j = u.ids[code]
	}
	if j < 0 || j >= len(c.keys) {
		return 0, nil, fmt.Errorf("%w: row %d holds type code %d, not a member of %s", ErrInput, i, u.codes[i], c.t)
	}
	r := i // arrow-go slices a sparse union's members to its rows
	if u.offs != nil {
		r = int(u.offs[i])
	}
	if r < 0 || r >= c.keys[j].Len() {
		return 0, nil, fmt.Errorf("%w: row %d holds row %d of member %d, which has %d", ErrInput, i, r, j, c.keys[j].Len())
	}
	return j, c.keys[j].Row(r), nil
}

// addLengths adds each row's key length: the null byte, the member byte
// and the member's key.
func (c *unionColumn) addLengths(col arrow.Array, lens []uint32) error {
	u := rowsOf(col)
	for i := range lens {
		_, k, err := c.member(u, i)
		if err != nil {
			return err
		}
		n := uint64(lens[i]) + 2 + uint64(len(k))
		if n > maxRowsBytes {
			return fmt.Errorf("%w: row %d's key is %d bytes", ErrTooLarge, i, n)
		}
		lens[i] = uint32(n)
	}
	return nil
}

func (c *unionColumn) write(col arrow.Array, f SortField, buf []byte, cur []uint32) {
	u := rowsOf(col)
	for i, o := range cur {
		j, k, _ := c.member(u, i) // checked by addLengths
		buf[o] = validByte
		buf[o+1] = byte(j)
		end := o + 2 + uint32(copy(buf[o+2:], k))
		if f.Desc {
			invert(buf[o+1 : end])
		}
		cur[i] = end
	}
}

// decodeUnion reads a member byte and that member's key into b, a union
// builder (or only skips them when b is nil).
func decodeUnion(b array.Builder, t arrow.UnionType, key []byte) ([]byte, error) {
	fields := t.Fields()
	if len(key) == 0 || int(key[0]) >= len(fields) {
		return nil, fmt.Errorf("%w: a %s without a member", ErrCorrupt, t)
	}
	j := int(key[0])
	if b == nil {
		return decodeChild(nil, fields[j].Type, key[1:])
	}
	code := t.TypeCodes()[j]
	switch ub := b.(type) {
	case *array.SparseUnionBuilder:
		ub.Append(code)
		for m := range fields { // a sparse union's other members get a slot too
			if m != j {
				ub.Child(m).AppendEmptyValue()
			}
		}
		return decodeChild(ub.Child(j), fields[j].Type, key[1:])
	case *array.DenseUnionBuilder:
		ub.Append(code)
		return decodeChild(ub.Child(j), fields[j].Type, key[1:])
	}
	return nil, fmt.Errorf("%w: a %T for a %s", ErrInput, b, t)
}
