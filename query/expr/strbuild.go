package expr

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// buildStrings makes the utf8 result of a string kernel (||, substring)
// of n rows: each valid row holds size(i) bytes, which put(i, dst) writes
// to the front of dst and counts. The total is bounded by limit (an
// ErrOverflow naming x past it) and asked of the query's budget before
// anything is allocated, since a literal operand repeats on every row
// (budget.go). It takes validity, and releases it on error.
func buildStrings(mem memory.Allocator, x Expr, n int, validity *memory.Buffer, nulls, limit int,
	size func(i int) int, put func(i int, dst []byte) int) (arrow.Array, error) {
	valid := bitmap{}
	if validity != nil {
		valid = bitmap{bits: validity.Bytes()}
	}
	total := 0
	for i := range n {
		if valid.valid(i) {
			if total += size(i); total > limit {
				releaseBufs(validity)
				return nil, errorf(ErrOverflow, "%s: the results of one batch pass %d bytes", x, limit)
			}
		}
	}
	if err := reserve(mem, int64(total)+4*int64(n+1), x); err != nil {
		releaseBufs(validity)
		return nil, err
	}
	offBuf, offs := newValues[int32](mem, n+1)
	dataBuf := memory.NewResizableBuffer(mem)
	dataBuf.Resize(total)
	data := dataBuf.Bytes()
	pos := 0
	for i := range n {
		offs[i] = int32(pos)
		if valid.valid(i) {
			pos += put(i, data[pos:])
		}
	}
	offs[n] = int32(pos)
	return makeArray(typString, n, validity, nulls, offBuf, dataBuf), nil
}
