// Package extsort sorts any number of Arrow record batches within a memory
// limit: rows that do not fit are sorted into runs on disk (spill files of
// package spill) and merged back. It is what ORDER BY runs on.
//
//	s, err := extsort.New(schema, extsort.Config{
//		Keys:        []extsort.Key{{Col: 2, Desc: true}, {Col: 0, NullsFirst: true}},
//		MemoryLimit: 200 << 20,
//		Spill:       manager, // a *spill.Manager; nil: fail with ErrMemory instead
//	})
//	defer s.Close()
//	for ... { err = s.Add(ctx, rec) }
//	r, err := s.Finish(ctx) // an array.RecordReader of the sorted rows
//	defer r.Release()
//
// The sort is stable: rows with equal keys come out in the order they went
// in, across runs too. Keys may be of every type package sortkey orders;
// the other columns may be of any type.
//
// # How it works
//
//	Add ──► buffer (batches as they came) ──full──► sort, spill the oldest third
//	                                                            │
//	Finish ─► rows still buffered ─► kept in memory             ▼
//	                 │                                     run 0, run 1, ... (spill files,
//	                 ▼                                     sorted, BatchRows-row batches)
//	        ┌─────────────── final merge (loser tree) ◄──────────┘
//	        ▼                     (merge passes first when runs > fan-in)
//	   sorted batches
//
// Rows are sorted by normalized keys (package sortkey): byte strings whose
// bytes.Compare order is the ORDER BY order, so sorting and merging compare
// memory, not typed values. Keys are sort scratch, not held: the buffer
// holds the batches as they came, each row accounted its bytes and a third
// of what its key and sort item will take (a sort takes a third of the
// buffer at a time, so the thirds pool into the scratch of the rows being
// sorted). A string key would otherwise cost as much again as the string.
// Memory is accounted against the Budget, MemoryLimit bytes by default.
//
// When the next batch does not fit, the oldest third of the buffer has its
// keys encoded and is sorted — an MSD radix sort
// of 16-byte items on 8 key bytes at a time, see sortkey.Sorter — and
// written as one run: each column is interleaved in sorted order into
// batches, which a goroutine encodes, compresses and writes while the next
// one is interleaved (Interleave). Spilling a third of the buffer, not all of it, keeps the
// buffer full: whatever is buffered at Finish never goes to disk (see
// spillParts for the measurements behind a third). Run
// batches have BatchRows rows, fewer when the memory limit would otherwise
// leave a merge room for under 32 runs.
//
// At Finish, with nothing spilled, the buffer is sorted and read from
// memory (in parts merged in memory when the scratch of one sort of it all
// does not fit). Otherwise the buffered rows become the last runs of the
// merge, read from memory; only if the merge's read buffers (a few batches
// per run) do not fit beside them are the oldest of them spilled too. The runs
// are merged with a loser tree over their head keys, each run read a batch
// ahead on a goroutine of its own; a run that keeps winning is copied in
// stretches found by binary search (galloping), so already ordered input
// merges at memcpy speed. When there are more runs than MaxOpenFiles, or
// than the memory has read buffers for, neighbouring runs are first merged
// into longer ones, a pass dividing their number by the fan-in.
//
// Ties go to the earlier run, and runs are made from the oldest batches
// first, so the order of equal keys is the input order.
//
// # Merging runs of your own
//
// The merge and the row interleave serve other operators too: GROUP BY's
// spill (package agg) merges its runs of partial aggregates with them.
// NewMerge takes any sorted Sources (spill file readers, batches in
// memory) and the Keys they are sorted by; Next hands out batches in key
// order, with equal keys split as they fall (TiesSplit, a sort), kept
// together in one batch so the caller can combine them (TiesTogether), or
// handed out once (TiesFirst). Head, Key, GroupKey and Skip walk it row by
// row. Interleave copies chosen rows of many batches into one.
//
//	m, err := extsort.NewMerge(extsort.MergeConfig{Schema: s, Keys: keys, GroupKeys: len(keys)}, srcs, names)
//	defer m.Close()
//	for rec, err := m.Next(ctx, 4096, extsort.TiesTogether, nil); rec != nil; ... {
//		combine(rec) // every group whole
//	}
//
// # Parallel sorts
//
// Several sorters, one per worker, each with a Budget of its share of the
// memory, sort what their worker adds; each ends with FinishRuns (its
// buffer sorted on the worker's goroutine, spilled or kept as Finish
// would), and Gather merges all their runs in one Merge: one merge of
// every row, not a merge of merged streams. Ties between sorters are not
// in input order (gather.go).
//
// # LIMIT
//
// With Config.Limit k, the sort is a top-k: when the buffer holds k rows
// and more, it is sorted and cut back to its first k, and the k-th key
// becomes a threshold that later rows must beat to be kept at all (a tie
// loses: the held row came first). It holds O(k) rows and does not spill
// unless k rows do not fit in memory; then its runs hold at most k rows
// each, and the merge stops after k.
//
// # Memory, files and errors
//
// The accounting is exact for what the sort holds (buffered batches, sort
// items, merge read buffers) and estimated for what it holds briefly: a
// sort's keys (from the key bytes per row seen so far) and two output
// batches, reserved once the input's row size is known. A single batch
// larger than all the memory left is accepted and spilled at once. A limit
// that does not hold two runs' read buffers (a few batches each) is passed
// rather than failing the sort.
//
// Every spill file is removed when the reader Finish returned is released
// (or reaches its end), when Finish fails, and on Close, whatever state the
// sorter is in: after an error, after cancellation (checked once per batch
// added, written and merged), after a spill quota error (spill.ErrQuota
// comes through wrapped).
package extsort
