// Package arrowsize measures Arrow data the way quiver reports it: the
// bytes of the buffers (their lengths, not their capacities) of an array,
// its children and its dictionary. It is the "decoded bytes" of the cache
// footprint, a query's memory and the raw side of a result's compression
// ratio.
package arrowsize

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// Data sums the buffer lengths of d, its children and its dictionary.
func Data(d arrow.ArrayData) int64 {
	var n int64
	for _, b := range d.Buffers() {
		if b != nil {
			n += int64(b.Len())
		}
	}
	for _, c := range d.Children() {
		n += Data(c)
	}
	// Dictionary returns a typed nil *array.Data when there is none.
	if dict, ok := d.Dictionary().(*array.Data); ok && dict != nil {
		n += Data(dict)
	}
	return n
}

// Record sums Data over the columns of rec.
func Record(rec arrow.RecordBatch) int64 {
	var n int64
	for _, col := range rec.Columns() {
		n += Data(col.Data())
	}
	return n
}
