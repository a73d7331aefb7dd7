package expr

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Dictionary-encoded columns (issue 15). The cache keeps a dictionary
// column as dictionaries when that is smaller (cache/decide.go); the
// engine reads one as its values: its engine type is its value type's,
// and ToEngine decodes it, a row at a time through its indices (a NULL
// index, or an index to a NULL entry, is NULL). The scan's row filter
// tests such a column without decoding it (cache/rowfilter_dict.go):
// once per dictionary entry, then per row by its index, so a WHERE that
// is the column's only use never decodes it.

// dictionaryToEngine decodes d into its values, then converts them to
// their engine type.
func dictionaryToEngine(ctx context.Context, mem memory.Allocator, d *array.Dictionary) (arrow.Array, error) {
	dense, err := compute.TakeArray(compute.WithAllocator(ctx, mem), d.Dictionary(), d.Indices())
	if err != nil {
		return nil, errorf(ErrInvalid, "decoding a dictionary column: %v", err)
	}
	defer dense.Release()
	return ToEngine(ctx, mem, dense)
}
