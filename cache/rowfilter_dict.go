package cache

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// rowDict is a row filter conjunct on a column kept as dictionaries: the
// test runs once per dictionary entry of a batch, and each row passes or
// not by its index, so the column's values are never gathered for the
// rows (issue 15). inner is the test compiled for the dictionary's value
// type (a range, set or byte-string test); negate passes the non-NULL
// entries inner drops (<> and NOT, compiled only without NULL literals,
// where NOT is the complement on non-NULL values); without inner, the
// NULL rows pass when nulls is set (IS NULL), else the others (IS NOT
// NULL). A row is NULL when its index is NULL or selects a NULL entry.
type rowDict struct {
	col    int
	inner  rowTest
	negate bool
	nulls  bool
}

// dictTestOf compiles p when it reads a dictionary column whose value
// type the row filter tests: Cmp (any operator), Between, In and Prefix,
// IsNull and IsNotNull, and Not of those.
func dictTestOf(schema *arrow.Schema, p Predicate) (rowDict, bool) {
	c, ok := dictColumn(p)
	if !ok || c < 0 || c >= schema.NumFields() {
		return rowDict{}, false
	}
	dt, ok := schema.Field(c).Type.(*arrow.DictionaryType)
	if !ok {
		return rowDict{}, false
	}
	fields := schema.Fields()
	fields[c].Type = dt.ValueType
	values := arrow.NewSchema(fields, nil) // the column read as its values
	t := rowDict{col: c}
	switch q := p.(type) {
	case IsNull:
		t.nulls = true
		return t, true
	case IsNotNull:
		return t, true
	case Not:
		switch x := q.X.(type) {
		case IsNull:
			return t, true
		case IsNotNull:
			t.nulls = true
			return t, true
		case Cmp:
			if x.Op == Ne {
				p = Cmp{Col: x.Col, Op: Eq, Val: x.Val}
				break
			}
			p, t.negate = x, true
		case In, Between, Prefix:
			p, t.negate = x, true
		default:
			return rowDict{}, false
		}
	case Cmp:
		if q.Op == Ne { // x <> NULL is never TRUE, as x = NULL
			p, t.negate = Cmp{Col: q.Col, Op: Eq, Val: q.Val}, !q.Val.IsNull()
		}
	}
	if t.negate && hasNullLiteral(p) {
		return rowDict{}, false // NOT of an UNKNOWN is UNKNOWN, not TRUE
	}
	inner, ok := compileTest(values, p)
	if !ok {
		return rowDict{}, false
	}
	if _, nested := inner.(rowDict); nested {
		return rowDict{}, false // a dictionary of dictionaries
	}
	t.inner = inner
	return t, true
}

// dictColumn is the column p reads, for the predicates dictTestOf takes.
func dictColumn(p Predicate) (int, bool) {
	switch p := p.(type) {
	case Cmp:
		return p.Col, true
	case Between:
		return p.Col, true
	case In:
		return p.Col, true
	case Prefix:
		return p.Col, true
	case IsNull:
		return p.Col, true
	case IsNotNull:
		return p.Col, true
	case Not:
		return dictColumn(p.X)
	}
	return 0, false
}

// hasNullLiteral reports whether p compares with a NULL literal.
func hasNullLiteral(p Predicate) bool {
	switch p := p.(type) {
	case Cmp:
		return p.Val.IsNull()
	case Between:
		return p.Lo.IsNull() || p.Hi.IsNull()
	case In:
		for _, v := range p.Vals {
			if v.IsNull() {
				return true
			}
		}
	}
	return false
}

func (t rowDict) column() int { return t.col }

// estimate: the NULL count for IS [NOT] NULL; else inner's guess from the
// bounds, which cover the whole dictionary (a superset of the batch's
// values, so inner's proof that every row passes still holds), and its
// complement when negated.
func (t rowDict) estimate(s ColumnStats) (float64, bool) {
	if s.Rows == 0 {
		return 0, false
	}
	nulls := float64(s.Nulls) / float64(s.Rows)
	switch {
	case t.inner == nil && t.nulls:
		return nulls, s.Nulls == s.Rows
	case t.inner == nil:
		return 1 - nulls, s.Nulls == 0
	}
	share, all := t.inner.estimate(s)
	if t.negate {
		return max(0, 1-share-nulls), false
	}
	return share, all
}

// keep tests the batch's dictionary, then walks the indices.
func (t rowDict) keep(c *filterCol, sel []int32, all bool, n int) []int32 {
	d := c.arr.(*array.Dictionary)
	pass := t.entries(d.Dictionary())
	idx := d.Indices()
	var valid []byte
	if idx.NullN() > 0 {
		valid = idx.NullBitmapBytes()
	}
	off := idx.Data().Offset()
	switch a := idx.(type) {
	case *array.Int8:
		return keepCodes(a.Int8Values(), valid, off, pass, t.nulls, sel, all, n)
	case *array.Int16:
		return keepCodes(a.Int16Values(), valid, off, pass, t.nulls, sel, all, n)
	case *array.Int32:
		return keepCodes(a.Int32Values(), valid, off, pass, t.nulls, sel, all, n)
	case *array.Int64:
		return keepCodes(a.Int64Values(), valid, off, pass, t.nulls, sel, all, n)
	case *array.Uint8:
		return keepCodes(a.Uint8Values(), valid, off, pass, t.nulls, sel, all, n)
	case *array.Uint16:
		return keepCodes(a.Uint16Values(), valid, off, pass, t.nulls, sel, all, n)
	case *array.Uint32:
		return keepCodes(a.Uint32Values(), valid, off, pass, t.nulls, sel, all, n)
	case *array.Uint64:
		return keepCodes(a.Uint64Values(), valid, off, pass, t.nulls, sel, all, n)
	}
	panic("cache: dictionary indices of type " + idx.DataType().String())
}

// entries returns, per entry of dict, whether its rows pass.
func (t rowDict) entries(dict arrow.Array) []bool {
	m := dict.Len()
	pass := make([]bool, m)
	if t.inner == nil {
		for i := range pass {
			pass[i] = dict.IsNull(i) == t.nulls
		}
		return pass
	}
	for _, i := range t.inner.keep(&filterCol{arr: dict}, make([]int32, m), true, m) {
		pass[i] = true
	}
	if t.negate {
		for i := range pass {
			pass[i] = !pass[i] && dict.IsValid(i)
		}
	}
	return pass
}

// keepCodes keeps the rows of sel whose code passes, or, for a NULL
// code, when nulls is set. A code outside the dictionary (bytes the put
// did not check) passes nothing.
func keepCodes[T int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64](codes []T, valid []byte, off int, pass []bool, nulls bool, sel []int32, all bool, n int) []int32 {
	if all {
		sel = sel[:n]
	}
	m := uint64(len(pass))
	k := 0
	for j := range sel {
		i := j
		if !all {
			i = int(sel[j])
		}
		sel[k] = int32(i)
		var ok bool
		if valid != nil && bit(valid, off+i) == 0 {
			ok = nulls
		} else if c := uint64(codes[i]); c < m {
			ok = pass[c]
		}
		if ok {
			k++
		}
	}
	return sel[:k]
}
