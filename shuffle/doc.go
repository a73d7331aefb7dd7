// Package shuffle holds what a shuffle is made of, apart from the
// operators that run one: the map statuses (how big each block of each
// map task's output is) that the planner decides from, the adaptive
// decisions taken from them, and the map output files reducers read.
// It follows Spark's sort-based shuffle and MapOutputTracker, whose
// numbers are in ../shared/reference/anchors.md §4 of the project notes.
//
// # Map statuses
//
// A map task partitions its output into R blocks, one per reduce
// partition, and reports a MapStatus: its location (a worker's address,
// an output file), its id, and every block's size, summarized.
//
//   - Up to 2,000 partitions (StatusConfig.MinPartitionsToHighlyCompress),
//     compressed: one byte per block, b = ceil(log_1.1(size)) capped at
//     255 (Spark's compressSize), read back as floor(1.1^b): 0 only for an
//     empty block, never below the size, at most 10% above it (2 → 8,
//     10 → 25, 10^6 → 145, 10^9 → 218).
//   - Above, highly compressed: a roaring bitmap of the empty blocks, a
//     second one of the blocks recorded to within 10% with their size
//     bytes in block order (SPARK-48290's sorted arrays, as a bitmap: a
//     block's byte is at its rank), and one average for all other blocks.
//
// # Skew is never averaged away
//
// Spark records a block accurately only when it is at least
// spark.shuffle.accurateBlockThreshold (100 MiB), or, when
// accurateBlockSkewedFactor is set, at least min(100 MiB, max(median ×
// factor, the 100th largest size)). Everything else is the average of
// the non-empty blocks, so 20 blocks of 50 MiB among 10,000 of 10 KiB read
// as 115 KB each, and a partition that is 50 MiB in every map task is
// invisible to skew detection (SPARK-48290; TestSkewNotAveragedAway).
//
// Here both of Spark's rules apply (the second when StatusConfig.SkewFactor
// is set), and one more that needs no configuration: of the non-empty
// blocks below the threshold, the average covers the largest set of the
// smallest ones whose biggest is at most AverageBound (5, Spark's
// skew-join factor) × their mean, and every block above it is recorded to
// within 10%. So no block is ever reported as less than a fifth of its
// size, whatever the threshold and however many blocks are skewed:
// Spark caps what its skew rule records at maxAccurateSkewedBlockNumber
// (100), which is what lets the 101st skewed block hide. The set is found
// by passes over the sizes, each dropping the blocks above 5 × the mean
// of those left (the mean only falls, so the passes stop at the answer;
// one or two on real distributions, a sort after 32), not by a sort: on
// Spark's HighlyCompressedMapStatusBenchmark "skewed" sizes (every 500th
// block up to 512 MiB) a status of 2,048 / 10,000 / 50,000 partitions
// builds in 8 / 34 / 175 µs against 7 / 26 / 126 µs for Spark's rule
// alone on this machine, and records all 5 / 20 / 100 skewed blocks where
// the 100 MiB threshold records 4 / 16 / 74 (BenchmarkNewMapStatusHighly).
// A recorded block costs a bitmap bit and its size byte, so the worst
// case — every block recorded — is the size of the compressed form.
//
// # Serialized statuses
//
// ShuffleStatuses (Spark's MapOutputTracker for one shuffle) serializes
// all its statuses in one blob, built once and kept until a status
// changes. AppendStatuses writes it:
//
//	┌─────────┬───────┬────────────┬──────────────────────────┬──────────────┐
//	│ version │ codec │ uvarint:   │ uvarint S, then S ×      │ S frames,    │
//	│ u8 = 1  │ u8    │ body length│ (uvarint decoded length, │ one after    │
//	│         │       │ (decoded)  │  uvarint frame length)   │ the other    │
//	└─────────┴───────┴────────────┴──────────────────────────┴──────────────┘
//
// The body is cut into segments of at most 1 MiB, each compressed on its
// own (zstd:1 in quiver; none and lz4 also read), so that both directions
// run on every core. Where a segment starts is the writer's choice (a
// reader takes any cut): when the size bytes fill a segment or more, they
// are cut on their own, from the first, so the writer compresses them
// while it builds the sections before them; otherwise the body is cut
// from its start. The zstd encoder Huffman-codes literals even in blocks where
// it finds no match (klauspost's WithAllLitEntropyCompression): size
// bytes are random symbols of about 4.9 bits, with no repeats to find,
// which its fast levels otherwise store raw at 8 bits.
//
// The body is columnar, so each column compresses on its own terms and a
// reader finds every section from the header without parsing the others:
//
//	uvarint maps M, partitions R, locations L
//	uvarint × 8: the byte length of each section below, then the sections:
//	 0 location heads   per distinct location, in first-use order:
//	                    uvarint shared prefix, shared suffix, middle length
//	                    (against the location before it)
//	 1 location middles the middles, concatenated
//	 2 kinds            M bytes: 0 missing, 1 compressed, 2 highly
//	 3 map ids          per present map: zigzag varint, id − previous id
//	 4 location numbers per present map: zigzag varint, number − previous
//	 5 sizes            compressed maps' R size bytes each, map after map
//	 6 record lengths   per highly compressed map: uvarint byte length
//	 7 records          per highly compressed map: uvarint average,
//	                    uvarint n + n bytes empty bitmap, uvarint n + n
//	                    bytes accurate bitmap (both RoaringFormatSpec's
//	                    portable format), then one size byte per accurate
//	                    block (the rest of the record)
//
// Worked example (TestStatusesWorkedExample): two maps of 3 partitions on
// "w1:7000" and "w2:7000", ids 10 and 11, sizes [2, 0, 10] and [1, 1, 1]
// (size bytes 08 00 19 and 01 01 01). Body:
//
//	02 03 02                  M = 2, R = 3, L = 2
//	06 08 02 02 02 06 00 00   section lengths
//	00 00 07  01 05 01        heads: "w1:7000" whole; "w" + "2" + ":7000"
//	w1:7000 2                 middles
//	01 01                     kinds: compressed, compressed
//	14 02                     ids: zigzag(10), zigzag(+1)
//	00 02                     location numbers: 0, +1
//	08 00 19 01 01 01         sizes
//
// Locations are interned (a fixed table of 4,096 two-way sets, so past
// that many workers interleaved some repeat), so 200,000 map tasks on 8
// workers spell 8 strings; Spark's benchmark gives every map its own
// host, which the shared prefix and suffix bring to its changed digits:
// 6.17 bytes per status in all at 10 blocks, against an entropy floor of
// about 6.1 for the size bytes alone (BENCHMARKS.md §16). Map ids and
// location numbers are deltas, nearly free when tasks report in order.
// Spark writes Java-serialized objects, ids as 8-byte longs and each
// location twice (executor id and host) per status.
//
// DecodeStatuses treats the blob as hostile: the body length is checked
// against DecodeLimits.MaxBytes, and every segment's decoded length
// against what its compressed bytes can expand to (32 KiB a byte for
// zstd), before the body is allocated (and the codec never writes past
// it); counts against MaxMaps and MaxPartitions,
// every section length against what is left, location bytes (which a few
// bytes of prefix sharing could multiply) against MaxLocationBytes, and
// every bitmap is validated and bounded by R; failures match ErrCorrupt
// or ErrLimit. It then keeps the compressed statuses' size bytes where
// they lie: a reducer reads its partition's sizes (PartitionSizes) with
// one byte per map, and no MapStatus is built until Status asks (then
// 256 at a time, in one allocation).
//
// # Map output files
//
// A map task writes its rows, already partitioned (query's partitioner
// gives a partition per row: MapWriter.WriteRows; or a batch per
// partition: Write), to one file of the spill Manager: its quota, its
// folder and its cleanup apply (spill.Manager.NewRaw). Rows are encoded
// as they come, compressed by the batch layer, and buffered per
// partition; when WriterOptions.BufferBytes (32 MiB) of encoded bytes are
// held, they are written as one run, partition after partition, with one
// write call. Finish writes the last run, then the index:
//
//	┌────────┬──────────────────────────┬──────────────────┬─────┬───────┬──────────┐
//	│ Schema │ run 0: block 0 … block R-1│ run 1 … run K-1  │ EOS │ index │ trailer  │
//	│ message│ (record batch messages)  │                  │ 8 B │       │ 16 B     │
//	└────────┴──────────────────────────┴──────────────────┴─────┴───────┴──────────┘
//
// Up to the end-of-stream marker the file is one standard Arrow IPC
// stream (TestMapOutputIsAStream): any Arrow reader reads it whole, in
// run and partition order. A block is the record batch messages of one
// partition in one run; partition p's rows are its blocks of every run, in
// order. The columns are the caller's, each buffer compressed as the
// batch layer writes it (package batch). A block must decode alone, so a
// dictionary column's dictionaries are written (as replacements) before
// every record batch of it, not once per file as a stream writer would.
// The index, like Spark's sort-shuffle .index file but with checksums,
// row and message counts:
//
//	u8 version = 1, uvarint R, uvarint K, uvarint schema message length
//	K × R entries, run-major: uvarint block length n; when n > 0, uvarint
//	  rows, uvarint messages (record and dictionary batches), u64 LE
//	  XXH3-64 of the block seeded with run × R + p + 1 (its place: a
//	  block moved elsewhere fails)
//	u64 LE XXH3-64 of all the above
//	trailer: u64 LE index length, "QVSHUFIX"
//
// Block offsets are not stored: they are the running sum of the lengths
// from the schema message's end, and must end exactly at the
// end-of-stream marker. The index is read from disk and checked as
// hostile input (checksum first, then every count against IndexLimits
// and every length against the bytes left, before anything is sized by
// them); each block's checksum is checked when it is read, and its rows
// and batches when it has been decoded. Damage fails with ErrCorrupt
// naming the file, run and partition (TestCorruptMapOutput).
//
// A map output that fits the query's memory need not touch disk: with
// WriterOptions.Memory (the query's tracker, as a Budget) each run is
// kept in memory, the same bytes the file would hold (compressed by the
// batch layer), counted with Budget.TryGrow; the first run the budget
// refuses moves what is held to the file, gives its bytes back, and the
// output goes on on disk. Readers cannot tell the two apart but for the
// copy a file read makes (an output in memory hands its blocks out in
// place, still checksummed); Remove gives the bytes back
// (TestInMemoryMapOutputs), and ToDisk moves a finished output to its
// file, the same bytes, when the memory is wanted elsewhere (readers open
// read on from memory; TestMapOutputToDisk); MapWriter.ToDisk does the
// same for an output still being written, whose rest then goes to the
// file (TestMapWriterToDisk).
//
// The engine holds the grace join's and spilling GROUP BY's outputs so
// (package query, shuffle_held.go): those shuffles run because memory is
// short, so what outputs hold is lent, not taken. Held outputs take at
// most half of the query's memory limit, and a writer never moves others
// to disk for its own; any other reservation of the query that would
// pass the limit (a partition's build, a table's growth) first moves
// finished outputs to disk, oldest first, then what open writers hold, so
// a join that spilled and fit when every output was on disk still fits. None are held under
// Options.ForceJoinSpill, which forces the spill path to test its files.
//
// A reducer reads any list of (map output, partition) blocks with
// ReadBlocks: empty blocks are skipped without a read, only the projected
// columns are decompressed, and a goroutine reads and checksums up to
// ReadOptions.ReadAhead (2) pieces ahead of the decoder. Shuffle ties one
// query's map outputs, statuses and cleanup together: Close (when the
// query ends or fails) and the cancellation of its context abort open
// writers and remove every file.
//
// # Repartitioning in memory
//
// Split cuts one batch into a batch per partition (a counting sort, then
// a take per column per partition): at fanout 64 on 8,192-row batches
// that is 320 small arrays per batch, whose allocation is most of the
// time. A Repartitioner instead appends each row to its partition's
// batch being gathered (one load and one store per value, a partition's
// buffer after the other) and emits the batch when it holds BatchRows
// rows, its buffers handed over as they are: at fanout 64 about 3× as
// fast as Split, and the batches downstream are full ones
// (BenchmarkRepartition, BENCHMARKS.md §16d).
//
// # Partitioning by hash or by range
//
// A Partitioner gives each row a partition, which Repartitioner.AddBy
// (or Add with the ids, or Split) moves it to. HashPartitioner hashes the
// key tuple: even partitions, no order between them. RangePartitioner is
// Spark's: R-1 increasing bounds cut the sort order of normalized keys
// (package sortkey) into R ranges, a row going to the first range whose
// bound is at or above its key (a binary search over the bounds' 8-byte
// prefixes), so partition p's keys all sort before p+1's and sorting each
// partition sorts the whole by concatenation. The bounds come from a
// sample: KeySampler draws a reservoir sample of each map task's keys,
// each key weighing the rows it stands for, and RangeBounds cuts the
// sorted, weighted sample into ranges of about equal weight (Spark's
// determineBounds, the target of each range recomputed from the weight
// left so that a heavy key does not leave tiny ranges after it, and a
// key heavier than a range's share closed in a range of its own). Equal
// keys always share a partition: a key that is most of the input makes
// that partition big, never the order wrong.
//
// # Adaptive decisions
//
// Pure functions of the sizes (any SizeSource; *Statuses is one), each
// Spark's rule with its defaults, for the planner to call once a map
// stage has finished:
//
//   - Coalesce (CoalesceShufflePartitions, ShufflePartitionsUtil): pack
//     contiguous reduce partitions to max(min(max(ceil(total /
//     MinPartitions), 16), 64 MiB), 1 MiB), dropping empty ranges.
//   - SkewJoin (OptimizeSkewedJoin): a partition bigger than max(256 MiB,
//     5 × the median) on a side the join type lets split is cut into map
//     ranges of about max(64 MiB, mean of the other partitions)
//     (SplitByMaps, splitSizeListByTargetSize), each joined with the other
//     side's whole partition (replicated); the partitions between skewed
//     ones are coalesced.
//   - Broadcast (JoinSelection.canBroadcastBySize): a side of at most
//     10 MiB is sent to every worker instead of shuffled.
//
// The engine wiring is not here: the reduce tasks these return are what
// an exchange operator would run, a MapRange being the maps whose blocks
// a task reads (ReadBlocks). The engine's grace hash join (package
// query, op_gracejoin*.go) spills through a Shuffle per side and
// partitioning: each writing worker a map task of its own, cut every so
// many bytes (AddMap: map tasks need not be known up front), its rows
// gathered per partition by a Repartitioner before they are written (a
// schema it does not gather, or a bound below 64 rows a partition, is cut
// by Split), and plans
// its partitions from the registered statuses (ShuffleStatuses is a
// SizeSource): empty ones skipped, a skewed one split by SplitByMaps
// under SkewThreshold's factor rule.
package shuffle
