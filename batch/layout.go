package batch

import (
	"github.com/apache/arrow-go/v18/arrow"
)

// layout is the physical shape of a type in IPC: which buffers it writes
// and how its children hang off it. Both the encoder and the decoder walk
// types through it, so the two cannot disagree on buffer order.
type layout uint8

const (
	layoutNull        layout = iota // no buffers
	layoutBool                      // validity, bit-packed values
	layoutFixed                     // validity, values of width bytes
	layoutVarBinary                 // validity, int32 offsets, data
	layoutLargeVar                  // validity, int64 offsets, data
	layoutView                      // validity, 16-byte views, variadic data buffers
	layoutList                      // validity, int32 offsets; one child
	layoutLargeList                 // validity, int64 offsets; one child
	layoutListView                  // validity, int32 offsets, int32 sizes; one child
	layoutLargeView                 // validity, int64 offsets, int64 sizes; one child
	layoutFixedList                 // validity; one child of length × size
	layoutStruct                    // validity; one child per field
	layoutSparseUnion               // type ids; one child per member
	layoutDenseUnion                // type ids, int32 offsets; one child per member
	layoutRunEnd                    // no buffers; run ends and values children
)

// physical returns the storage type of extension types, else dt.
func physical(dt arrow.DataType) arrow.DataType {
	for {
		ext, ok := dt.(arrow.ExtensionType)
		if !ok {
			return dt
		}
		dt = ext.StorageType()
	}
}

// layoutOf returns the layout of dt and, for layoutFixed, the value width
// in bytes. Dictionary types report the layout of their indices.
func layoutOf(dt arrow.DataType) (layout, int) {
	dt = physical(dt)
	switch t := dt.(type) {
	case *arrow.NullType:
		return layoutNull, 0
	case *arrow.BooleanType:
		return layoutBool, 0
	case *arrow.DictionaryType:
		return layoutFixed, t.IndexType.(arrow.FixedWidthDataType).BitWidth() / 8
	case *arrow.BinaryType, *arrow.StringType:
		return layoutVarBinary, 0
	case *arrow.LargeBinaryType, *arrow.LargeStringType:
		return layoutLargeVar, 0
	case *arrow.BinaryViewType, *arrow.StringViewType:
		return layoutView, 0
	case *arrow.ListType, *arrow.MapType:
		return layoutList, 0
	case *arrow.LargeListType:
		return layoutLargeList, 0
	case *arrow.ListViewType:
		return layoutListView, 0
	case *arrow.LargeListViewType:
		return layoutLargeView, 0
	case *arrow.FixedSizeListType:
		return layoutFixedList, 0
	case *arrow.StructType:
		return layoutStruct, 0
	case *arrow.SparseUnionType:
		return layoutSparseUnion, 0
	case *arrow.DenseUnionType:
		return layoutDenseUnion, 0
	case *arrow.RunEndEncodedType:
		return layoutRunEnd, 0
	case arrow.FixedWidthDataType:
		return layoutFixed, t.BitWidth() / 8
	}
	return layoutNull, -1
}

// childTypes returns the types of dt's children in IPC order.
func childTypes(dt arrow.DataType) []arrow.DataType {
	switch t := physical(dt).(type) {
	case *arrow.ListType:
		return []arrow.DataType{t.Elem()}
	case *arrow.MapType:
		return []arrow.DataType{t.Elem()}
	case *arrow.LargeListType:
		return []arrow.DataType{t.Elem()}
	case *arrow.ListViewType:
		return []arrow.DataType{t.Elem()}
	case *arrow.LargeListViewType:
		return []arrow.DataType{t.Elem()}
	case *arrow.FixedSizeListType:
		return []arrow.DataType{t.Elem()}
	case *arrow.StructType:
		return fieldTypes(t.Fields())
	case arrow.UnionType:
		return fieldTypes(t.Fields())
	case *arrow.RunEndEncodedType:
		return []arrow.DataType{t.RunEnds(), t.Encoded()}
	}
	return nil
}

func fieldTypes(fs []arrow.Field) []arrow.DataType {
	out := make([]arrow.DataType, len(fs))
	for i, f := range fs {
		out[i] = f.Type
	}
	return out
}

// bufferCount is how many buffers a field of this layout writes, not
// counting its children; views add their variadic count.
func (l layout) bufferCount() int {
	switch l {
	case layoutNull, layoutRunEnd:
		return 0
	case layoutFixedList, layoutStruct, layoutSparseUnion:
		return 1
	case layoutBool, layoutFixed, layoutList, layoutLargeList, layoutDenseUnion, layoutView:
		return 2
	case layoutVarBinary, layoutLargeVar, layoutListView, layoutLargeView:
		return 3
	}
	panic("batch: unknown layout")
}
