package agg

import (
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// ResultSchema is the schema of Result's batches: the keys ("key0", …),
// then one column per spec named by Spec.Name (or the function and
// argument).
func (h *HashAggregator) ResultSchema() *arrow.Schema {
	fields := h.keyFields()
	for i, s := range h.specs {
		var arg arrow.DataType
		if s.Func != CountStar {
			arg = h.argTypes[s.Arg]
		}
		dt, _ := ResultType(s.Func, arg) // checked by NewHashAggregator
		counts := s.Func == CountStar || s.Func == Count || s.Func == CountDistinct
		fields = append(fields, arrow.Field{Name: h.names[i], Type: dt, Nullable: !counts})
	}
	return arrow.NewSchema(fields, nil)
}

// PartialSchema is the schema of Partial's batches: the keys, then each
// state's partial columns — count: int64; sum and avg: the sum
// (decimal(38,0) for int64, decimal(38,s) for decimals of precision ≤ 18,
// decimal(76,s) for wider ones, float64) and the count of values in it;
// min and max: the value (NULL: none yet); count(DISTINCT x): the list of
// distinct values; the variance family: count, mean and the sum of squared
// deviations. sum(x) and avg(x) share one state, as do repeated
// aggregates; a state's columns are named "<name>.<j>" after the first spec
// that needs it.
func (h *HashAggregator) PartialSchema() *arrow.Schema {
	fields := h.keyFields()
	for i, s := range h.states {
		for j, dt := range s.partialTypes() {
			fields = append(fields, arrow.Field{Name: fmt.Sprintf("%s.%d", h.stNames[i], j), Type: dt, Nullable: true})
		}
	}
	return arrow.NewSchema(fields, nil)
}

func (h *HashAggregator) keyFields() []arrow.Field {
	fields := make([]arrow.Field, 0, len(h.keyTypes)+len(h.specs))
	for i, dt := range h.keyTypes {
		fields = append(fields, arrow.Field{Name: fmt.Sprintf("key%d", i), Type: dt, Nullable: true})
	}
	return fields
}

// Result returns the groups as record batches of at most batchRows rows
// (fewer where string columns would pass 2 GiB): key columns, then one
// column per spec, in first-seen group order. With no keys there is always
// one row, even with no input (count 0, other aggregates NULL). The
// aggregator is not changed: Add may continue.
func (h *HashAggregator) Result(batchRows int) ([]arrow.RecordBatch, error) {
	return h.export(batchRows, h.ResultSchema(), func(from, to int) ([]arrow.Array, error) {
		var cols []arrow.Array
		for i, s := range h.specs {
			a, err := h.states[h.out[i]].result(h.mem, s.Func, h.names[i], from, to)
			if err != nil {
				releaseAll(cols)
				return nil, err
			}
			cols = append(cols, a)
		}
		return cols, nil
	})
}

// Partial returns the groups with their partial states (PartialSchema), in
// first-seen group order, as batches of at most batchRows rows. Merge
// folds such batches into another aggregator of the same keys, arguments
// and specs; this is the state a spill writes. The aggregator is not
// changed.
func (h *HashAggregator) Partial(batchRows int) ([]arrow.RecordBatch, error) {
	defer func() {
		for _, s := range h.states {
			if d, ok := s.(*distinctState); ok {
				d.dropExportScratch()
			}
		}
	}()
	return h.export(batchRows, h.PartialSchema(), func(from, to int) ([]arrow.Array, error) {
		var cols []arrow.Array
		for _, s := range h.states {
			a, err := s.partial(h.mem, from, to)
			if err != nil {
				releaseAll(cols)
				return nil, err
			}
			cols = append(cols, a...)
		}
		return cols, nil
	})
}

// export cuts the groups into batches of schema: keys, then what aggs
// returns for each range.
func (h *HashAggregator) export(batchRows int, schema *arrow.Schema,
	aggs func(from, to int) ([]arrow.Array, error)) ([]arrow.RecordBatch, error) {
	if h.released {
		return nil, errReleased
	}
	if batchRows < 1 {
		return nil, fmt.Errorf("%w: %d rows per batch", ErrInput, batchRows)
	}
	var out []arrow.RecordBatch
	groups := h.Groups()
	for from := 0; from < groups; {
		to := h.fit(from, min(groups, from+batchRows))
		cols := make([]arrow.Array, 0, schema.NumFields())
		for _, c := range h.cols {
			cols = append(cols, c.export(h.mem, from, to))
		}
		a, err := aggs(from, to)
		if err != nil {
			releaseAll(cols)
			for _, b := range out {
				b.Release()
			}
			return nil, err
		}
		cols = append(cols, a...)
		out = append(out, array.NewRecordBatch(schema, cols, int64(to-from)))
		releaseAll(cols)
		from = to
	}
	return out, nil
}

// varSized is a column whose groups carry string bytes.
type varSized interface{ varBytes(from, to int) int64 }

// fit shrinks [from, to) until every string column's bytes fit 32-bit
// offsets. One group always fits: its string came from one utf8 array.
func (h *HashAggregator) fit(from, to int) int {
	var sized []varSized
	for _, c := range h.cols {
		if v, ok := c.(varSized); ok {
			sized = append(sized, v)
		}
	}
	for _, s := range h.states {
		if v, ok := s.(varSized); ok {
			sized = append(sized, v)
		}
	}
	for _, v := range sized {
		for to > from+1 && v.varBytes(from, to) > math.MaxInt32 {
			to = from + (to-from)/2
		}
	}
	return to
}

func releaseAll(arrs []arrow.Array) {
	for _, a := range arrs {
		a.Release()
	}
}

// Merge folds in a batch Partial returned, from this aggregator or another
// one of the same keys, arguments and specs. Groups new to this aggregator
// come after its own in first-seen order. On error the aggregator is as it
// was before the call.
func (h *HashAggregator) Merge(rec arrow.RecordBatch) error {
	if h.released {
		return errReleased
	}
	schema := h.PartialSchema()
	if rec.NumCols() != int64(schema.NumFields()) {
		return fmt.Errorf("%w: partial batch of %d columns, want %d", ErrInput, rec.NumCols(), schema.NumFields())
	}
	for i, f := range schema.Fields() {
		if !arrow.TypeEqual(rec.Column(i).DataType(), f.Type) {
			return fmt.Errorf("%w: partial column %d is %v, want %v", ErrInput, i, rec.Column(i).DataType(), f.Type)
		}
	}
	cols := rec.Columns()
	keys := cols[:len(h.keyTypes)]
	partial := make([][]arrow.Array, len(h.states))
	for i := range h.states {
		partial[i] = cols[len(keys)+h.pstart[i] : len(keys)+h.pstart[i+1]]
	}
	return h.add(int(rec.NumRows()), keys, nil, partial)
}

// bindPartial prepares one input per partial column.
func (h *HashAggregator) bindPartial(partial [][]arrow.Array) error {
	k := 0
	for _, p := range partial {
		for _, a := range p {
			var err error
			if h.pbufs[k], err = bindInput(&h.acct, &h.pins[k], a, h.iota, h.pbufs[k]); err != nil {
				return err
			}
			k++
		}
	}
	return nil
}

// partialIns are the inputs of state i's partial columns.
func (h *HashAggregator) partialIns(i int) []input { return h.pins[h.pstart[i]:h.pstart[i+1]] }
