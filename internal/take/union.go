package take

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// sparseUnion takes rows of a sparse union, which neither arrow-go's take
// nor its concatenation does: the type codes of the rows, and each
// member's child at the same rows (arrow-go slices a sparse union's
// children to its rows: row i is row i of each).
func sparseUnion(ctx context.Context, mem memory.Allocator, u *array.SparseUnion, sel []int32) (arrow.Array, error) {
	codes := memory.NewResizableBuffer(mem)
	defer codes.Release()
	codes.Resize(len(sel))
	raw := u.RawTypeCodes() // from the offset
	dst := arrow.Int8Traits.CastFromBytes(codes.Bytes())
	for k, i := range sel {
		dst[k] = raw[i]
	}
	children := make([]arrow.Array, u.NumFields())
	defer releaseAll(children)
	for j := range children {
		c, err := Array(ctx, mem, u.Field(j), sel)
		if err != nil {
			return nil, err
		}
		children[j] = c
	}
	return array.NewSparseUnion(u.DataType().(*arrow.SparseUnionType), len(sel), children, codes, 0), nil
}
