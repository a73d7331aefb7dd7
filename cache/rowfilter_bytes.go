package cache

import (
	"slices"
	"sort"

	"github.com/apache/arrow-go/v18/arrow"
)

// rowBytes is a row filter conjunct on a utf8 or binary column (large or
// not): a range of byte strings in byte order, from a Cmp (not <>), a
// Between or a Prefix (the strings in [P, successor(P))), or a set of
// them, from an In.
type rowBytes struct {
	col int
	// The range: lo (inclusive when loIn) when hasLo, hi (inclusive when
	// hiIn) when hasHi; none when empty.
	hasLo, hasHi, loIn, hiIn bool
	lo, hi                   string
	empty                    bool
	// The set, when isSet: sorted, distinct, without NULL.
	isSet bool
	set   []string
	// How has decides, fastest first: eq (the range is one value),
	// prefix (the range is a Prefix's), or the range's bounds.
	eq, prefix bool
}

func bytesTestOf(schema *arrow.Schema, p Predicate) (rowBytes, bool) {
	var col int
	switch p := p.(type) {
	case Cmp:
		col = p.Col
	case Between:
		col = p.Col
	case In:
		col = p.Col
	case Prefix:
		col = p.Col
	default:
		return rowBytes{}, false
	}
	if col < 0 || col >= schema.NumFields() {
		return rowBytes{}, false
	}
	switch schema.Field(col).Type.ID() {
	case arrow.STRING, arrow.BINARY, arrow.LARGE_STRING, arrow.LARGE_BINARY:
	default:
		return rowBytes{}, false
	}
	t := rowBytes{col: col}
	bytesOf := func(v Value) (string, bool, bool) { // value, null, ok
		if v.IsNull() {
			return "", true, true
		}
		return v.S, false, v.Kind == KindBytes
	}
	switch p := p.(type) {
	case Cmp:
		v, null, ok := bytesOf(p.Val)
		switch {
		case !ok || p.Op == Ne:
			return rowBytes{}, false
		case null:
			t.empty = true
			return t, true
		}
		switch p.Op {
		case Eq:
			t.hasLo, t.loIn, t.lo, t.hasHi, t.hiIn, t.hi = true, true, v, true, true, v
			t.eq = true
		case Lt, Le:
			t.hasHi, t.hiIn, t.hi = true, p.Op == Le, v
		case Gt, Ge:
			t.hasLo, t.loIn, t.lo = true, p.Op == Ge, v
		}
	case Between:
		lo, nullLo, ok1 := bytesOf(p.Lo)
		hi, nullHi, ok2 := bytesOf(p.Hi)
		switch {
		case !ok1 || !ok2:
			return rowBytes{}, false
		case nullLo || nullHi:
			t.empty = true
			return t, true
		}
		t.hasLo, t.loIn, t.lo, t.hasHi, t.hiIn, t.hi = true, true, lo, true, true, hi
	case Prefix:
		t.hasLo, t.loIn, t.lo, t.prefix = true, true, string(p.P), true
		if succ, ok := prefixSuccessor(p.P); ok {
			t.hasHi, t.hi = true, succ
		}
	case In:
		t.isSet = true
		for _, v := range p.Vals {
			s, null, ok := bytesOf(v)
			if !ok {
				return rowBytes{}, false
			}
			if !null {
				t.set = append(t.set, s)
			}
		}
		slices.Sort(t.set)
		t.set = slices.Compact(t.set)
	}
	return t, true
}

func (t rowBytes) column() int { return t.col }

// has reports whether v passes. The string(v) conversions in comparisons
// do not copy v.
func (t *rowBytes) has(v []byte) bool {
	switch {
	case t.isSet && len(t.set) <= 8:
		for _, s := range t.set {
			if string(v) == s {
				return true
			}
		}
		return false
	case t.isSet:
		i := sort.Search(len(t.set), func(i int) bool { return t.set[i] >= string(v) })
		return i < len(t.set) && t.set[i] == string(v)
	case t.empty:
		return false
	case t.eq:
		return string(v) == t.lo
	case t.prefix:
		return len(v) >= len(t.lo) && string(v[:len(t.lo)]) == t.lo
	}
	if t.hasLo && (string(v) < t.lo || !t.loIn && string(v) == t.lo) {
		return false
	}
	return !t.hasHi || string(v) < t.hi || t.hiIn && string(v) == t.hi
}

// estimate: all rows pass when the batch's bounds both pass a range and
// nothing is NULL; else a guess by kind (strings have no evenly spread
// domain to measure): an equality or small set is taken as selective, a
// range as half.
func (t rowBytes) estimate(s ColumnStats) (float64, bool) {
	if t.empty || (t.isSet && len(t.set) == 0) || s.AllNull() {
		return 0, false
	}
	if !t.isSet && s.HasBounds && s.Min.Kind == KindBytes && t.has([]byte(s.Min.S)) && t.has([]byte(s.Max.S)) {
		return 1, s.Nulls == 0
	}
	switch {
	case t.isSet:
		return min(0.5, 0.05*float64(len(t.set))), false
	case t.hasLo && t.hasHi && t.loIn && t.hiIn && t.lo == t.hi:
		return 0.05, false
	}
	return 0.5, false
}

func (t rowBytes) keep(c *filterCol, sel []int32, all bool, n int) []int32 {
	a := c.arr
	d := a.Data()
	var valid []byte
	if a.NullN() > 0 {
		valid = a.NullBitmapBytes()
	}
	var data []byte
	if b := d.Buffers()[2]; b != nil {
		data = b.Bytes()
	}
	switch a.DataType().ID() {
	case arrow.LARGE_STRING, arrow.LARGE_BINARY:
		return keepBytes(&t, arrow.GetData[int64](d.Buffers()[1].Bytes())[d.Offset():], data, valid, d.Offset(), sel, all, n)
	}
	return keepBytes(&t, arrow.GetData[int32](d.Buffers()[1].Bytes())[d.Offset():], data, valid, d.Offset(), sel, all, n)
}

func keepBytes[O int32 | int64](t *rowBytes, offs []O, data, valid []byte, off int, sel []int32, all bool, n int) []int32 {
	if t.empty {
		return sel[:0]
	}
	if all {
		sel = sel[:n]
	}
	k := 0
	for j := range sel {
		i := j
		if !all {
			i = int(sel[j])
		}
		sel[k] = int32(i)
		if (valid == nil || bit(valid, off+i) == 1) && t.has(data[offs[i]:offs[i+1]]) {
			k++
		}
	}
	return sel[:k]
}
