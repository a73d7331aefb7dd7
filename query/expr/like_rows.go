package expr

import (
	"bytes"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/internal/rawmem"
)

// LIKE over a whole array rather than value by value. A string array's
// values lie back to back in one buffer, so two things can be done once
// per batch instead of once per row:
//
//   - lower(s) LIKE p lowers the whole buffer in one pass (when it is all
//     ASCII; otherwise each value is lowered as lower() does it), so the
//     per-value call and its byte-by-byte tail run once per batch;
//   - a pattern that begins with '%' and a literal ('%special%requests%')
//     can only match a value that contains that literal. One search over
//     the whole buffer (bytes.Index, vectorized) finds the rows that do;
//     only those run the row matcher, and '%lit%' needs no matcher at all.
//     Most values of a selective filter are never looked at one by one.
//
// Occurrences are mapped to rows by walking the offsets forward, so the
// cost is the search plus one step per row.

// likeScratch holds lowered value buffers between batches.
var likeScratch sync.Pool

// likeRows is the result of x's LIKE over s, whose value bytes are data
// (s's own, or a lowered copy with the same offsets relative to the first).
func (x *likeExpr) likeRows(mem memory.Allocator, s *array.String, data []byte) arrow.Array {
	n := s.Len()
	validity, nulls := combineValidity(mem, n, s)
	out := newBits(mem, n)
	hits := out.Bytes()
	v := validityOf(s)
	offs := s.ValueOffsets()
	base := offs[0]
	value := func(i int) string { return rawmem.String(data[offs[i]-base : offs[i+1]-base]) }
	set := func(i int) { hits[i>>3] |= 1 << (i & 7) }
	switch {
	case x.first != "":
		containsRows(data, offs, x.first, func(i int) {
			if v.valid(i) && (x.onlyContains || x.match(value(i))) {
				set(i)
			}
		})
	default:
		for i := range n {
			if v.valid(i) && x.match(value(i)) {
				set(i)
			}
		}
	}
	if x.negate {
		for i := range n {
			if v.valid(i) {
				hits[i>>3] ^= 1 << (i & 7)
			}
		}
	}
	return makeArray(typBool, n, validity, nulls, out)
}

// containsRows calls hit, in order, with each row whose value contains
// lit (non-empty): data holds the values, value i at offs[i]-offs[0] up
// to offs[i+1]-offs[0].
func containsRows(data []byte, offs []int32, lit string, hit func(i int)) {
	needle := rawmem.Bytes(lit)
	base, row, pos := int(offs[0]), 0, 0
	for pos+len(needle) <= len(data) {
		j := bytes.Index(data[pos:], needle)
		if j < 0 {
			return
		}
		at := pos + j + base // where the occurrence starts, in offsets' terms
		for int(offs[row+1]) <= at {
			row++
		}
		end := int(offs[row+1])
		if at+len(needle) <= end {
			hit(row)
			pos = end - base // the row is decided: search on from the next
			continue
		}
		pos += j + 1 // the occurrence straddles two values
	}
}

// lowerASCII lowers data, all of it ASCII, into a pooled buffer; ok is
// false (and nothing is held) when a byte is not ASCII, which lower()
// must then do value by value. release returns the buffer.
func lowerASCII(data []byte) (low []byte, release func(), ok bool) {
	p, _ := likeScratch.Get().(*[]byte)
	if p == nil {
		p = new([]byte)
	}
	buf, ok := appendASCIICase((*p)[:0], rawmem.String(data), 'A')
	*p = buf
	if !ok {
		likeScratch.Put(p)
		return nil, nil, false
	}
	return buf, func() { likeScratch.Put(p) }, true
}
