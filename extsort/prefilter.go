package extsort

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// firstKey is the top-k threshold's value in the first sort key column,
// kept when that column holds strings or binary, so beatThreshold can drop
// the rows whose first key already sorts after it without building their
// normalized keys (encoding a string key costs more than comparing it;
// `ORDER BY l_comment LIMIT 100` over TPC-H lineitem drops nearly every
// row this way).
type firstKey struct {
	ok   bool // the first key column is utf8, large_utf8, binary or large_binary
	null bool
	val  string
}

// stringAt reads row i of a string or binary array.
func stringAt(col arrow.Array, i int) (string, bool) {
	switch a := col.(type) {
	case *array.String:
		return a.Value(i), true
	case *array.LargeString:
		return a.Value(i), true
	case *array.Binary:
		return string(a.Value(i)), true
	case *array.LargeBinary:
		return string(a.Value(i)), true
	}
	return "", false
}

// setFirstKey remembers row i of col, the threshold row's first key.
func (s *Sorter) setFirstKey(col arrow.Array, i int) {
	switch {
	case !isStringType(col.DataType()):
		s.first = firstKey{}
	case col.IsNull(i):
		s.first = firstKey{ok: true, null: true}
	default:
		v, _ := stringAt(col, i)
		s.first = firstKey{ok: true, val: strings.Clone(v)}
	}
	// A copy of the one value, in memory of its own (Go's, left to the
	// collector: readers on other goroutines may still hold the last one).
	if cp, ok := copyOne(col, i); ok {
		cp.NullN() // arrow-go counts NULLs lazily: count before readers share it
		s.bound.Store(&cp)
	}
}

// copyOne is row i of col in Go's memory. A view's bytes are copied by a
// builder: arrow-go's Concatenate shares the data buffers of views, and
// the copy, never released, would keep the batch's buffers from their
// allocator. So it shares a dictionary: a dictionary row is copied as a
// one-entry dictionary of its value (or a NULL index).
func copyOne(col arrow.Array, i int) (arrow.Array, bool) {
	switch v := col.(type) {
	case *array.Dictionary:
		ib := array.NewBuilder(memory.DefaultAllocator, v.Indices().DataType())
		defer ib.Release()
		dict := v.Dictionary()
		at := 0
		if v.IsValid(i) {
			at = v.GetValueIndex(i)
			ib.AppendEmptyValue() // index 0: the one entry
		} else {
			ib.AppendNull()
		}
		if dict.Len() == 0 {
			return nil, false
		}
		one, ok := copyOne(dict, at)
		if !ok {
			return nil, false
		}
		defer one.Release()
		idx := ib.NewArray()
		defer idx.Release()
		return array.NewDictionaryArray(v.DataType(), idx, one), true
	case *array.BinaryView:
		b := array.NewBinaryViewBuilder(memory.DefaultAllocator)
		defer b.Release()
		if v.IsNull(i) {
			b.AppendNull()
		} else {
			b.Append(v.Value(i))
		}
		return b.NewArray(), true
	case *array.StringView:
		b := array.NewStringViewBuilder(memory.DefaultAllocator)
		defer b.Release()
		if v.IsNull(i) {
			b.AppendNull()
		} else {
			b.Append(v.Value(i))
		}
		return b.NewArray(), true
	}
	one := array.NewSlice(col, int64(i), int64(i+1))
	defer one.Release()
	cp, err := array.Concatenate([]arrow.Array{one}, memory.DefaultAllocator)
	return cp, err == nil
}

// FirstKeyBound is, once a top-k sort holds its Limit rows, the k-th row's
// first sort key, as a one-row array of the key column's type: a row whose
// first key sorts strictly after it (in the key's order, NULLs placed as
// the key says) cannot enter the result, so a scan may skip batches whose
// statistics put every row there. ok is false before that. It may be
// called from any goroutine while the sort runs; the caller must not
// release the array.
func (s *Sorter) FirstKeyBound() (arrow.Array, bool) {
	a := s.bound.Load()
	if a == nil {
		return nil, false
	}
	return *a, true
}

func isStringType(dt arrow.DataType) bool {
	switch dt.ID() {
	case arrow.STRING, arrow.LARGE_STRING, arrow.BINARY, arrow.LARGE_BINARY:
		return true
	}
	return false
}

// firstKeyOrder compares row i's first key with the threshold's in the
// sort's order: negative sorts before it, positive after, 0 a tie (the
// other keys decide).
func (s *Sorter) firstKeyOrder(col arrow.Array, i int) int {
	k := s.cfg.Keys[0]
	rowNull := col.IsNull(i)
	switch {
	case rowNull && s.first.null:
		return 0
	case rowNull:
		if k.NullsFirst {
			return -1
		}
		return 1
	case s.first.null:
		if k.NullsFirst {
			return 1
		}
		return -1
	}
	v, _ := stringAt(col, i)
	c := strings.Compare(v, s.first.val)
	if k.Desc {
		c = -c
	}
	return c
}

// prefilter drops the rows of rec whose first key sorts after the
// threshold's. It takes rec's reference and returns nil when no row is
// left.
func (s *Sorter) prefilter(rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	col := rec.Column(s.keyCols[0])
	if !s.first.ok || !isStringType(col.DataType()) {
		return rec, nil
	}
	var g Interleave
	n := int(rec.NumRows())
	for i := range n {
		if s.firstKeyOrder(col, i) <= 0 {
			g.Add(0, i)
		}
	}
	return s.keepRows(rec, &g)
}

// keepRows returns the rows of rec that g holds (taking rec's reference):
// rec itself when that is all of them, nil when none.
func (s *Sorter) keepRows(rec arrow.RecordBatch, g *Interleave) (arrow.RecordBatch, error) {
	switch g.rows {
	case int(rec.NumRows()):
		return rec, nil
	case 0:
		rec.Release()
		return nil, nil
	}
	out, err := g.Record(s.cfg.Mem, s.schema, []arrow.RecordBatch{rec}, 1)
	rec.Release()
	return out, err
}
