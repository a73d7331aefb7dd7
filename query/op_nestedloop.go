package query

import (
	"fmt"
)

// A join without keys is a nested-loop join: the same operator, where
// every probe row's range of build rows is all of them, [0, rows), and
// the residual (if any) decides which pairs join. The planner makes one
// for CROSS JOIN and for conditions without an equality between the
// sides. Its cost is the product of the sides, so it examines at most
// Options.MaxJoinPairs pairs: a query past that fails with ErrInvalid
// before the probe batch that would pass it is joined, naming the limit
// (a limit on what the query asks for, like MaxExprNodes, rather than on
// memory, which the pairs, streamed in batches, barely use).

// countPairs counts the pairs a nested-loop join is about to examine for
// n probe rows, failing past Options.MaxJoinPairs.
func (o *hashJoinOp) countPairs(n int) error {
	add := int64(n) * int64(o.b.rows)
	total := o.st.pairs.Add(add)
	if lim := o.rt.maxJoinPairs; lim > 0 && total > lim {
		return &Error{Kind: ErrInvalid, Msg: fmt.Sprintf("%s would examine more than %d pairs of rows, the limit (Options.MaxJoinPairs; %d build rows, %d probe rows so far): raise it, or join on an equality",
			o.n.title(), lim, o.b.rows, o.st.probeRows.Load())}
	}
	return nil
}
