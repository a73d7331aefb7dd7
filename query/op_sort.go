package query

// sortKey orders by input column col. ORDER BY runs on the external sort
// (op_extsort.go, package extsort): in memory while it fits the query's
// memory, spilling sorted runs and merging them when it does not, and as
// a bounded top-k under LIMIT.
type sortKey struct {
	col        int
	desc       bool
	nullsFirst bool
}

// outputBatchRows is the rows of the batches sorts and aggregates emit.
const outputBatchRows = 8192
