package sortkey

import (
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
)

// Errors match these sentinels with errors.Is; the message names the column
// and the sizes or types involved.
var (
	// ErrUnsupported: a SortField's type has no SQL order here (run-end
	// encoded, extension types, and lists, structs, maps or unions
	// holding one).
	ErrUnsupported = errors.New("sortkey: type cannot be a sort key")
	// ErrInput: the columns given to Encode do not match the encoder's
	// fields (count, type or length).
	ErrInput = errors.New("sortkey: columns do not match the sort fields")
	// ErrTooLarge: one Rows would hold 4 GiB of keys or more.
	ErrTooLarge = errors.New("sortkey: keys too large")
)

// SortField is one column of an ORDER BY: its type, its direction and where
// its NULLs go. The zero value is ASC NULLS LAST, DuckDB's default.
type SortField struct {
	Type       arrow.DataType
	Desc       bool
	NullsFirst bool
}

// String is the field as SQL writes it, e.g. "utf8 DESC NULLS FIRST".
func (f SortField) String() string {
	dir, nulls := "ASC", "NULLS LAST"
	if f.Desc {
		dir = "DESC"
	}
	if f.NullsFirst {
		nulls = "NULLS FIRST"
	}
	return fmt.Sprintf("%s %s %s", f.Type, dir, nulls)
}

// Null bytes (doc.go): a NULL sorts before or after the valid byte.
const (
	nullFirstByte = 0x00
	validByte     = 0x01
	nullLastByte  = 0x02
)

func (f SortField) nullByte() byte {
	if f.NullsFirst {
		return nullFirstByte
	}
	return nullLastByte
}

// fixedWidth returns the bytes a value of t takes after the null byte, or
// -1 for variable-length types, or an error matching ErrUnsupported.
func fixedWidth(t arrow.DataType) (int, error) {
	switch t.ID() {
	case arrow.NULL:
		return 0, nil
	case arrow.BOOL, arrow.INT8, arrow.UINT8:
		return 1, nil
	case arrow.INT16, arrow.UINT16, arrow.FLOAT16:
		return 2, nil
	case arrow.INT32, arrow.UINT32, arrow.FLOAT32, arrow.DATE32, arrow.TIME32, arrow.DECIMAL32:
		return 4, nil
	case arrow.INT64, arrow.UINT64, arrow.FLOAT64, arrow.DATE64, arrow.TIME64, arrow.TIMESTAMP,
		arrow.DURATION, arrow.DECIMAL64:
		return 8, nil
	case arrow.DECIMAL128, arrow.INTERVAL_MONTH_DAY_NANO:
		return 16, nil
	case arrow.DECIMAL256:
		return 32, nil
	case arrow.FIXED_SIZE_BINARY:
		return t.(*arrow.FixedSizeBinaryType).ByteWidth, nil
	case arrow.STRING, arrow.BINARY, arrow.LARGE_STRING, arrow.LARGE_BINARY, arrow.STRING_VIEW, arrow.BINARY_VIEW:
		return -1, nil
	case arrow.DICTIONARY:
		if _, err := fixedWidth(t.(*arrow.DictionaryType).ValueType); err != nil {
			return 0, err
		}
		return -1, nil
	case arrow.LIST, arrow.LARGE_LIST, arrow.FIXED_SIZE_LIST, arrow.LIST_VIEW, arrow.LARGE_LIST_VIEW, arrow.MAP, arrow.STRUCT:
		if _, err := nestedChildren(t); err != nil {
			return 0, err
		}
		return -1, nil
	case arrow.SPARSE_UNION, arrow.DENSE_UNION:
		if _, err := unionMembers(t); err != nil {
			return 0, err
		}
		return -1, nil
	}
	return 0, fmt.Errorf("%w: %s", ErrUnsupported, t)
}

// Supported reports whether t can be a sort key (see doc.go for the list).
func Supported(t arrow.DataType) bool {
	_, err := fixedWidth(t)
	return err == nil
}
