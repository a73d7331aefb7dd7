// Package agg is quiver's hash aggregation: GROUP BY with count(*),
// count(x), count(DISTINCT x), sum, min, max and avg, the variance
// family, arg_min/arg_max, first/last, string_agg, the exact quantiles
// and approx_count_distinct over Arrow arrays of the engine's types
// (boolean, int64, float64, decimal128(p,s), utf8, date32, timestamp,
// time64), with SQL semantics. Any aggregate takes a filter (Spec.Filter:
// SQL's FILTER (WHERE …)), a boolean argument whose TRUE rows alone it
// sees (filter.go).
//
// string_agg and the quantiles are Serial: they depend on the order rows
// arrive in or keep every value, and have no partial state, so an
// aggregator holding one cannot Partial, Merge or spill (NewSpiller
// refuses it); the caller feeds one aggregator, in order. first and last
// take the rows' positions as an argument (Spec.By) and merge and spill.
//
// # Using it
//
//	h, err := agg.NewHashAggregator(
//		[]arrow.DataType{utf8, utf8},                 // GROUP BY l_returnflag, l_linestatus
//		[]arrow.DataType{decimal(15,2), decimal(15,2)},
//		[]agg.Spec{{Func: agg.Sum, Arg: 0}, {Func: agg.Avg, Arg: 1}, {Func: agg.CountStar}},
//		agg.Options{Mem: mem, MemoryLimit: 256 << 20})
//	defer h.Release()
//	for each batch { err = h.Add(keyColumns, argColumns) }
//	recs, err := h.Result(8192) // keys, then one column per spec, first-seen group order
//
// The hash table alone serves a hash join's build side: a KeyTable
// (keytable.go) numbers the distinct key tuples it is given, and Probers,
// one per goroutine, look tuples up without inserting, all at once
// (lookup.go), reading the table's keys through views of their own.
//
//	kt, _ := agg.NewKeyTable([]arrow.DataType{int64})
//	err = kt.Insert(keys, rows, ids)   // ids[r] for each r in rows
//	p := kt.NewProber(); defer p.Release()
//	err = p.Lookup(keys, rows, ids)    // ids[r], or agg.NoKey
//
// A KeyTable of one int64 or date32 key whose values lie densely in their
// range becomes a dense index (dense.go): an array over the range maps a
// value to its id, so a lookup is a subtraction, a compare and a load.
// UseDense makes it one before the inserts, when the caller knows the
// range; Densify after Seal, when the distinct keys turn out dense.
//
// # Semantics
//
// NULL keys form their own group. count(x) counts non-NULL values;
// sum, min, max and avg skip NULLs and are NULL over none. count(DISTINCT
// x) counts distinct non-NULL values. -0.0 and 0.0 are one key and one
// distinct value (the key reads back as 0.0), every NaN is one NaN, and
// min/max order NaN above every number, as DuckDB and PostgreSQL do.
// Strings order by bytes. Result types are ResultType's: sum(int64) is
// int64 and fails with ErrOverflow (naming the aggregate) if a group's
// final sum does not fit, sum(decimal(p,s)) is decimal(38,s), avg is
// float64. Without keys there is one group even over no rows.
//
// # Design
//
// Everything runs one column at a time over a batch; nothing is called
// through an interface or allocated per row.
//
//  1. Hash (hash.go). Every row's hash starts at a seed drawn at random
//     per aggregator (so crafted keys cannot force collisions); each key
//     column folds its values in with a 64×64→128-bit multiply (wyhash's
//     mum), strings of up to 8 bytes as one little-endian word and longer
//     ones through XXH3. Floats are hashed and stored as canonical bits.
//  2. Find or insert (table.go). Open addressing with linear probing over
//     64-bit slots: a 32-bit tag from the hash's high half and the group
//     id. A pass walks every row to its first tag match (a candidate) or
//     empty slot (a new group, claimed at once so later rows of the batch
//     find it); the new groups' keys are appended column by column; the
//     candidates are compared column by column; the few rows whose tag
//     matched another key go around again. Group ids are dense, in
//     first-seen order, in a []uint32 per batch.
//  3. Keys (keys.go, strkeys.go) are stored column-wise in Arrow's layout:
//     a values slice and a validity bitmap; strings as offsets into one
//     byte arena plus each key's first 8 bytes, so most comparisons of
//     short strings read no bytes. Result copies them out with memcpy.
//  4. Aggregates (count.go, sum.go, sumdec.go, minmax.go, minmaxstr.go,
//     distinct.go) keep one slice of small structs per aggregate indexed by
//     group id, and each batch runs one tight loop per aggregate over
//     (group id, value), with a dense loop when the column has no NULLs.
//     Sums are exact whatever the batch order: int64 in 128 bits, decimals
//     of precision ≤ 18 in 128 and wider ones in 192, checked once at
//     Result. sum(x) and avg(x) share one state. count(DISTINCT x) inserts
//     (group id, x) pairs into a second table of the same kind. String
//     min/max keep their values in an arena compacted when garbage
//     outweighs live bytes.
//
// Why this shape: loops over one column keep each loop small and its
// branches predictable, let keys of any types and number share one table,
// and leave no per-row dispatch on type or aggregate; dense group ids make
// every state a flat slice that is cheap to grow, truncate and export.
// BenchmarkGroupByInt64 and BenchmarkQ1 measure it against a hand-written
// map[key]*state filled row by row, in the same run.
//
// # Memory and spilling
//
// MemoryUsage is the sum of the capacities of every slice the aggregator
// holds (table, hashes, keys, states, scratch), charged when a slice
// grows, not estimated per group. Options.MemoryLimit is checked before
// each growth. Add runs in two phases, first everything that allocates
// (grouping, growing the states, inserting distinct pairs, reserving
// string bytes), then the updates, which cannot fail; a failed first phase
// is undone, so an Add (or Merge) that fails with ErrMemoryLimit leaves
// the aggregator as it was and the caller can spill and retry the batch.
//
// The state is ready to spill: Partial exports the groups with partial
// aggregates (PartialSchema: keys, then per state its sum and count, min
// or max, count, or list of distinct values) as ordinary Arrow record
// batches, Merge folds such batches into any aggregator of the same shape,
// Reset empties the aggregator keeping its memory, and Shrink empties it
// giving the memory back.
//
// # Spilling (spill*.go)
//
// A Spiller takes an aggregation past memory. The caller Adds until the
// aggregator's MemoryLimit refuses a batch (the aggregator is as it was),
// Spills the aggregator and Adds the batch again; at the end Finish
// returns a reader of the final groups.
//
//	sp, _ := agg.NewSpiller(h, agg.SpillConfig{Manager: m, Budget: b})
//	defer sp.Close()                         // removes every run file
//	if err := h.Add(keys, args); errors.Is(err, agg.ErrMemoryLimit) {
//		err = sp.Spill(ctx, h)                // a sorted run; h emptied
//		err = h.Add(keys, args)
//	}
//	r, err := sp.Finish(ctx, h)              // merges; r yields ResultSchema
//
// Spill exports the groups (Partial's columns of every state but
// count(DISTINCT)), normalizes their keys (package sortkey: one byte
// string per row whose byte order is the keys' order, NULL last),
// sorts them and writes them in that order (copied with
// extsort.Interleave) through the spill package.
// A count(DISTINCT x) state is the set of distinct (group, x) pairs;
// they go to a file of their own as (keys, x) rows sorted by the group's
// rank in the run and then x, so that a group's values stay on disk, not
// in one list. One run is one file of partial states and one per
// count(DISTINCT):
//
//	partial states, sorted by key, each key once:
//	┌──────┬─────┬──────┬───────────────────────────────────────────┐
//	│ key0 │ ... │ keyK │ state columns (PartialSchema's, without    │
//	│      │     │      │ the count(DISTINCT) lists): count int64,   │
//	│      │     │      │ sum decimal(38|76,s)|float64 + count int64,│
//	│      │     │      │ min/max value                              │
//	└──────┴─────┴──────┴───────────────────────────────────────────┘
//	pairs of count(DISTINCT x) #d, sorted by (key, x), each pair once:
//	┌──────┬─────┬──────┬───┐
//	│ key0 │ ... │ keyK │ x │   x never NULL
//	└──────┴─────┴──────┴───┘
//
// Worked example: GROUP BY k with count(*) and count(DISTINCT v) over
// (k, v) = (2, a), (1, b), (2, a), (2, c), (NULL, a) spills the partial
// states [(1, 1), (2, 3), (NULL, 1)] and the pairs [(1, b), (2, a),
// (2, c), (NULL, a)].
//
// Finish keeps the last table's groups in memory, sorted the same way,
// when the budget has room for them; merges the oldest runs in passes
// (each writing one run) until one merge can read them all (FanIn, and
// a batch of each file within three quarters of the budget); then
// merges the rest as the reader is read. The merges are extsort's
// (extsort.Merge: a loser tree over each run's head key, rows copied out
// with extsort.Interleave); the Spiller supplies the key order (the group
// keys, then x for pairs) and the combine of equal keys. The main merge
// hands out rows in key order, a few hundred at a time and never splitting
// a key (extsort.TiesTogether), in batches that one more aggregator (of
// the specs without count(DISTINCT)) Merges: equal keys combine by the
// states' own merge (counts and sums add, min and max compare), so each
// group's final value is the one an aggregator that saw all rows
// computes. Each pair merge walks its pairs in (key, x) order beside the
// main one and counts, per group, the pairs unlike the previous: the
// distinct count, read from disk without holding the values. A merge pass
// writes the combined partial states and the pairs each once
// (extsort.TiesFirst), so runs shrink as they merge.
// Output comes in key order, in batches of ResultRows groups.
//
// What the Spiller holds beside the tables (the sorted copy of a table
// being spilled, the merge's batches and keys, the kept groups) is
// charged to SpillConfig.Budget. Spill and Finish check the context
// between batches; a spill that fails (ErrQuota from the spill package,
// cancellation) leaves the aggregator as it was and nothing on disk;
// Close removes whatever is left. Spill files are checksummed by the
// spill package: a damaged one fails the merge, never answers wrong.
//
// The arrays Result and Partial return come from Options.Mem; the table
// and states live on the Go heap.
package agg
