package convert

import (
	"database/sql"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/quiverdb/quiver/convert/internal/column"
)

// FromRows is a Source over database/sql rows: each column is scanned
// straight into its output builder (the scan targets are the builders,
// as sql.Scanner), with no intermediate Go values beyond what the driver
// hands over. schema gives the columns' types; nil derives them from
// rows.ColumnTypes():
//
//	DECIMAL/NUMERIC with a precision ≤ 38   decimal128(p, s)
//	DATE                                    date32
//	time.Time                               timestamp[us, UTC]
//	int8…int64, uint8…uint64                the same width (int: int64)
//	float32, float64, bool                  the same
//	text types, string                      string
//	[]byte, sql.RawBytes (not text)         binary
//	anything else                           string
//
// Drivers send decimals as text, which is parsed exactly (never through
// float64). The time rows.Next takes is PullTime; scanning is
// conversion. The source owns rows and closes it on Release.
func FromRows(rows *sql.Rows, schema *arrow.Schema) (Source, error) {
	cts, err := rows.ColumnTypes()
	if err != nil {
		rows.Close()
		return nil, err
	}
	if schema == nil {
		schema = schemaOf(cts)
	} else if schema.NumFields() != len(cts) {
		rows.Close()
		return nil, fmt.Errorf("convert: %w: %d columns in the rows, %d in the schema", ErrSchema, len(cts), schema.NumFields())
	}
	return &sqlRows{rows: rows, schema: schema}, nil
}

func schemaOf(cts []*sql.ColumnType) *arrow.Schema {
	fields := make([]arrow.Field, len(cts))
	for i, ct := range cts {
		nullable, ok := ct.Nullable()
		fields[i] = arrow.Field{Name: ct.Name(), Type: sqlType(ct), Nullable: nullable || !ok}
	}
	return arrow.NewSchema(fields, nil)
}

var (
	timeType  = reflect.TypeFor[time.Time]()
	bytesType = reflect.TypeFor[[]byte]()
	rawType   = reflect.TypeFor[sql.RawBytes]()
)

func sqlType(ct *sql.ColumnType) arrow.DataType {
	name := strings.ToUpper(ct.DatabaseTypeName())
	if p, s, ok := ct.DecimalSize(); ok && p >= 1 && p <= 38 && s >= 0 && s <= p {
		return &arrow.Decimal128Type{Precision: int32(p), Scale: int32(s)}
	}
	if name == "DATE" {
		return arrow.FixedWidthTypes.Date32
	}
	t := ct.ScanType()
	if t == nil {
		return arrow.BinaryTypes.String
	}
	// sql.NullInt64 and friends: the type of their value field.
	if t.Kind() == reflect.Struct && t.NumField() == 2 && t.Field(1).Name == "Valid" {
		t = t.Field(0).Type
	}
	switch {
	case t == timeType:
		return &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}
	case t == bytesType || t == rawType:
		if strings.Contains(name, "CHAR") || strings.Contains(name, "TEXT") || strings.Contains(name, "STRING") {
			return arrow.BinaryTypes.String
		}
		return arrow.BinaryTypes.Binary
	}
	switch t.Kind() {
	case reflect.Int8:
		return arrow.PrimitiveTypes.Int8
	case reflect.Int16:
		return arrow.PrimitiveTypes.Int16
	case reflect.Int32:
		return arrow.PrimitiveTypes.Int32
	case reflect.Int, reflect.Int64:
		return arrow.PrimitiveTypes.Int64
	case reflect.Uint8:
		return arrow.PrimitiveTypes.Uint8
	case reflect.Uint16:
		return arrow.PrimitiveTypes.Uint16
	case reflect.Uint32:
		return arrow.PrimitiveTypes.Uint32
	case reflect.Uint, reflect.Uint64:
		return arrow.PrimitiveTypes.Uint64
	case reflect.Float32:
		return arrow.PrimitiveTypes.Float32
	case reflect.Float64:
		return arrow.PrimitiveTypes.Float64
	case reflect.Bool:
		return arrow.FixedWidthTypes.Boolean
	}
	return arrow.BinaryTypes.String
}

type sqlRows struct {
	rows     *sql.Rows
	schema   *arrow.Schema
	scanners []*scanner
	dest     []any
	stats    Stats
}

func (s *sqlRows) Schema() *arrow.Schema { return s.schema }
func (s *sqlRows) Stats() Stats          { return s.stats }
func (s *sqlRows) Release()              { s.rows.Close() }

// scanner appends what the driver hands over to one column.
type scanner struct {
	b   column.Builder
	err error
}

func (sc *scanner) Scan(src any) error {
	v := src
	switch x := src.(type) {
	case []byte:
		switch sc.b.Type().ID() {
		case arrow.BINARY, arrow.LARGE_BINARY, arrow.FIXED_SIZE_BINARY:
		default:
			// Text: decimals, dates, numbers and strings sent as bytes.
			v = string(x)
		}
	case string:
		switch sc.b.Type().ID() {
		case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32,
			arrow.UINT64, arrow.FLOAT32, arrow.FLOAT64, arrow.BOOL:
			return sc.fail(fmt.Errorf("%w: text %q for a %s column", ErrSchema, x, sc.b.Type()))
		}
	case int64, float64, bool, time.Time:
		switch sc.b.Type().ID() {
		case arrow.STRING, arrow.LARGE_STRING:
			v = fmt.Sprint(x)
		}
	}
	if err := appendValue(sc.b, v); err != nil {
		return sc.fail(err)
	}
	return nil
}

func (sc *scanner) fail(err error) error {
	sc.err = err
	return err
}

func (s *sqlRows) Fill(c *Coalescer) error {
	if s.scanners == nil {
		for _, b := range c.cols {
			sc := &scanner{b: b}
			s.scanners = append(s.scanners, sc)
			s.dest = append(s.dest, sc)
		}
	}
	t0 := time.Now()
	var convert time.Duration
	defer func() { s.stats.ConvertTime += convert; s.stats.PullTime += time.Since(t0) - convert }()
	for c.Ready() == 0 {
		if !s.rows.Next() {
			if err := s.rows.Err(); err != nil {
				return err
			}
			return io.EOF
		}
		t1 := time.Now()
		err := s.scan(c)
		convert += time.Since(t1)
		if err != nil {
			return err
		}
	}
	return nil
}

// scan scans the current row, retrying once into a fresh batch when a
// value would pass the int32 offset limit of the open one.
func (s *sqlRows) scan(c *Coalescer) error {
	for try := 0; ; try++ {
		for _, sc := range s.scanners {
			sc.err = nil
		}
		err := s.rows.Scan(s.dest...)
		if err == nil {
			c.endRow()
			return nil
		}
		c.truncateRow()
		for i, sc := range s.scanners {
			if sc.err == nil {
				continue
			}
			if errors.Is(sc.err, column.ErrOffsets) && c.rows > 0 && try == 0 {
				c.complete()
				break
			}
			return c.rowError(c.rows, i, sc.err)
		}
		if try > 0 {
			return err
		}
		if !anyErr(s.scanners) {
			return err // the driver's own error
		}
	}
}

func anyErr(scs []*scanner) bool {
	for _, sc := range scs {
		if sc.err != nil {
			return true
		}
	}
	return false
}
