package expr

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Run-end encoded columns (issue 15) compute as their values: their
// engine type is their value type's, and ToEngine decodes them — each
// row takes its run's value — before converting that, as a dictionary
// column's rows take their values (dictionary.go). Nothing works on the
// runs themselves: a query reads a run-end encoded column as if it were
// stored decoded, at the cost of decoding it wherever it is read.

// reeValueType is the value type of a run-end encoded type, or nil.
func reeValueType(dt arrow.DataType) arrow.DataType {
	if r, ok := dt.(*arrow.RunEndEncodedType); ok {
		return r.Encoded()
	}
	return nil
}

// reeToEngine decodes a into its values, then converts those to their
// engine type. Run ends that are not increasing, or that reach past the
// values, fail with ErrInvalid rather than reading out of bounds.
func reeToEngine(ctx context.Context, mem memory.Allocator, a *array.RunEndEncoded) (arrow.Array, error) {
	idx, err := reeIndices(mem, a)
	if err != nil {
		return nil, err
	}
	dense, err := takeRows(ctx, mem, a.Values(), idx)
	if err != nil {
		return nil, err
	}
	defer dense.Release()
	return ToEngine(ctx, mem, dense)
}

// reeIndices is, per row of a, the position of its run's value.
func reeIndices(mem memory.Allocator, a *array.RunEndEncoded) (arrow.Array, error) {
	ends := a.RunEndsArr()
	end := func(p int) int64 {
		switch e := ends.(type) {
		case *array.Int16:
			return int64(e.Value(p))
		case *array.Int32:
			return int64(e.Value(p))
		case *array.Int64:
			return e.Value(p)
		}
		return -1
	}
	b := array.NewInt64Builder(mem)
	defer b.Release()
	n, off := int64(a.Len()), int64(a.Offset())
	b.Reserve(int(n))
	p, prev := 0, int64(0)
	for row := off; row < off+n; {
		if p >= ends.Len() || p >= a.Values().Len() {
			return nil, errorf(ErrInvalid, "run-end encoded column: %d runs end before row %d", p, row)
		}
		e := end(p)
		if e <= prev {
			return nil, errorf(ErrInvalid, "run-end encoded column: run %d ends at %d, after %d", p, e, prev)
		}
		for ; row < e && row < off+n; row++ {
			b.UnsafeAppend(int64(p))
		}
		prev = e
		p++
	}
	return b.NewArray(), nil
}
