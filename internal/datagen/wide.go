package datagen

import (
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// The wide relations of the Comet cache benchmark (100, 200 and 1500
// columns): n nullable int64 columns c0..c{n-1}. Row i (counted across
// batches from 0) of column j holds
//
//	i*(j+1) + noise(i, j)   null when (i+j)%10 == 0
//
// with noise in 0..15 from a hash of (i, j). Each column rises steadily
// with its own slope, as ids, counters and timestamps do, and its low bits
// are jittered so that neither a codec nor an encoding gets it for free
// (plain i*(j+1) would delta-encode to a constant). The nulls lie on a
// diagonal: every column is null in 10% of the rows of every batch, each
// column in different rows.

// WideSchema is the schema of WideRecords with cols columns.
func WideSchema(cols int) *arrow.Schema {
	fields := make([]arrow.Field, cols)
	for j := range fields {
		fields[j] = arrow.Field{Name: "c" + strconv.Itoa(j), Type: arrow.PrimitiveTypes.Int64, Nullable: true}
	}
	return arrow.NewSchema(fields, nil)
}

// WideRecords returns rows rows of the wide relation of cols columns in
// batches of batchRows (the last may be shorter), allocated from mem (nil
// means memory.DefaultAllocator). The caller releases every record.
func WideRecords(mem memory.Allocator, cols, rows, batchRows int) []arrow.RecordBatch {
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	if batchRows <= 0 {
		batchRows = DefaultCometBatch
	}
	schema := WideSchema(cols)
	recs := make([]arrow.RecordBatch, 0, (max(rows, 0)+batchRows-1)/batchRows)
	arrs := make([]arrow.Array, cols)
	for start := 0; start < rows; start += batchRows {
		n := min(batchRows, rows-start)
		for j := range arrs {
			arrs[j] = int64Column(mem, start, n,
				func(i int) bool { return (i+j)%10 == 0 },
				func(i int) int64 { return int64(i)*int64(j+1) + wideNoise(i, j) })
		}
		recs = append(recs, array.NewRecordBatch(schema, arrs, int64(n)))
		for _, a := range arrs {
			a.Release()
		}
	}
	return recs
}

// wideNoise is 0..15, the top four bits of a splitmix64-style hash of
// (row, col): fixed, so every run and every machine sees the same values.
func wideNoise(row, col int) int64 {
	x := uint64(row)*0x9E3779B97F4A7C15 + uint64(col)*0xC2B2AE3D27D4EB4F
	x ^= x >> 29
	x *= 0xBF58476D1CE4E5B9
	x ^= x >> 32
	return int64(x >> 60)
}
