package tpch

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"io"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// WriteCSV writes table at scale factor sf as CSV (RFC 4180, a header of
// column names, decimals with their two places, dates as YYYY-MM-DD), for
// engines that read neither Arrow IPC nor Parquet (package tpchparquet
// writes Parquet). DuckDB reads it with
//
//	read_csv('lineitem.csv', header = true, columns = {...})
//
// given the column types (Schema), since it would guess DOUBLE for the
// decimals.
func WriteCSV(w io.Writer, table string, sf float64) error {
	r, err := NewReader(memory.DefaultAllocator, table, sf)
	if err != nil {
		return err
	}
	defer r.Release()
	bw := bufio.NewWriterSize(w, 1<<16)
	cw := csv.NewWriter(bw)
	schema := r.Schema()
	row := make([]string, schema.NumFields())
	for i, f := range schema.Fields() {
		row[i] = f.Name
	}
	if err := cw.Write(row); err != nil {
		return err
	}
	for r.Next() {
		rec := r.RecordBatch()
		for i := range int(rec.NumRows()) {
			for j, col := range rec.Columns() {
				row[j] = formatValue(col, i)
			}
			if err := cw.Write(row); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return err
	}
	return bw.Flush()
}

// formatValue is row i of a generated column as dbgen prints it.
func formatValue(col arrow.Array, i int) string {
	switch c := col.(type) {
	case *array.Int64:
		return strconv.FormatInt(c.Value(i), 10)
	case *array.Int32:
		return strconv.FormatInt(int64(c.Value(i)), 10)
	case *array.Decimal128:
		cents := int64(c.Value(i).LowBits()) // generated money fits in an int64
		sign := ""
		if cents < 0 {
			sign, cents = "-", -cents
		}
		return fmt.Sprintf("%s%d.%02d", sign, cents/100, cents%100)
	case *array.Date32:
		return c.Value(i).FormattedString()
	case *array.String:
		return c.Value(i)
	}
	panic(fmt.Sprintf("tpch: no format for %s", col.DataType()))
}
