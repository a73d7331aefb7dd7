package convert

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/quiverdb/quiver/batch"
)

// FromRecords is a Source over record batches of any size: Parquet's,
// an IPC file's, any array.RecordReader's. The time its Next takes is
// PullTime, not conversion. The source owns rr.
func FromRecords(rr array.RecordReader) Source {
	return &records{rr: rr}
}

type records struct {
	rr      array.RecordReader
	stats   Stats
	close   func() error
	release func()
}

func (s *records) Schema() *arrow.Schema { return s.rr.Schema() }
func (s *records) Stats() Stats          { return s.stats }

func (s *records) Fill(c *Coalescer) error {
	for c.Ready() == 0 {
		t0 := time.Now()
		ok := s.rr.Next()
		s.stats.PullTime += time.Since(t0)
		if !ok {
			if err := s.rr.Err(); err != nil {
				return err
			}
			return io.EOF
		}
		if err := c.Append(s.rr.RecordBatch()); err != nil {
			return err
		}
	}
	return nil
}

func (s *records) Release() {
	s.rr.Release()
	if s.release != nil {
		s.release()
	}
}

// OpenIPC is a Source over an Arrow IPC file or stream of size bytes,
// read through the batch layer: hostile-input safe, any codec, with the
// limits of opts.
func OpenIPC(r io.ReaderAt, size int64, opts batch.ReadOptions) (Source, error) {
	rr, err := batch.OpenRecords(r, size, opts)
	if err != nil {
		return nil, err
	}
	return &records{rr: rr, stats: Stats{InputBytes: size}}, nil
}

// ParquetOptions configure OpenParquet. The zero value reads every
// column and row group serially, 8192 rows at a time.
type ParquetOptions struct {
	// BatchRows is the rows pqarrow reads at a time; default
	// DefaultBatchRows, so that its batches pass through a Coalescer of
	// the same size without a copy.
	BatchRows int
	// Columns and RowGroups select what is read (nil: all).
	Columns, RowGroups []int
	// Parallel reads the columns on their own goroutines.
	Parallel bool
	// Alloc allocates what pqarrow decodes; nil: memory.DefaultAllocator.
	Alloc memory.Allocator
}

// OpenParquet is a Source over a Parquet file, decoded by arrow-go's
// pqarrow (a decoder quiver does not own: its hardening is arrow-go's)
// and re-batched by the Reader.
func OpenParquet(ctx context.Context, r parquet.ReaderAtSeeker, opts ParquetOptions) (Source, error) {
	mem := opts.Alloc
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	rows := opts.BatchRows
	if rows <= 0 {
		rows = DefaultBatchRows
	}
	pf, err := file.NewParquetReader(r, file.WithReadProps(parquet.NewReaderProperties(mem)))
	if err != nil {
		return nil, fmt.Errorf("parquet: %w", err)
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: int64(rows), Parallel: opts.Parallel}, mem)
	if err != nil {
		pf.Close()
		return nil, fmt.Errorf("parquet: %w", err)
	}
	rr, err := fr.GetRecordReader(ctx, opts.Columns, opts.RowGroups)
	if err != nil {
		pf.Close()
		return nil, fmt.Errorf("parquet: %w", err)
	}
	var size int64
	if s, err := r.Seek(0, io.SeekEnd); err == nil {
		size = s
	}
	return &records{rr: rr, stats: Stats{InputBytes: size}, release: func() { pf.Close() }}, nil
}
