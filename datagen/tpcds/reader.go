package tpcds

import (
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/internal/pull"
)

// ErrConfig is what every Config error matches.
var ErrConfig = errors.New("tpcds: bad config")

// Defaults of Config's zero fields.
const (
	// DefaultBatchRows is Spark's spark.sql.execution.arrow.maxRecordsPerBatch,
	// the batch size of the Kyuubi benchmark this table stands in for.
	DefaultBatchRows = 10_000
	// DefaultSeed is dsdgen's default RNG seed (RNGSEED 19620718).
	DefaultSeed = 19_620_718
)

// Config says what CatalogSales generates.
type Config struct {
	// Rows is how many rows; 0 makes an empty stream.
	Rows int64
	// BatchRows is the rows of every batch but the last; 0 means
	// DefaultBatchRows.
	BatchRows int
	// Seed fixes every value; 0 means DefaultSeed.
	Seed uint64
	// ScaleFactor sizes the dimensions the keys point into and so the
	// key ranges; 0 means Rows / RowsPerSF, at least 1: the scale factor
	// at which catalog_sales has about Rows rows. The sale dates span
	// 1998–2002 whatever it is, as they do in dsdgen's full table.
	ScaleFactor float64
	// Columns selects catalog_sales columns by index, in output order;
	// nil means all 34 (see NumericColumns for the 8-column projection).
	Columns []int
}

// Validate reports a field that cannot be used.
func (c Config) Validate() error {
	if c.Rows < 0 || c.BatchRows < 0 {
		return fmt.Errorf("%w: negative Rows %d or BatchRows %d", ErrConfig, c.Rows, c.BatchRows)
	}
	if c.ScaleFactor < 0 || math.IsNaN(c.ScaleFactor) || math.IsInf(c.ScaleFactor, 0) {
		return fmt.Errorf("%w: ScaleFactor %v", ErrConfig, c.ScaleFactor)
	}
	for i, col := range c.Columns {
		if col < 0 || col >= NumColumns {
			return fmt.Errorf("%w: Columns[%d] = %d, catalog_sales has %d columns", ErrConfig, i, col, NumColumns)
		}
	}
	return nil
}

func (c Config) withDefaults() Config {
	if c.BatchRows == 0 {
		c.BatchRows = DefaultBatchRows
	}
	if c.Seed == 0 {
		c.Seed = DefaultSeed
	}
	if c.ScaleFactor == 0 {
		c.ScaleFactor = max(1, float64(c.Rows)/RowsPerSF)
	}
	if c.Columns == nil {
		c.Columns = make([]int, NumColumns)
		for i := range c.Columns {
			c.Columns[i] = i
		}
	}
	return c
}

// CatalogSales returns rows rows of catalog_sales, all 34 columns, in
// batches of batchRows rows (0: DefaultBatchRows), with DefaultSeed. It
// panics on a negative argument; NewCatalogSales checks a Config instead.
// The caller must Release the reader.
func CatalogSales(mem memory.Allocator, rows int64, batchRows int) array.RecordReader {
	r, err := NewCatalogSales(mem, Config{Rows: rows, BatchRows: batchRows})
	if err != nil {
		panic(err)
	}
	return r
}

// CatalogSalesNumeric is CatalogSales projected to NumericColumns.
func CatalogSalesNumeric(mem memory.Allocator, rows int64, batchRows int) array.RecordReader {
	r, err := NewCatalogSales(mem, Config{Rows: rows, BatchRows: batchRows, Columns: NumericColumns})
	if err != nil {
		panic(err)
	}
	return r
}

// NewCatalogSales returns catalog_sales as cfg says, generated batch by
// batch as it is read: memory holds one batch and the item permutation
// (4 bytes an item). The same Config gives the same values, and a
// projection gives the same values as the full table's columns.
func NewCatalogSales(mem memory.Allocator, cfg Config) (array.RecordReader, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	schema := CatalogSalesSchema
	if !isIdentity(cfg.Columns) {
		schema = project(CatalogSalesSchema, cfg.Columns)
	}
	r := &reader{mem: mem, cfg: cfg, schema: schema, gen: newGenerator(cfg.Rows, cfg.ScaleFactor, cfg.Seed)}
	return pull.Records(schema, r.nextBatch), nil
}

func isIdentity(cols []int) bool {
	for i, c := range cols {
		if c != i {
			return false
		}
	}
	return len(cols) == NumColumns
}

// reader generates the batches NewCatalogSales returns.
type reader struct {
	mem    memory.Allocator
	cfg    Config
	schema *arrow.Schema
	gen    *generator
}

// nextBatch returns the next batch, or io.EOF when every row is out.
func (r *reader) nextBatch() (arrow.RecordBatch, error) {
	g := r.gen
	if g.done() {
		return nil, io.EOF
	}
	n := int(min(int64(r.cfg.BatchRows), g.rows-g.emitted))
	b := newBuilder(r.mem, r.schema, r.cfg.Columns, n)
	var l line
	for i := range n {
		g.next(&l)
		b.set(i, &g.o, &l)
	}
	return b.finish(), nil
}
