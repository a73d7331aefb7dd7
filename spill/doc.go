// Package spill writes Arrow record batches to temporary files and reads
// them back: the files external sort and grouped aggregation spill to
// when their input passes memory. A spill file is a standard Arrow IPC
// stream written through the batch layer, so `quiver inspect FILE` and
// arrow-go read it (tested), as does any Arrow reader that knows run-end
// encoded arrays (pyarrow 12 and later; not polars 0.54, whose IPC reader
// stops at them). It is smaller than plain compressed IPC, costs one write
// call per batch, and every message is checksummed and verified on read,
// so a damaged file fails the query (ErrCorrupt, naming file and batch)
// instead of answering wrong.
//
// # Using it
//
//	m, _ := spill.NewManager(spill.Config{Codec: codec.Setting{Kind: codec.Zstd, Level: 1}, Quota: 10 << 30})
//	defer m.Close()                      // removes every file left
//	w, _ := m.NewFile("query-42")        // owner: in the name and in errors
//	for ... { err = w.Write(rec) }       // ErrQuota / ErrNoSpace remove the file
//	f, _ := w.Finish()                   // or w.Abort()
//	r, _ := f.Open(mem)                  // as often as needed (merge passes)
//	for r.Next() { use(r.RecordBatch()) }
//	err = r.Err(); r.Release(); f.Remove()
//
// A Manager owns the folder Dir/quiver-spill-<pid>-<random>/ and a quota
// shared by all its files; NewManager first removes the quiver-spill-*
// folders of processes that are no longer running (a crash leaves them).
// Files are named <owner>-<n>.arrows. A File lives in memory next to its
// bytes: it knows each batch's offset, length and rows, so a Reader reads
// a batch with one ReadAt and can tell a truncated file from a short one.
// Files do not outlive the process (no fsync, no reopening by path).
//
// # File layout
//
// A spill file is an Arrow IPC stream (see package batch for the framing of
// one message). The first Write gathers the schema message and the first
// batch's messages into one buffer and writes it with one call; every later
// Write does the same for its batch, and Finish writes the end-of-stream
// marker:
//
//	write 0                                           write 1          Finish
//	┌────────────────┬──────────────┬────────────────┬────────────────┬──────────┐
//	│ Schema message │ Dictionary   │ RecordBatch    │ RecordBatch    │ FFFFFFFF │
//	│ (seq 0)        │ batches that │ message        │ message        │ 00000000 │
//	│                │ changed (1)  │ (2)            │ (3)            │          │
//	└────────────────┴──────────────┴────────────────┴────────────────┴──────────┘
//	 schemaN bytes    ◄──── extent of batch 0 ──────► ◄── batch 1 ───►
//
// The schema message carries the caller's schema with the string columns
// changed as below, and one more schema metadata entry,
// quiver.spill.version = "1": the version of this layout.
//
// Each message is the batch layer's encapsulated message, body compressed
// with the configured codec per the Arrow spec:
//
//	┌──────────┬─────────┬──────────────────────────────────┬─────┬───────────────┐
//	│ FFFFFFFF │ int32 M │ Message flatbuffer:              │ pad │ body          │
//	│          │         │  version V5, header, bodyLength, │ to 8│ (buffers,     │
//	│          │         │  custom_metadata:                │     │  each 8-byte  │
//	│          │         │   "quiver.spill.xxh3" =          │     │  aligned)     │
//	│          │         │   16 hex digits                  │     │               │
//	└──────────┴─────────┴──────────────────────────────────┴─────┴───────────────┘
//
// The checksum is XXH3-64 of the whole encapsulated message, from FFFFFFFF
// to the end of the body, computed while its own 16 digits read
// "0000000000000000", seeded with the message's position in the file
// (schema 0, then 1, 2, ... in file order), written as big-endian hex. It
// sits in the Message table's custom_metadata, which every Arrow reader
// skips, so the file stays plain IPC. The reader checks it before the
// batch layer looks at anything else of the message; the position seed
// also catches a message that is valid but in the wrong place.
//
// # String and binary columns
//
// With a compressing codec (lz4, zstd:N), each top-level Utf8, LargeUtf8,
// Binary, LargeBinary, StringView and BinaryView column is written as
//
//	Struct<                                 validity: the column's own
//	  lengths: Int32 (Int64 for Large*),    one per row, 0 for a null, never null
//	  bytes:   RunEndEncoded<               logical length = rows
//	    run_ends: Int32,                    [rows]         (one run; none if rows = 0)
//	    values:   Binary                    [all the non-null values' bytes,
//	              (LargeBinary for Large*              concatenated]
//	               and views)>>
//
// with two field metadata entries, quiver.spill.encoding = "lengths" and
// quiver.spill.type = the original type's name (utf8, large_utf8, binary,
// large_binary, string_view, binary_view), so any reader can rebuild the
// column: offsets are the prefix sum of the lengths. Both children are
// valid Arrow arrays. Offsets grow with every row and compress badly;
// lengths of similar values repeat and compress well, and the bytes are
// one buffer the codec sees whole (DataFusion #26960, after Gluten's
// "store string length instead of offset"). Uncompressed spills keep
// every column as it is: there the struct only costs bytes. Nested
// strings (a list of strings, dictionary values) stay as they are.
//
// Reading, the lengths are checked as hostile: none negative, the running
// sum never past the run's bytes, the total equal to them, exactly one run
// ending at the row count. The rebuilt column's values are zero-copy slices
// of the decoded run. Views come back as views: values of up to 12 bytes
// inline, longer ones pointing into the run (cut into 2 GiB data buffers).
//
// Worked example: a Utf8 column ["arrow", null, "arrow", "lz4"] becomes
// validity [1, 0, 1, 1] (the byte 0x0d), lengths [5, 0, 5, 3], run_ends
// [4] and one value "arrowarrowlz4" (offsets [0, 13]). The 5 offsets [0, 5, 5, 10, 13] it
// replaces are gone. testdata/lz4_file.golden holds this column's whole
// file, message by message (go test -run TestGolden -rewrite regenerates
// it).
//
// # What else is compacted
//
// A sliced array is written as its slice (the batch layer cuts buffers and
// rebases offsets). View arrays, at any depth, are rewritten to hold only
// the bytes their rows use when their data buffers hold more: a slice of a
// view column would otherwise carry its whole parent's data buffers
// (DataFusion #19414). Dictionary columns stay IPC dictionaries: a
// DictionaryBatch message is written when a batch's dictionary differs
// from the previous one (a delta when it extends it), so a dictionary
// shared by many batches costs one message; their values are not
// compacted. Dense unions' children are written whole.
//
// # Space
//
// Every write reserves its bytes against Config.Quota first; one that does
// not fit fails with a *SpaceError matching ErrQuota and
// ErrResourceExhausted that says how many bytes it needed, the quota and
// what is in use. ENOSPC (or EDQUOT) from the file system fails the same
// way with ErrNoSpace. Either way, and on any other write error, the
// partial file is removed at once and its bytes given back. File.Remove
// gives a file's bytes back; Manager.Close removes the whole folder.
//
// # Raw files
//
// Manager.NewRaw gives a file whose layout the caller owns (package
// shuffle's map outputs: several streams and an index) the same quota,
// space errors, removal on failure and cleanup; its bytes are the
// caller's to check.
package spill
