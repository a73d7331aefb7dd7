package batch

import (
	"github.com/apache/arrow-go/v18/arrow"
)

// dataAt follows path from the columns of a record to an array's data.
// Children of sliced parents are not re-sliced: dictionaries are written
// whole, so only the dictionary of the reached data matters.
func dataAt(cols []arrow.Array, path []int) arrow.ArrayData {
	d := cols[path[0]].Data()
	for _, i := range path[1:] {
		d = d.Children()[i]
	}
	return d
}

// hasDictionary reports whether dt or any of its children is
// dictionary-encoded.
func hasDictionary(dt arrow.DataType) bool {
	dt = physical(dt)
	if _, ok := dt.(*arrow.DictionaryType); ok {
		return true
	}
	for _, c := range childTypes(dt) {
		if hasDictionary(c) {
			return true
		}
	}
	return false
}
