package cache

import (
	"cmp"
	"context"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/quiverdb/quiver/internal/take"
)

// withRows is the pruning predicate of a scan with a row filter: the
// filter's conjuncts prove batches empty as Filter's do.
func withRows(filter Predicate, rows []Predicate) Predicate {
	all := make(And, 0, len(rows)+1)
	if filter != nil {
		all = append(all, filter)
	}
	return append(all, rows...)
}

// decodeFiltered decodes entry i under the row filter (see rowfilter.go):
// the filter's columns first, then the selected columns for the rows
// that pass.
func (s *Scanner) decodeFiltered(dec *chunkDecoder, i int) decoded {
	e := s.t.entries[i]
	chunks, err := e.chunkBytes()
	if err != nil {
		return decoded{err: s.loadError(i, err)}
	}
	var d decoded
	cols := map[int]*filterCol{} // table column → decoded
	defer func() {
		for _, c := range cols {
			c.release()
		}
	}()
	load := func(col int) (*filterCol, error) {
		if c, ok := cols[col]; ok {
			return c, nil
		}
		f := s.t.schema.Field(col)
		c := &filterCol{}
		var err error
		c.narrow, c.isNarrow, err = dec.narrow(f.Type, chunks[col], e.decoded[col], dec.narrowBuf(len(cols)))
		if err == nil && !c.isNarrow {
			c.arr, err = dec.decode(f.Type, chunks[col], e.decoded[col])
		}
		if err != nil {
			return nil, &ChunkError{Table: s.t.name, Batch: i, Column: f.Name, Err: err}
		}
		if c.isNarrow {
			dec.keepNarrowBuf(len(cols), c.narrow.vals)
		}
		cols[col] = c
		d.compressed += int64(len(chunks[col]))
		d.size += e.decoded[col]
		return c, nil
	}

	n := int(e.rows)
	todo, all := s.testsFor(e), true
	for _, t := range todo {
		c, err := load(t.column())
		if err != nil {
			return decoded{err: err}
		}
		if all {
			dec.sel = resizeDiscarding32(dec.sel, n)
		}
		dec.sel = t.keep(c, dec.sel, all, n)
		all = false
		if len(dec.sel) == 0 {
			d.filtered = e.rows
			return d
		}
	}
	kept := n
	if !all {
		kept = len(dec.sel)
	}
	keepAll := kept == n
	d.filtered = int64(n - kept)

	out := make([]arrow.Array, 0, len(s.cols))
	defer func() {
		for _, a := range out {
			a.Release()
		}
	}()
	few := float64(kept) <= rowsShare*float64(n) // chunk_rows.go
	for _, col := range s.cols {
		if _, loaded := cols[col]; few && !loaded {
			f := s.t.schema.Field(col)
			a, ok, err := dec.decodeRows(f.Type, chunks[col], e.decoded[col], dec.sel)
			if err != nil {
				return decoded{err: &ChunkError{Table: s.t.name, Batch: i, Column: f.Name, Err: err}}
			}
			if ok {
				out = append(out, a)
				d.compressed += int64(len(chunks[col]))
				d.size += int64(a.Data().Buffers()[1].Len())
				continue
			}
		}
		c, err := load(col)
		if err != nil {
			return decoded{err: err}
		}
		var a arrow.Array
		switch {
		case c.isNarrow:
			a = c.narrow.widen(s.mem, s.t.schema.Field(col).Type, dec.sel, keepAll)
		case keepAll:
			a = c.arr
			a.Retain()
		default:
			if a, err = take.Array(context.Background(), s.mem, c.arr, dec.sel); err != nil {
				return decoded{err: &ChunkError{Table: s.t.name, Batch: i, Column: s.t.schema.Field(col).Name, Err: err}}
			}
		}
		out = append(out, a)
	}
	d.rec = array.NewRecordBatch(s.schema, out, int64(kept))
	return d
}

// filterCol is a column decoded by a filtered scan: as an array, or as
// the 64-bit values of a narrowed decimal128 (widened for the rows kept).
type filterCol struct {
	arr      arrow.Array
	narrow   narrowCol
	isNarrow bool
}

func (c *filterCol) release() {
	if c.arr != nil {
		c.arr.Release()
	}
	c.narrow.release()
}

// testsFor returns the tests to run on entry e, cheapest per row dropped
// first (a test's cost per row over the share of rows it drops, the
// share estimated from e's statistics), without those its bounds prove
// TRUE on every row. TPC-H Q12's l_receiptdate range (an integer compare
// dropping six rows in seven) so runs before its l_shipmode IN ('MAIL',
// 'SHIP') (string compares dropping five in seven), which then reads a
// seventh of the rows.
func (s *Scanner) testsFor(e *entry) []rowTest {
	type est struct {
		t    rowTest
		rank float64
	}
	ests := make([]est, 0, len(s.tests))
	for _, t := range s.tests {
		share, all := t.estimate(e.stats[t.column()])
		if !all {
			ests = append(ests, est{t, testCost(t) / max(1-share, 0.01)})
		}
	}
	slices.SortStableFunc(ests, func(a, b est) int { return cmp.Compare(a.rank, b.rank) })
	out := make([]rowTest, len(ests))
	for i, x := range ests {
		out[i] = x.t
	}
	return out
}

// testCost is a row test's relative cost per row, as measured on TPC-H's
// lineitem (roughly, from CPU profiles): an integer range or set 1, a runtime key filter 2 (a bitmap
// or Bloom filter probe), a string comparison 4.
func testCost(t rowTest) float64 {
	switch t.(type) {
	case rowBytes:
		return 4
	case keyTest:
		return 2
	}
	return 1
}

// resizeDiscarding32 is resizeDiscarding for int32s.
func resizeDiscarding32(b []int32, n int) []int32 {
	if cap(b) < n {
		return make([]int32, n)
	}
	return b[:n]
}
