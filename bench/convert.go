package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/convert"
	"github.com/quiverdb/quiver/internal/datagen"
)

// ConvertConfig configures RunConvert. Zero fields take the defaults.
type ConvertConfig struct {
	// BatchRows is the rows of every input and output batch of the
	// per-type cells; default 8192.
	BatchRows int
	// Batches is how many input batches a per-type cell converts per
	// run; default 32.
	Batches int
	// Runs is how many times each cell is measured, interleaved; the
	// report gives medians. Default 5.
	Runs int
	// Types selects per-type cases by name (nil: all; empty: none).
	Types []string
	// CSVBytes is the size of the lineitem CSV file; default 10^9. A
	// negative value skips the CSV cells.
	CSVBytes int64
	// CSVRuns is how many times the CSV cells run; default 3.
	CSVRuns int
	// ParquetRows is the rows of the Parquet file; default 2,000,000.
	// A negative value skips the Parquet cells.
	ParquetRows int
	// Alloc allocates inputs and outputs; default a fresh GoAllocator.
	Alloc memory.Allocator
	// Progress, when set, gets a line per phase.
	Progress io.Writer
}

func (c ConvertConfig) withDefaults() ConvertConfig {
	if c.BatchRows == 0 {
		c.BatchRows = convert.DefaultBatchRows
	}
	if c.Batches == 0 {
		c.Batches = 32
	}
	if c.Runs == 0 {
		c.Runs = 5
	}
	if c.CSVBytes == 0 {
		c.CSVBytes = 1e9
	}
	if c.CSVRuns == 0 {
		c.CSVRuns = 3
	}
	if c.ParquetRows == 0 {
		c.ParquetRows = 2_000_000
	}
	if c.Alloc == nil {
		c.Alloc = memory.NewGoAllocator()
	}
	return c
}

// Validate reports an unusable field.
func (c ConvertConfig) Validate() error {
	if c.BatchRows < 0 || c.Batches < 0 || c.Runs < 0 || c.CSVRuns < 0 {
		return fmt.Errorf("bench: negative BatchRows %d, Batches %d, Runs %d or CSVRuns %d", c.BatchRows, c.Batches, c.Runs, c.CSVRuns)
	}
	if c.BatchRows%2 != 0 {
		return fmt.Errorf("bench: BatchRows %d must be even (inputs arrive in halves)", c.BatchRows)
	}
	for _, t := range c.Types {
		if _, ok := findTypeCase(t); !ok {
			return fmt.Errorf("bench: unknown type case %q", t)
		}
	}
	return nil
}

// typeCase is one column type of the per-type comparison, as Comet's
// benchmark lists them.
type typeCase struct {
	name string
	dt   arrow.DataType // the output type (the dictionary's values)
	dict bool           // input dictionary-encoded
	// fixed marks fixed-width types (the ≥ 2× target with nulls); text
	// marks strings, decimals and dictionary strings (≥ 5×).
	fixed, text bool
}

var typeCases = []typeCase{
	{name: "int32", dt: arrow.PrimitiveTypes.Int32, fixed: true},
	{name: "int64", dt: arrow.PrimitiveTypes.Int64, fixed: true},
	{name: "float64", dt: arrow.PrimitiveTypes.Float64, fixed: true},
	{name: "date32", dt: arrow.FixedWidthTypes.Date32, fixed: true},
	{name: "bool", dt: arrow.FixedWidthTypes.Boolean},
	{name: "decimal(9,2)", dt: &arrow.Decimal128Type{Precision: 9, Scale: 2}, text: true},
	{name: "decimal(18,2)", dt: &arrow.Decimal128Type{Precision: 18, Scale: 2}, text: true},
	{name: "decimal(38,10)", dt: &arrow.Decimal128Type{Precision: 38, Scale: 10}, text: true},
	{name: "string", dt: arrow.BinaryTypes.String, text: true},
	{name: "dictionary int", dt: arrow.PrimitiveTypes.Int32, dict: true},
	{name: "dictionary string", dt: arrow.BinaryTypes.String, dict: true, text: true},
	{name: "struct<int,long,double,date>", dt: arrow.StructOf(
		arrow.Field{Name: "i", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		arrow.Field{Name: "l", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		arrow.Field{Name: "d", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		arrow.Field{Name: "t", Type: arrow.FixedWidthTypes.Date32, Nullable: true})},
	{name: "map<string,string>", dt: arrow.MapOf(arrow.BinaryTypes.String, arrow.BinaryTypes.String)},
	{name: "array<int>", dt: arrow.ListOf(arrow.PrimitiveTypes.Int32)},
	{name: "array<string>", dt: arrow.ListOf(arrow.BinaryTypes.String)},
	{name: "array<struct<int,string>>", dt: arrow.ListOf(arrow.StructOf(
		arrow.Field{Name: "i", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		arrow.Field{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true}))},
}

func findTypeCase(name string) (typeCase, bool) {
	for _, c := range typeCases {
		if c.name == name {
			return c, true
		}
	}
	return typeCase{}, false
}

// TypeCaseNames lists the per-type cases.
func TypeCaseNames() []string {
	var n []string
	for _, c := range typeCases {
		n = append(n, c.name)
	}
	return n
}

// typeInput is one case × null fraction: the input batches and, for the
// AppendValues peer, the same rows as Go slices.
type typeInput struct {
	c        typeCase
	nulls    float64
	recs     []arrow.RecordBatch // one column each, BatchRows rows
	values   []any               // per batch: []T of the decoded values (nil: no AppendValues)
	valid    [][]bool
	rows     int
	quiver   []time.Duration
	perValue []time.Duration
	bulk     []time.Duration
}

// distinct is how many different input batches a cell cycles through.
const distinct = 4

func buildTypeInput(mem memory.Allocator, c typeCase, nulls float64, rows, batches int) *typeInput {
	in := &typeInput{c: c, nulls: nulls, rows: rows * batches}
	r := rand.New(rand.NewPCG(uint64(len(c.name)), uint64(nulls*100)))
	schema := arrow.NewSchema([]arrow.Field{{Name: c.name, Type: c.dt, Nullable: true}}, nil)
	for range min(batches, distinct) {
		var a arrow.Array
		if c.dict {
			dict := datagen.Gen(mem, c.dt, 1000, 0, r)
			a = datagen.Dictionary(mem, dict, rows, nulls, r)
			dict.Release()
		} else {
			a = datagen.Gen(mem, c.dt, rows, nulls, r)
		}
		if c.dict {
			schema = arrow.NewSchema([]arrow.Field{{Name: c.name, Type: a.DataType(), Nullable: true}}, nil)
		}
		in.recs = append(in.recs, array.NewRecordBatch(schema, []arrow.Array{a}, int64(rows)))
		vals, valid := goSlices(a)
		in.values = append(in.values, vals)
		in.valid = append(in.valid, valid)
		a.Release()
	}
	return in
}

func (in *typeInput) release() { release(in.recs) }

// measureQuiver converts every input batch through a Coalescer, each
// batch in two halves (so that none passes through uncopied), and
// releases the output batches.
func (in *typeInput) measureQuiver(mem memory.Allocator, rows, batches int) (time.Duration, error) {
	c, err := convert.NewCoalescer(in.recs[0].Schema(), convert.Config{BatchRows: rows, Alloc: mem})
	if err != nil {
		return 0, err
	}
	defer c.Release()
	return timed(func() error { return in.runQuiver(c, rows, batches) })
}

func (in *typeInput) runQuiver(c *convert.Coalescer, rows, batches int) error {
	for i := range batches {
		rec := in.recs[i%len(in.recs)]
		if err := c.AppendSlice(rec, 0, rows/2); err != nil {
			return err
		}
		if err := c.AppendSlice(rec, rows/2, rows/2); err != nil {
			return err
		}
		for out := c.Next(); out != nil; out = c.Next() {
			out.Release()
		}
	}
	return nil
}

// measurePerValue appends every row with arrow-go's builder, value by
// value (Append, AppendNull), in a loop typed for the column.
func (in *typeInput) measurePerValue(mem memory.Allocator, rows, batches int) (time.Duration, error) {
	b := array.NewBuilder(mem, in.c.dt)
	defer b.Release()
	fns := in.perValueFns(b)
	return timed(func() error { runPerValue(b, fns, batches); return nil })
}

func (in *typeInput) perValueFns(b array.Builder) []func() {
	fns := make([]func(), len(in.recs))
	for i, rec := range in.recs {
		fns[i] = perValueLoop(b, rec.Column(0))
	}
	return fns
}

func runPerValue(b array.Builder, fns []func(), batches int) {
	for i := range batches {
		fns[i%len(fns)]()
		b.NewArray().Release()
	}
}

// measureBulk appends every batch's Go slices with AppendValues.
func (in *typeInput) measureBulk(mem memory.Allocator, batches int) (time.Duration, error) {
	if in.values[0] == nil {
		return 0, errNoBulk
	}
	b := array.NewBuilder(mem, in.c.dt)
	defer b.Release()
	return timed(func() error { in.runBulk(b, batches); return nil })
}

func (in *typeInput) runBulk(b array.Builder, batches int) {
	for i := range batches {
		k := i % len(in.values)
		appendValues(b, in.values[k], in.valid[k])
		b.NewArray().Release()
	}
}

var errNoBulk = errors.New("no AppendValues for this type")

// measureTypes runs every per-type cell cfg.Runs times, interleaved:
// within a run, a case's three cells run back to back.
func measureTypes(ctx context.Context, cfg ConvertConfig, logf func(string, ...any)) ([]*typeInput, error) {
	var cases []typeCase
	if cfg.Types == nil {
		cases = typeCases
	}
	for _, name := range cfg.Types {
		c, _ := findTypeCase(name)
		cases = append(cases, c)
	}
	var ins []*typeInput
	for _, c := range cases {
		for _, nulls := range []float64{0, 0.1} {
			ins = append(ins, buildTypeInput(cfg.Alloc, c, nulls, cfg.BatchRows, cfg.Batches))
		}
	}
	logf("bench: %d per-type cells of %d rows (%d-row batches)", len(ins), cfg.BatchRows*cfg.Batches, cfg.BatchRows)
	for run := -1; run < cfg.Runs; run++ { // run -1 warms up and checks
		for _, in := range ins {
			if err := ctx.Err(); err != nil {
				return ins, err
			}
			q, err := in.measureQuiver(cfg.Alloc, cfg.BatchRows, cfg.Batches)
			if err != nil {
				return ins, fmt.Errorf("bench: %s: %w", in.c.name, err)
			}
			p, _ := in.measurePerValue(cfg.Alloc, cfg.BatchRows, cfg.Batches)
			bk, err := in.measureBulk(cfg.Alloc, cfg.Batches)
			if run < 0 {
				continue
			}
			in.quiver, in.perValue = append(in.quiver, q), append(in.perValue, p)
			if err == nil {
				in.bulk = append(in.bulk, bk)
			}
		}
		if run >= 0 {
			logf("bench: per-type run %d of %d", run+1, cfg.Runs)
		}
	}
	return ins, nil
}
