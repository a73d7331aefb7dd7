// Package cache is quiver's compressed columnar cache (issue 3): named tables
// held in memory as sequences of compressed batches within a budget, scanned
// by projection and predicate, skipping batches whose statistics prove the
// predicate false.
//
// This file set is the first layer, self-contained and storage-free:
// per-column batch statistics ([ColumnStats], [ComputeStats]) and the
// predicate tree with statistics-based pruning ([Predicate], [CanSkip]).
// Statistics are computed once per batch at put time, by a tight loop per
// physical type.
//
// # Values and order
//
// A [Value] is a kind tag plus one field: bool, int64 (signed integers,
// dates, times, timestamps, durations, all in the column's own unit), uint64,
// float64 (float16 and float32 widen exactly), bytes (strings and binary of
// every layout, compared in byte order), and decimal (the unscaled integer
// at the column's scale, stored as 32 big-endian bytes with the sign bit
// flipped so byte order is numeric order for decimal32 through decimal256).
// The planner coerces literals to the column's kind, unit and scale; a
// literal of another kind never prunes.
//
// Statistics use a total order ([Compare]). For floats it is
//
//	-Inf < … < -1 < … < -0.0 < +0.0 < … < +Inf < NaN
//
// with every NaN (either sign, any payload) one value, the largest, so Min and
// Max are well defined when NaN and -0.0 are present: a batch {NaN, -0.0, 1}
// has Min -0.0 and Max NaN.
//
// Predicates are evaluated in the same order with one coarsening, that of
// Postgres and DuckDB: NaN is equal to itself and greater than every other
// value (so "x > 1" selects NaN and "x = NaN" selects it), and -0.0 = +0.0.
// Bounds in the total order remain bounds in this coarser order, so pruning
// compares statistics with compareSQL and stays sound.
//
// # Three-valued logic and pruning
//
// Each row evaluates a predicate to TRUE, FALSE or UNKNOWN (SQL); a row is
// selected only when TRUE. A comparison, IN, BETWEEN or prefix test on a NULL
// row, or against a NULL literal, is UNKNOWN; IS [NOT] NULL never is. AND is
// the minimum and OR the maximum under FALSE < UNKNOWN < TRUE; NOT swaps TRUE
// and FALSE and keeps UNKNOWN.
//
// NOT is why pruning cannot track "never TRUE" alone: NOT p is TRUE exactly
// where p is FALSE, and a row where p is UNKNOWN (a NULL) selects neither p
// nor NOT p. So every node reports two facts proved from the statistics,
// neverTrue and neverFalse, and the rules are
//
//	Cmp x op v     neverTrue:  v NULL, or all rows NULL, or bounds exclude it:
//	                 =  v < Min or v > Max       <> Min = Max = v
//	                 <  Min >= v    <= Min > v    >  Max <= v    >= Max < v
//	               neverFalse: neverTrue of x negate(op) v (same NULL cases)
//	AND            neverTrue: any operand's;  neverFalse: every operand's
//	OR             neverTrue: every operand's; neverFalse: any operand's
//	NOT p          swaps p's two facts
//	IN (v…)        as OR of x = v (the empty list is FALSE)
//	BETWEEN a, b   as x >= a AND x <= b; also never TRUE when a > b
//	IS NULL        neverTrue: Nulls = 0;     neverFalse: Nulls = Rows
//	IS NOT NULL    neverTrue: Nulls = Rows;  neverFalse: Nulls = 0
//	prefix p       the values starting with p are [p, succ(p)), succ(p) being
//	               p without trailing 0xff bytes and its last byte plus one:
//	               neverTrue: Max < p or Min >= succ(p);
//	               neverFalse: Min and Max both start with p
//
// and [CanSkip] is neverTrue of the root (or a batch of zero rows). For
// example NOT (x < 5) on a batch with Max 3 and some NULLs: x < 5 is TRUE or
// UNKNOWN on every row, never FALSE, so NOT (x < 5) is never TRUE and the
// batch is skipped; with Max 7 it is not.
//
// # Statistics
//
// Rows and Nulls are exact. Bounds exist for integers, floats, decimals,
// strings and binary (plain, large, view, fixed-size), dates, times,
// timestamps, durations and booleans; all-null or empty columns have none,
// nor do other types (lists, structs, extensions, run-end encoded…).
// Dictionary arrays count logical NULLs exactly (a NULL index or an index to a
// NULL dictionary entry) but take bounds over the whole dictionary: a superset
// of the selected values, which only makes pruning more conservative.
package cache
