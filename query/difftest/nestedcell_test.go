//go:build duckdb

package difftest

import (
	"fmt"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// Whole lists and structs in results: both engines' values rendered as
// one text, [e1, e2] and {f: v} with the fields by name (DuckDB's driver
// gives a struct as a map), each element or field as its cell prints.

// arrowNestedCell renders row i of a list or struct array; ok is false
// for any other array.
func arrowNestedCell(a arrow.Array, i int) (cell, bool, error) {
	var s string
	var err error
	switch x := a.(type) {
	case array.ListLike:
		if _, isMap := a.(*array.Map); isMap {
			return cell{}, false, nil
		}
		start, end := x.ValueOffsets(i)
		parts := make([]string, 0, end-start)
		for j := start; j < end; j++ {
			c, cerr := arrowCell(x.ListValues(), int(j))
			if cerr != nil {
				return cell{}, true, cerr
			}
			parts = append(parts, c.String())
		}
		s = "[" + strings.Join(parts, ", ") + "]"
	case *array.Struct:
		st := x.DataType().(*arrow.StructType)
		fields := map[string]string{}
		for k := range x.NumField() {
			c, cerr := arrowCell(x.Field(k), i)
			if cerr != nil {
				return cell{}, true, cerr
			}
			fields[st.Field(k).Name] = c.String()
		}
		s = structText(fields)
	default:
		return cell{}, false, nil
	}
	return cell{kind: kindString, s: s}, true, err
}

// duckNestedCell renders a list ([]any) or struct (map[string]any) the
// DuckDB driver scanned.
func duckNestedCell(v any) (cell, bool, error) {
	switch x := v.(type) {
	case []any:
		parts := make([]string, len(x))
		for j, e := range x {
			c, err := duckCell(e)
			if err != nil {
				return cell{}, true, err
			}
			parts[j] = c.String()
		}
		return cell{kind: kindString, s: "[" + strings.Join(parts, ", ") + "]"}, true, nil
	case map[string]any:
		fields := map[string]string{}
		for k, e := range x {
			c, err := duckCell(e)
			if err != nil {
				return cell{}, true, err
			}
			fields[k] = c.String()
		}
		return cell{kind: kindString, s: structText(fields)}, true, nil
	}
	return cell{}, false, nil
}

func structText(fields map[string]string) string {
	names := make([]string, 0, len(fields))
	for k := range fields {
		names = append(names, k)
	}
	slices.Sort(names)
	parts := make([]string, len(names))
	for j, k := range names {
		parts[j] = fmt.Sprintf("%s: %s", k, fields[k])
	}
	return "{" + strings.Join(parts, ", ") + "}"
}
