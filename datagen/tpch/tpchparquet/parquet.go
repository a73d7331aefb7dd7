// Package tpchparquet writes the TPC-H tables of package tpch, or any
// Arrow record stream, as Parquet files, for engines that cannot read
// Arrow IPC (DuckDB here: its arrow extension would have to be
// downloaded). It is a package of its own so that Parquet, and the gRPC
// that arrow-go's pqarrow imports, stay out of whatever imports tpch.
package tpchparquet

import (
	"io"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/quiverdb/quiver/datagen/tpch"
)

// GroupRows is about the rows of each row group (DuckDB's row group is
// 122,880 rows); groups end on batch boundaries.
const GroupRows = 15 * tpch.BatchRows

// WriteTable writes table at scale factor sf as a Parquet file with the
// table's exact types (decimal(15,2), date, int32, int64, string),
// snappy-compressed. It does not close w.
func WriteTable(w io.Writer, table string, sf float64) error {
	r, err := tpch.NewReader(memory.DefaultAllocator, table, sf)
	if err != nil {
		return err
	}
	defer r.Release()
	return Write(w, r)
}

// Write writes every batch r yields, in order, as one Parquet file of r's
// schema. It neither releases r nor closes w.
func Write(w io.Writer, r array.RecordReader) error {
	props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Snappy))
	// pqarrow closes a sink that is an io.Closer; the caller owns w.
	sink := struct{ io.Writer }{w}
	fw, err := pqarrow.NewFileWriter(r.Schema(), sink, props, pqarrow.DefaultWriterProps())
	if err != nil {
		return err
	}
	rows := int64(0)
	for r.Next() {
		if rows >= GroupRows {
			fw.NewBufferedRowGroup()
			rows = 0
		}
		rec := r.RecordBatch()
		if err := fw.WriteBuffered(rec); err != nil {
			fw.Close()
			return err
		}
		rows += rec.NumRows()
	}
	if err := r.Err(); err != nil {
		fw.Close()
		return err
	}
	return fw.Close()
}
