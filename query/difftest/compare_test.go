//go:build duckdb

package difftest

import (
	"database/sql"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	duckdb "github.com/duckdb/duckdb-go/v2"
)

// cell is one result value, normalized across the two engines.
type cell struct {
	kind  kind
	exact *big.Rat // kindExact: integers and decimals
	scale int      // kindExact: the decimal's scale (0 for integers)
	f     float64  // kindFloat
	s     string   // kindString, kindDate (YYYY-MM-DD), kindBool
}

type kind uint8

const (
	kindNull kind = iota
	kindExact
	kindFloat
	kindString
	kindDate
	kindBool
)

func (c cell) String() string {
	switch c.kind {
	case kindNull:
		return "NULL"
	case kindExact:
		return c.exact.FloatString(c.scale)
	case kindFloat:
		return fmt.Sprintf("%.17g", c.f)
	case kindString:
		return fmt.Sprintf("%q", c.s)
	}
	return c.s
}

// sortKey orders rows when a query does not: floats rounded so that two
// engines' last-bit differences sort alike.
func (c cell) sortKey() string {
	switch c.kind {
	case kindFloat:
		return fmt.Sprintf("F%.6e", c.f)
	case kindExact:
		f, _ := c.exact.Float64()
		return fmt.Sprintf("F%.6e", f)
	}
	return fmt.Sprintf("%d%s", c.kind, c)
}

type row []cell

func (r row) String() string {
	s := make([]string, len(r))
	for i, c := range r {
		s[i] = c.String()
	}
	return "(" + strings.Join(s, ", ") + ")"
}

func exactInt(v int64) cell { return cell{kind: kindExact, exact: new(big.Rat).SetInt64(v)} }

func exactDecimal(unscaled *big.Int, scale int) cell {
	den := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil)
	return cell{kind: kindExact, exact: new(big.Rat).SetFrac(unscaled, den), scale: scale}
}

// arrowCell normalizes row i of a quiver result column.
func arrowCell(a arrow.Array, i int) (cell, error) {
	if a.IsNull(i) {
		return cell{}, nil
	}
	if c, ok, err := arrowNestedCell(a, i); ok { // nestedcell_test.go
		return c, err
	}
	if r, ok := a.(*array.RunEndEncoded); ok { // passed through as stored: its run's value
		return arrowCell(r.Values(), r.GetPhysicalIndex(i))
	}
	switch a := a.(type) {
	case *array.Int64:
		return exactInt(a.Value(i)), nil
	case *array.Int32:
		return exactInt(int64(a.Value(i))), nil
	case *array.Int16:
		return exactInt(int64(a.Value(i))), nil
	case *array.Int8:
		return exactInt(int64(a.Value(i))), nil
	case *array.Uint8:
		return exactInt(int64(a.Value(i))), nil
	case *array.Uint16:
		return exactInt(int64(a.Value(i))), nil
	case *array.Uint32:
		return exactInt(int64(a.Value(i))), nil
	case *array.Uint64:
		return cell{kind: kindExact, exact: new(big.Rat).SetInt(new(big.Int).SetUint64(a.Value(i)))}, nil
	case *array.Float64:
		return cell{kind: kindFloat, f: a.Value(i)}, nil
	case *array.Float32:
		return cell{kind: kindFloat, f: float64(a.Value(i))}, nil
	case *array.Decimal128:
		return exactDecimal(a.Value(i).BigInt(), int(a.DataType().(*arrow.Decimal128Type).Scale)), nil
	case *array.Decimal64:
		return exactDecimal(big.NewInt(int64(a.Value(i))), int(a.DataType().(*arrow.Decimal64Type).Scale)), nil
	case *array.Decimal256:
		return exactDecimal(a.Value(i).BigInt(), int(a.DataType().(*arrow.Decimal256Type).Scale)), nil
	case *array.Decimal32:
		return exactDecimal(big.NewInt(int64(a.Value(i))), int(a.DataType().(*arrow.Decimal32Type).Scale)), nil
	case *array.String:
		// Value aliases the batch's buffer, which the engine's recycling
		// allocator reuses once the batch is released: copy.
		return cell{kind: kindString, s: strings.Clone(a.Value(i))}, nil
	case *array.LargeString:
		return cell{kind: kindString, s: strings.Clone(a.Value(i))}, nil
	case *array.Date32:
		return cell{kind: kindDate, s: a.Value(i).FormattedString()}, nil
	case *array.Date64:
		return cell{kind: kindDate, s: a.Value(i).FormattedString()}, nil
	case *array.Boolean:
		return cell{kind: kindBool, s: fmt.Sprint(a.Value(i))}, nil
	case *array.Time64:
		// DuckDB's driver gives a TIME as that time of 0001-01-01
		us := time.Duration(a.Value(i).ToTime(a.DataType().(*arrow.Time64Type).Unit).Sub(time.Unix(0, 0).UTC()))
		return timeCell(time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC).Add(us)), nil
	case *array.Time32:
		us := time.Duration(a.Value(i).ToTime(a.DataType().(*arrow.Time32Type).Unit).Sub(time.Unix(0, 0).UTC()))
		return timeCell(time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC).Add(us)), nil
	case *array.Timestamp:
		toTime, err := a.DataType().(*arrow.TimestampType).GetToTimeFunc()
		if err != nil {
			return cell{}, err
		}
		return timeCell(toTime(a.Value(i))), nil
	case *array.MonthDayNanoInterval:
		v := a.Value(i)
		return intervalCell(v.Months, v.Days, v.Nanoseconds/1000), nil
	case *array.Binary:
		return cell{kind: kindString, s: fmt.Sprintf("blob %x", a.Value(i))}, nil
	}
	return cell{}, fmt.Errorf("quiver returned a column of type %s", a.DataType())
}

// duckCell normalizes a value database/sql scanned from DuckDB.
func duckCell(v any) (cell, error) {
	switch v := v.(type) {
	case nil:
		return cell{}, nil
	case int64:
		return exactInt(v), nil
	case int32:
		return exactInt(int64(v)), nil
	case int16:
		return exactInt(int64(v)), nil
	case int8:
		return exactInt(int64(v)), nil
	case uint64:
		return cell{kind: kindExact, exact: new(big.Rat).SetInt(new(big.Int).SetUint64(v))}, nil
	case *big.Int:
		return cell{kind: kindExact, exact: new(big.Rat).SetInt(v)}, nil
	case duckdb.Decimal:
		return exactDecimal(v.Value, int(v.Scale)), nil
	case float64:
		return cell{kind: kindFloat, f: v}, nil
	case float32:
		return cell{kind: kindFloat, f: float64(v)}, nil
	case string:
		return cell{kind: kindString, s: v}, nil
	case bool:
		return cell{kind: kindBool, s: fmt.Sprint(v)}, nil
	case time.Time:
		return timeCell(v), nil
	case duckdb.Interval:
		return intervalCell(v.Months, v.Days, v.Micros), nil
	case []byte:
		return cell{kind: kindString, s: fmt.Sprintf("blob %x", v)}, nil
	}
	if c, ok, err := duckNestedCell(v); ok { // nestedcell_test.go
		return c, err
	}
	return cell{}, fmt.Errorf("DuckDB returned %T", v)
}

// intervalCell is an INTERVAL by its parts, as both engines keep them
// (months, days, microseconds; quiver's nanoseconds are whole
// microseconds wherever DuckDB can say the same).
func intervalCell(months, days int32, micros int64) cell {
	return cell{kind: kindString, s: fmt.Sprintf("interval %d months %d days %d us", months, days, micros)}
}

// timeCell is a DATE, or a timestamp at midnight (DuckDB's date ±
// interval), as a date, and any other timestamp as its UTC text.
func timeCell(v time.Time) cell {
	v = v.UTC()
	if v.Hour() != 0 || v.Minute() != 0 || v.Second() != 0 || v.Nanosecond() != 0 {
		return cell{kind: kindString, s: v.Format("2006-01-02 15:04:05.999999999")}
	}
	return cell{kind: kindDate, s: v.Format(time.DateOnly)}
}

// readArrow drains a quiver result into rows.
func readArrow(r array.RecordReader) ([]row, error) {
	var rows []row
	for r.Next() {
		rec := r.RecordBatch()
		for i := range int(rec.NumRows()) {
			rw := make(row, rec.NumCols())
			for j, col := range rec.Columns() {
				c, err := arrowCell(col, i)
				if err != nil {
					return nil, err
				}
				rw[j] = c
			}
			rows = append(rows, rw)
		}
	}
	return rows, r.Err()
}

// readSQL drains DuckDB's rows.
func readSQL(rs *sql.Rows) ([]row, error) {
	defer rs.Close()
	cols, err := rs.Columns()
	if err != nil {
		return nil, err
	}
	var rows []row
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rs.Next() {
		if err := rs.Scan(ptrs...); err != nil {
			return nil, err
		}
		rw := make(row, len(cols))
		for j, v := range vals {
			c, err := duckCell(v)
			if err != nil {
				return nil, err
			}
			rw[j] = c
		}
		rows = append(rows, rw)
	}
	return rows, rs.Err()
}

// sameCell says whether two normalized values agree (see the package doc).
func sameCell(q, d cell) bool {
	switch {
	case q.kind == kindNull || d.kind == kindNull:
		return q.kind == d.kind
	case q.kind == kindExact && d.kind == kindExact:
		return q.exact.Cmp(d.exact) == 0
	case q.kind == kindFloat && d.kind == kindFloat:
		return closeFloat(q.f, d.f)
	case q.kind == kindExact && d.kind == kindFloat:
		return decimalNear(q, d.f)
	case q.kind == kindFloat && d.kind == kindExact:
		return decimalNear(d, q.f)
	}
	return q.kind == d.kind && q.s == d.s
}

func closeFloat(a, b float64) bool {
	if a == b || (math.IsNaN(a) && math.IsNaN(b)) {
		return true
	}
	return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b))
}

// decimalNear: the exact value is f rounded to the decimal's scale.
func decimalNear(x cell, f float64) bool {
	v, _ := x.exact.Float64()
	if closeFloat(v, f) {
		return true
	}
	half := 0.5 * math.Pow10(-x.scale)
	return math.Abs(v-f) <= half*(1+1e-9)+1e-9*math.Abs(f)
}

// diff compares two results; ordered says the query fixes the row order.
// It returns "" or a description of the first difference.
func diff(quiver, duck []row, ordered bool) string {
	if !ordered {
		quiver, duck = sortRows(quiver), sortRows(duck)
	}
	for i := range max(len(quiver), len(duck)) {
		switch {
		case i >= len(quiver):
			return fmt.Sprintf("quiver has %d rows, DuckDB %d; DuckDB's row %d: %s", len(quiver), len(duck), i, duck[i])
		case i >= len(duck):
			return fmt.Sprintf("quiver has %d rows, DuckDB %d; quiver's row %d: %s", len(quiver), len(duck), i, quiver[i])
		case len(quiver[i]) != len(duck[i]):
			return fmt.Sprintf("quiver has %d columns, DuckDB %d", len(quiver[i]), len(duck[i]))
		}
		for j := range quiver[i] {
			if !sameCell(quiver[i][j], duck[i][j]) {
				return fmt.Sprintf("row %d column %d: quiver %s, DuckDB %s\n  quiver row: %s\n  DuckDB row: %s",
					i, j+1, quiver[i][j], duck[i][j], quiver[i], duck[i])
			}
		}
	}
	return ""
}

func sortRows(rows []row) []row {
	type keyed struct {
		key string
		r   row
	}
	ks := make([]keyed, len(rows))
	for i, r := range rows {
		parts := make([]string, len(r))
		for j, c := range r {
			parts[j] = c.sortKey()
		}
		ks[i] = keyed{strings.Join(parts, "\x00"), r}
	}
	slices.SortStableFunc(ks, func(a, b keyed) int { return strings.Compare(a.key, b.key) })
	out := make([]row, len(rows))
	for i, k := range ks {
		out[i] = k.r
	}
	return out
}
