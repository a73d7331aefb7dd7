package query

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pingcap/tidb/pkg/parser/mysql"
	"github.com/pingcap/tidb/pkg/parser/types"
)

// SQL column types of CREATE TABLE and their Arrow types, as DuckDB names
// and sizes them:
//
//	TINYINT                     int8       BOOLEAN, BOOL, TINYINT(1)  bool
//	SMALLINT                    int16      REAL, DOUBLE               float64
//	INTEGER, INT                int32      FLOAT                      float32
//	BIGINT                      int64      DECIMAL(p,s), NUMERIC      decimal128(p,s)
//	VARCHAR(n), CHAR(n), TEXT   utf8       DATE                       date32
//	TIMESTAMP, DATETIME         timestamp[us]
//
// The parser reads SQL as MySQL does, so BOOLEAN is TINYINT(1) and REAL
// is DOUBLE (DuckDB's REAL is 4 bytes); a VARCHAR's length is not
// enforced (as in DuckDB). DECIMAL without a precision is DECIMAL(18,3),
// DuckDB's default; the precision is at most 38. Any other type is
// refused, naming it.

// maxDecimalPrecision is the largest precision a decimal128 holds.
const maxDecimalPrecision = 38

// arrowType maps a column's SQL type to its Arrow type.
func arrowType(ft *types.FieldType) (arrow.DataType, error) {
	unsigned := mysql.HasUnsignedFlag(ft.GetFlag())
	switch ft.GetType() {
	case mysql.TypeTiny:
		switch {
		case ft.GetFlen() == 1:
			return arrow.FixedWidthTypes.Boolean, nil
		case unsigned:
			return arrow.PrimitiveTypes.Uint8, nil
		}
		return arrow.PrimitiveTypes.Int8, nil
	case mysql.TypeShort:
		if unsigned {
			return arrow.PrimitiveTypes.Uint16, nil
		}
		return arrow.PrimitiveTypes.Int16, nil
	case mysql.TypeLong, mysql.TypeInt24:
		if unsigned {
			return arrow.PrimitiveTypes.Uint32, nil
		}
		return arrow.PrimitiveTypes.Int32, nil
	case mysql.TypeLonglong:
		if unsigned {
			return arrow.PrimitiveTypes.Uint64, nil
		}
		return arrow.PrimitiveTypes.Int64, nil
	case mysql.TypeFloat:
		return arrow.PrimitiveTypes.Float32, nil
	case mysql.TypeDouble:
		return arrow.PrimitiveTypes.Float64, nil
	case mysql.TypeNewDecimal:
		p, s := ft.GetFlen(), ft.GetDecimal()
		if p <= 0 {
			p, s = 18, 3
		}
		if s < 0 {
			s = 0
		}
		if p > maxDecimalPrecision {
			return nil, fmt.Errorf("DECIMAL(%d,%d): the precision is at most %d", p, s, maxDecimalPrecision)
		}
		if s > p {
			return nil, fmt.Errorf("DECIMAL(%d,%d): the scale is larger than the precision", p, s)
		}
		return &arrow.Decimal128Type{Precision: int32(p), Scale: int32(s)}, nil
	case mysql.TypeVarchar, mysql.TypeString, mysql.TypeVarString,
		mysql.TypeBlob, mysql.TypeTinyBlob, mysql.TypeMediumBlob, mysql.TypeLongBlob:
		if mysql.HasBinaryFlag(ft.GetFlag()) && ft.GetCharset() == "binary" {
			return arrow.BinaryTypes.Binary, nil
		}
		return arrow.BinaryTypes.String, nil
	case mysql.TypeDate:
		return arrow.FixedWidthTypes.Date32, nil
	case mysql.TypeDatetime, mysql.TypeTimestamp:
		// No time zone: DuckDB's TIMESTAMP (arrow-go's Timestamp_us is UTC).
		return &arrow.TimestampType{Unit: arrow.Microsecond}, nil
	}
	return nil, fmt.Errorf("type %s has no Arrow type in quiver (types: BOOLEAN, TINYINT, SMALLINT, INTEGER, BIGINT, REAL, DOUBLE, FLOAT, DECIMAL(p,s), VARCHAR, TEXT, DATE, TIMESTAMP)", ft.String())
}

// sqlTypeName is how information_schema and DESCRIBE name an Arrow type:
// DuckDB's names where there is one.
func sqlTypeName(dt arrow.DataType) string {
	switch dt.ID() {
	case arrow.BOOL:
		return "BOOLEAN"
	case arrow.INT8:
		return "TINYINT"
	case arrow.INT16:
		return "SMALLINT"
	case arrow.INT32:
		return "INTEGER"
	case arrow.INT64:
		return "BIGINT"
	case arrow.UINT8:
		return "UTINYINT"
	case arrow.UINT16:
		return "USMALLINT"
	case arrow.UINT32:
		return "UINTEGER"
	case arrow.UINT64:
		return "UBIGINT"
	case arrow.FLOAT32:
		return "FLOAT"
	case arrow.FLOAT64:
		return "DOUBLE"
	case arrow.DECIMAL32, arrow.DECIMAL64, arrow.DECIMAL128, arrow.DECIMAL256:
		d := dt.(arrow.DecimalType)
		return fmt.Sprintf("DECIMAL(%d,%d)", d.GetPrecision(), d.GetScale())
	case arrow.STRING, arrow.LARGE_STRING, arrow.STRING_VIEW:
		return "VARCHAR"
	case arrow.BINARY, arrow.LARGE_BINARY, arrow.BINARY_VIEW, arrow.FIXED_SIZE_BINARY:
		return "BLOB"
	case arrow.DATE32, arrow.DATE64:
		return "DATE"
	case arrow.TIMESTAMP:
		if dt.(*arrow.TimestampType).TimeZone != "" {
			return "TIMESTAMP WITH TIME ZONE"
		}
		return "TIMESTAMP"
	case arrow.TIME32, arrow.TIME64:
		return "TIME"
	case arrow.INTERVAL_MONTHS, arrow.INTERVAL_DAY_TIME, arrow.INTERVAL_MONTH_DAY_NANO, arrow.DURATION:
		return "INTERVAL"
	case arrow.DICTIONARY:
		return sqlTypeName(dt.(*arrow.DictionaryType).ValueType)
	case arrow.NULL:
		return "NULL"
	}
	return dt.String()
}
