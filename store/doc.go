// Package store keeps a cache's tables in a data directory, so that what
// a client was told is stored survives a restart, a crash (kill -9, a
// power cut) and a full disk.
//
// # Using it
//
//	c, _ := cache.New(cache.Options{})
//	s, err := store.Open("/var/lib/quiver", c, store.Options{}) // compacts in the background
//	for _, p := range s.Problems() { log(p) } // tables not served, and why
//	info, err := s.Put(ctx, "t", reader, cache.TableOptions{}) // on disk, then visible
//	info, err = s.Append(ctx, "t", more, cache.TableOptions{})
//	ok, err := s.Drop("t")
//	defer s.Close()
//
// Scans go to the cache as before. The cache encodes (cache.Change); the
// store writes the change's chunks, byte for byte as the cache holds them,
// then commits the change in the cache. Open restores each table with
// cache.Restore: a batch's chunks are read on its first scan, so opening a
// directory of many gigabytes reads the manifests only.
//
// # Data directory
//
//	DIR/
//	  LOCK               flock'd by the open Store; holds its pid
//	  t<id>.manifest     one per table: its schema, decisions and batches
//	  t<id>-<seq>.chunks the chunks of one change (a Put, or an Append)
//	  catalog            the server's views (catalog.go)
//	  *.tmp              a manifest being written; removed at Open
//
// id is a number given to a table when it is created (table names are
// arbitrary text, file names are not); seq counts the table's chunk
// files. Names that are none of these are left alone.
//
// # Chunk file (version 1)
//
//	+---------+---------+--------------------------------------------+
//	| magic   | version | chunks, back to back: each batch's chunks  |
//	| "QVCK"  | u8 = 1  | in column order, each in the cache's chunk |
//	| 4 bytes |         | format (version byte first, XXH3 checksum  |
//	|         |         | last; see package cache)                   |
//	+---------+---------+--------------------------------------------+
//
// The file has no index of its own: the manifest records each batch's
// offset and each chunk's length, and the file's exact length, so a torn
// file is named at Open by its length and a damaged chunk by its checksum
// when it is read (the error names table, file, batch, column, offset).
//
// # Manifest (version 2)
//
// Integers are unsigned LEB128 varints ("uv") unless said; strings are
// uv length then bytes.
//
//	+--------+---------+------+----+---------+--------+--------+-------+-----+
//	| magic  | version | name | id | nextSeq | input  | stored | codec | enc |
//	| "QVMF" | u8 = 2  | str  | uv | uv      | schema | schema | str   | u8  |
//	|        |         |      |    |         | str †  | str †  |       |     |
//	+--------+---------+------+----+---------+--------+--------+-------+-----+
//	| ncols | ncols × (codec str, dictionary str, sketch str ‡)             |
//	| nnames| nnames × str          encoding names ("delta", "plain"…)      |
//	| nfiles| nfiles × (seq uv, length uv)       chunk files it names       |
//	| nbatch| nbatch × (file uv, offset uv, rows uv,                        |
//	|       |   ncols × (chunk length uv, decoded uv, name index uv, stats))|
//	+-------+---------------------------------------------------------------+
//	| checksum u32 LE: low 32 bits of XXH3-64 over every byte before it     |
//	+-----------------------------------------------------------------------+
//
//	stats: nulls uv, hasBounds u8, then if 1: min value, max value
//	value: kind u8 (cache.Kind), then bool/uint uv, int zigzag varint,
//	       float u64 LE bits, bytes/decimal str, null nothing
//
// For example (testdata/golden_v2 holds the whole of it; golden_v1 is the
// same table in version 1, which Open still reads), table "golden" with
// id 1 put once begins
//
//	51 56 4d 46  02  06 67 6f 6c 64 65 6e  01  02  c8 01  ff ff ff ff b8 00…
//	"QVMF"       v2  "golden" (6 bytes)    id  next  200 bytes of input
//	                                       1   seq 2 schema, an IPC stream
//
// and its chunk file t1-1.chunks begins 51 56 43 4b 01 ("QVCK", version
// 1), then the first chunk of batch 0: 01 (chunk version 1), 01 (form
// fixed)…
//
// ‡ the column's distinct-count sketch over the whole table, in package
// hll's format (its own version byte; sparse for few values, 4,099 bytes
// at most); empty when the column has none. Each change writes the
// sketches of the table after it (an Append's merged with the table's),
// so the counts survive a restart without reading a chunk. Version 1
// manifests have no sketch field: their tables' distinct counts are
// unknown (cache.ColumnSummary.Distinct -1) until the table is put again.
//
// † an Arrow IPC stream holding the schema alone. Statistics live in the
// manifest, not the chunk files, so a scan after a restart skips batches
// by their statistics without reading them, and count(*) reads nothing.
//
// A table of 8 int64 columns in 1000 batches has a manifest of about
// 100 KB, plus at most 4 KiB of sketch per column: each change rewrites
// it whole, and compaction (below) keeps the batches few.
//
// # A change
//
// Put (create or replace), Append and Drop each:
//
//  1. encode the batches (cache.PreparePut / PrepareAppend), invisible,
//     and write each to a new t<id>-<seq>.chunks as soon as it and those
//     before it are encoded (cache.TableOptions.Encoded), starting the
//     kernel's writeback of it (sync_file_range), so that the file is
//     written, and mostly on the disk, when encoding ends (chunkStream);
//  2. fsync the chunk file;
//  3. write the new manifest to t<id>.manifest.tmp and fsync it, at the
//     same time as 2: nothing is renamed before both are durable;
//  4. rename the temp over t<id>.manifest (the commit point), fsync the
//     directory (a Drop removes the manifest instead). No directory fsync
//     comes before the rename: on ext4 and xfs a file's fsync commits its
//     creation and directory operations are journaled in order, so a
//     durable rename implies the files before it (writeManifest says
//     more), and a change costs three fsyncs, not four, two of them at
//     once: the client waits for two in a row;
//  5. make the change visible in the cache, then remove chunk files the
//     manifest no longer names (opening them first when a restored table
//     reads them: a scan of the old snapshot keeps reading an open file
//     after its name is gone).
//
// A crash before 4 leaves the old manifest and files that Open removes; a
// crash after it, the new one. A failure (ENOSPC, EIO) before 4 removes
// what the change wrote; at or after 4, where the disk may hold either
// manifest, the old manifest is written back the same way. Either way the
// change returns the error and the table is unchanged on disk and in
// memory; if even the write-back fails the table refuses further changes
// until a restart reads what the disk holds. A full disk is one sentence,
// a *DiskFullError naming the table, the directory and the space free.
// Changes of one table are serialized (a Put encodes and streams its file
// before it takes the table, under an id and seq reserved then; if the
// table got another id meanwhile it writes the file again); of different
// tables, concurrent.
//
// # Compaction
//
// Every Append writes a chunk file of its own, so a table appended to a
// row at a time would be thousands of files of tiny batches, each a
// manifest entry, an open file and a decode call per scan. Compaction
// merges them: it picks the longest run of consecutive chunk files (in
// table order) holding fewer than Compaction.Rows rows each, or one file
// whose batches average a quarter of that or less, and rewrites their
// batches as batches of Rows rows (the last may be shorter) in one new
// chunk file: decoded with the table's own decisions (codec, dictionary,
// encodings) and encoded again, the same rows in the same order. The
// background does so once a table has more than Compaction.Files small
// files, or a file of small batches; Store.Compact does it now. A merged
// file of Rows rows or more is not picked again, so a row is rewritten
// at most until its batch is full.
//
// The steps are a change's: (1) the cache encodes the merged batches
// (cache.PrepareCompact) from a snapshot, (2) they are written to a new
// t<id>-<seq>.chunks and synced, then, holding the table, (3) the new
// manifest — the table as it is then, the run's batches replaced — goes
// to t<id>.manifest.tmp, is synced and (4) renamed over the manifest, the
// directory synced, (5) the cache commits and the files no batch names
// any more are removed, opened first for scans of older snapshots. Steps
// 1 and 2 do not hold the table: appends committed meanwhile are kept
// after the merged batches in the new manifest and the cache (a rebase);
// a Put or Drop meanwhile makes the compaction give up and remove its
// file. A crash or failure at any step leaves the old table or the new
// one, as for any change. The statistics of a merged batch are computed
// from its rows, which are those of the batches it replaces (so the
// table's merged statistics are unchanged), and the table's distinct-
// count sketches stay as they are: the rows did not change.
//
// A compaction holds its new batches in the cache's budget while it
// writes them, so it merges only what fits in half the budget free at
// its start (the rest is merged after the next change): background work
// does not take the room a client's change needs.
//
// # Open
//
// Open creates the directory if it is missing (and syncs its parent, so
// its name lasts), takes the LOCK (a second Open, by any process, fails with
// ErrLocked naming the holder's pid; the kernel drops the lock of a dead
// process), removes *.tmp files and chunk files no manifest names (the
// files of changes that did not reach their commit point), and reads each
// manifest. A manifest that fails its checksum, or names a chunk file of
// another length, is reported in Problems as a *TableError naming the
// table and the file, its files are kept for inspection, and the other
// tables are served. Options.ReadOnly reads a directory without locking it
// or removing anything (to look at a running server's). Tables due for
// compaction (a crash may have cut one short) are queued for the
// background.
//
// Store.Verify reads every chunk of a table and checks its checksum: what
// Open leaves to the first scan, done now.
//
// # Memory
//
// The cache's budget holds what was read or written last: batches the
// store wrote (cache.Change.Sources) or restored give way to make room
// and are read again from their chunk files when needed, so the tables
// in a directory may be bigger than the budget. One change must still fit
// in it while it is encoded.
//
// # Coalescing appends and the catalog
//
// An Append with cache.TableOptions.Coalesce that merges the table's
// trailing small batches into its own (cache.Change.Replaced) writes the
// merged batch to its new chunk file and drops the replaced batches from
// the manifest; a chunk file no batch is read from any more is removed
// after the commit, as a Put's old files are. So small appends (SQL
// INSERTs) leave a few files, not one each.
//
// The catalog file (catalog.go: "QVCT", version, payload, checksum) keeps
// bytes the server defines beside the tables (the views of CREATE VIEW),
// replaced durably by SaveCatalog and read at Open.
// Coalescing works at the moment of an append, on the batches just
// before it; compaction (above) works in the background over any run of
// small files. A compaction commits only if the batches it read are
// still the table's first ones, so an append that coalesced some of them
// meanwhile makes it give up (and retry later), never duplicate rows.
package store
