package take

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
)

// computeTake takes the rows idx names from col: arrow-go's take, except
// for decimal32 and decimal64, which arrow-go v18.8's take has no kernel
// for ("function 'array_take' has no kernel matching input types"). Those
// are taken as the int32 or int64 arrays their buffers also are, and the
// result is typed back; the bytes are the same.
func computeTake(ctx context.Context, col, idx arrow.Array) (arrow.Array, error) {
	var as arrow.DataType
	switch col.DataType().ID() {
	case arrow.DECIMAL32:
		as = arrow.PrimitiveTypes.Int32
	case arrow.DECIMAL64:
		as = arrow.PrimitiveTypes.Int64
	default:
		return compute.TakeArray(ctx, col, idx)
	}
	view := retype(col.Data(), as)
	defer view.Release()
	out, err := compute.TakeArray(ctx, view, idx)
	if err != nil {
		return nil, err
	}
	defer out.Release()
	return retype(out.Data(), col.DataType()), nil
}

// retype returns the array over d's buffers (shared, retained) as type dt,
// of the same width.
func retype(d arrow.ArrayData, dt arrow.DataType) arrow.Array {
	nd := array.NewData(dt, d.Len(), d.Buffers(), nil, d.NullN(), d.Offset())
	defer nd.Release()
	return array.MakeFromData(nd)
}
