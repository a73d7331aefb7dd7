package agg

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// state is the per-group state of one aggregate (or of several: sum(x) and
// avg(x) share one, as do repeats of an aggregate), held as one slice indexed
// by group id (structs of a few words, so one group's update touches one
// cache line). Every method is one loop over a batch.
//
// Add runs in two phases so that a failed Add leaves the aggregator as it
// was: first everything that allocates (resize, prepare), which truncate
// undoes, then update, which cannot fail.
type state interface {
	// resize extends the state to n groups, initialising the new ones.
	resize(n int) error
	// prepare does the allocating part of an update (count(DISTINCT)
	// inserts its pairs, string min/max reserve arena bytes).
	prepare(gids []uint32, in *input) error
	// update folds rows in.rows of in into groups gids[row].
	update(gids []uint32, in *input)
	// truncate drops groups from n on and undoes a prepare not followed by
	// update. n is 0 or the group count before the current batch.
	truncate(n int)

	// partialTypes are the types of the columns partial exports.
	partialTypes() []arrow.DataType
	// partial exports groups [from, to) as mergeable columns.
	partial(mem memory.Allocator, from, to int) ([]arrow.Array, error)
	// prepareMerge and merge are prepare and update for partial columns
	// (ins are the partial columns; row r goes to group gids[r]).
	prepareMerge(gids []uint32, ins []input) error
	merge(gids []uint32, ins []input)

	// result computes the final values of groups [from, to) for f (sum
	// states serve Sum and Avg); name is the aggregate's, for errors.
	result(mem memory.Allocator, f Func, name string, from, to int) (arrow.Array, error)
	release()
}

// input is one argument column of a batch with its non-NULL rows.
type input struct {
	arr   arrow.Array
	rows  []uint32      // rows with a value, ascending
	n     int           // rows in the batch
	dense bool          // no NULLs: rows is 0..n-1, and loops may range over values
	order []arrow.Array // string_agg's ORDER BY columns (filter.go)
}

// bindInput sets in to arr, listing its non-NULL rows in in.rows (from iota
// when there are none NULL; otherwise into buf, which it returns grown).
func bindInput(a *account, in *input, arr arrow.Array, iota, buf []uint32) ([]uint32, error) {
	in.arr, in.n, in.dense = arr, arr.Len(), arr.NullN() == 0
	if in.dense {
		in.rows = iota[:in.n]
		return buf, nil
	}
	buf, err := scratch(a, buf, in.n)
	if err != nil {
		return buf, err
	}
	rows := buf[:0]
	if arr.NullN() < in.n {
		bm, off := arr.NullBitmapBytes(), arr.Data().Offset()
		for r := range in.n {
			if bitutil.BitIsSet(bm, off+r) {
				rows = append(rows, uint32(r))
			}
		}
	}
	in.rows = rows
	return buf, nil
}

// noPrepare is embedded by states whose update does not allocate.
type noPrepare struct{}

func (noPrepare) prepare([]uint32, *input) error       { return nil }
func (noPrepare) prepareMerge([]uint32, []input) error { return nil }

// resizeStates extends s to n groups, setting the new ones to init.
func resizeStates[T any](a *account, s []T, n int, init T) ([]T, error) {
	old := len(s)
	if n <= old {
		return s, nil
	}
	s, err := extend(a, s, n-old)
	if err != nil {
		return s, err
	}
	for i := old; i < n; i++ {
		s[i] = init
	}
	return s, nil
}
