// Package cache is quiver's compressed columnar cache: named tables held in
// memory as sequences of compressed batches within a budget, scanned by
// projection and predicate, skipping batches whose statistics prove the
// predicate false.
//
// # Using it
//
//	c, _ := cache.New(cache.Options{Budget: 4 << 30})
//	info, err := c.Put(ctx, "lineitem", reader, cache.TableOptions{Codec: cache.Auto})
//	s, err := c.Scan(ctx, "lineitem", cache.ScanOptions{
//		Columns: []int{0, 4},
//		Filter:  cache.Between{Col: 0, Lo: cache.Int(100), Hi: cache.Int(200)},
//	})
//	defer s.Release()
//	for s.Next() { use(s.RecordBatch()) }
//	err = s.Err(); m := s.Metrics() // batches skipped and decoded, bytes
//
// Put reads an array.RecordReader to the end and encodes each batch once
// (on TableOptions.Concurrency goroutines): per column, encodings, then the
// codec, then a checksum, plus the statistics of stats.go and the
// column's distinct-count sketch (distinct.go). The table becomes
// visible only when every batch is stored; until then the bytes it holds
// count against the budget next to the table it replaces, and a put that
// would pass the budget fails with a *BudgetError before any of it is seen.
// A table is an immutable snapshot: a scan keeps reading the snapshot it
// started with whatever Put or Drop does meanwhile.
//
// Scan decodes only the selected columns' chunks of the batches CanSkip
// cannot rule out, on ScanOptions.Concurrency goroutines, and returns them in
// table order. ScanOptions.Rows filters rows too: comparisons of integer,
// temporal and decimal columns with constants, evaluated on each decoded
// batch before the other columns are decoded (rowfilter.go), so only the
// rows that pass are returned; a KeyFilter is such a test whose set of
// integers arrives while the scan runs (a join's build keys:
// rowfilter_keys.go). With no columns selected it returns row counts alone and
// never touches a chunk. A chunk that fails to decode fails the scan with a
// *ChunkError naming table, batch and column; the other columns of the batch
// still read.
//
// # Chunk format (version 1)
//
// A chunk is one column of one batch, held in memory only (one allocation
// per batch holds all its chunks). Integers in the header are unsigned
// LEB128 varints ("uv").
//
//	+---------+------+-------+------+-------+--------+--------------------+-----------+----------+
//	| version | form | codec | rows | nulls | nparts | part table         | payloads  | checksum |
//	|   u8=1  |  u8  |  u8   |  uv  |  uv   |   uv   | nparts × (u8 flags,| in order, | u32 LE   |
//	|         |      |       |      |       |        |  uv final, uv      | stored    |          |
//	|         |      |       |      |       |        |  inner, uv stored) | bytes each|          |
//	+---------+------+-------+------+-------+--------+--------------------+-----------+----------+
//
// codec is codec.Kind (0 none, 1 lz4, 2 zstd); the checksum is the low 32
// bits of XXH3-64 over every byte before it. Each part becomes one Arrow
// buffer of final bytes:
//
//	stored --codec--> inner --colenc--> final
//
// flags bit 2 (narrowed, decimal128 values only): every value fits in 64
// bits and the part stores those 64 bits (final/2 bytes, then colenc and
// the codec as for int64); decoding sign-extends them to 128 bits. TPC-H's
// decimal(15,2) prices then cost bit-packed deltas instead of 16 bytes.
//
// flags bit 0 (encoded): inner is a colenc buffer (delta, frame of
// reference or lengths, with its own versioned header, see package colenc)
// decoding to final bytes; else inner = final. Bit 1 (compressed): stored is
// the codec's output, decompressing to exactly inner bytes; else stored =
// inner (a part the codec would not shrink is kept raw). The forms:
//
//	form 1 fixed       parts: validity, values      booleans (values are a
//	                   bitmap), ints, floats, decimals, dates, times,
//	                   timestamps, durations, intervals, fixed-size binary
//	form 2 var-binary  parts: validity, offsets, data   utf8, binary and
//	                   their large variants; offsets start at 0
//	form 3 ipc         parts: (metadata, body) pairs of batch-layer Arrow
//	                   IPC messages, dictionaries first, then one record
//	                   batch of the one column; every other type
//
// The validity part is empty (final 0) when nulls is 0, and otherwise holds
// exactly ceil(rows/8) bytes with exactly nulls bits clear. A decoder checks
// the checksum, then every header field against the chunk's length and the
// decoded size Put recorded for the column, before it allocates; then the
// null count against the bitmap and each offset against the data, so that
// no arrow-go accessor can read out of bounds.
//
// # Encodings and codecs
//
// int32, int64, date, time, timestamp, duration, decimal32 and decimal64
// values (and decimal128 values narrowed to 64 bits) go through
// colenc.Choose, which picks delta or frame of reference when that is at
// least 25% smaller than plain; null slots are first filled with the
// previous valid value (their content is undefined in Arrow, and a builder's
// zeros would break a run of equal deltas). String and binary offsets are
// stored as lengths. A dictionary-encoded column is kept as dictionaries or
// decoded to its values, whichever makes the first batches smaller under
// lz4; the choice is made once per table, so the table has one schema, and
// TableInfo reports it.
//
// A table's codec is none, lz4, zstd:N or Auto. Auto picks a codec per column
// from the first batches (at most 4 batches, 32768 rows, 16 MiB): the sizes under none, lz4
// and zstd:3 are measured and the fastest-decoding one within reach of the
// smallest is taken (none when compression saves under 10%, lz4 when within
// 25% of the smallest, else zstd:3; see decide.go). Every chunk records its
// codec, so chunks of any setting read back whatever the setting is later.
//
// # Footprint
//
// TableInfo and ColumnInfo give, exactly, the chunk bytes held (what the
// budget counts) and the Arrow buffer bytes a full scan produces (the
// planner's table size, the same under every codec), and each column's
// estimated distinct values. Statistics and the snapshot's small
// bookkeeping, about 100 bytes per column per batch, and the sketches, at
// most 4 KiB per column per table, are outside both.
//
// # Restored tables
//
// A durable store (package store) hands a table it wrote back with
// Restore after a restart: an Image of the table's decisions, statistics
// and sizes, each batch's chunks behind a loader. A batch is read on its
// first scan (count(*) and batches its statistics skip are never read),
// and its chunks then count against the budget until it needs room for
// another read or a Put, when the batches read longest ago are dropped
// (evict.go): the budget is a cache over the data directory, and a
// restored table may be larger than it. PreparePut and PrepareAppend
// encode a change without making it visible, so that the store writes it
// before Commit; Change.Sources then tells where the new batches can be
// read again, and they give way like restored ones. Batches put without
// sources are never dropped: they exist nowhere else. PrepareCompact
// (compact.go) re-encodes a run of small batches into batches of a target
// size, the same rows, for the store to write; its Commit keeps appends
// committed meanwhile after them (tables of union columns cannot be
// compacted: arrow-go does not concatenate unions).
//
// # Small appends
//
// An Append with TableOptions.Coalesce of fewer rows than it re-encodes
// the table's trailing small batches with the new rows as one batch
// (coalesce.go: the trailing batches grow like a binary counter, so n
// one-row appends leave O(log n) small batches and encode each row
// O(log n) times), replacing them atomically; Change.Replaced tells a
// store how many.
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
// Stats gives a planner the whole table's: per column rows, nulls, bounds
// merged over the batches, and the estimated number of distinct values
// (a HyperLogLog sketch per column, package hll, p = 12: 1.6% standard
// error; distinct.go says how values hash, equal values equal in every
// type; package hll why it is our own).
//
// Rows and Nulls are exact. Bounds exist for integers, floats, decimals,
// strings and binary (plain, large, view, fixed-size), dates, times,
// timestamps, durations and booleans; all-null or empty columns have none,
// nor do other types (lists, structs, extensions, run-end encoded…).
// Dictionary arrays count logical NULLs exactly (a NULL index or an index to a
// NULL dictionary entry) but take bounds over the whole dictionary: a superset
// of the selected values, which only makes pruning more conservative.
package cache
