package shuffle

import (
	"encoding/binary"

	"github.com/zeebo/xxh3"
)

// A map output file (doc.go, "Map output files") ends with its index and
// a 16-byte trailer: the index's length and the magic.
const (
	trailerLen   = 16
	indexVersion = 1
)

var trailerMagic = [8]byte{'Q', 'V', 'S', 'H', 'U', 'F', 'I', 'X'}

// endOfStream ends every Arrow IPC stream; it sits between the blocks and
// the index, so the file up to it is one valid stream.
var endOfStream = []byte{0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0}

// IndexLimits bound what ReadIndex accepts. The zero value is the
// defaults.
type IndexLimits struct {
	// MaxPartitions: 0 means 16,777,216.
	MaxPartitions int
	// MaxRuns: how many times one map task's writer may have flushed its
	// buffer. 0 means 65,536.
	MaxRuns int
	// MaxIndexBytes: 0 means 256 MiB.
	MaxIndexBytes int64
	// MaxEntries: runs × partitions, each decoded into 40 bytes (an empty
	// entry takes one byte on disk, so this, not MaxIndexBytes, bounds
	// the memory). 0 means 4,194,304 (160 MiB).
	MaxEntries int
}

func (l IndexLimits) norm() IndexLimits {
	if l.MaxPartitions <= 0 {
		l.MaxPartitions = 1 << 24
	}
	if l.MaxRuns <= 0 {
		l.MaxRuns = 1 << 16
	}
	if l.MaxIndexBytes <= 0 {
		l.MaxIndexBytes = 256 << 20
	}
	if l.MaxEntries <= 0 {
		l.MaxEntries = 1 << 22
	}
	return l
}

// blockEntry is one run's part of one partition: where it lies, what it
// holds and its checksum.
type blockEntry struct {
	off, n  int64
	rows    int64
	batches int64
	sum     uint64
}

// fileIndex is a decoded index: runs × partitions entries, run-major.
type fileIndex struct {
	partitions, runs int
	schemaLen        int64
	entries          []blockEntry
}

func (x *fileIndex) entry(run, p int) blockEntry { return x.entries[run*x.partitions+p] }

// blockSeed seeds a block's checksum with its place in the file, as the
// spill package seeds a message's, so a block moved elsewhere fails too.
func blockSeed(run, partitions, p int) uint64 { return uint64(run)*uint64(partitions) + uint64(p) + 1 }

// appendIndex appends the index of x and its checksum.
func appendIndex(dst []byte, x *fileIndex) []byte {
	at := len(dst)
	dst = append(dst, indexVersion)
	dst = binary.AppendUvarint(dst, uint64(x.partitions))
	dst = binary.AppendUvarint(dst, uint64(x.runs))
	dst = binary.AppendUvarint(dst, uint64(x.schemaLen))
	for _, e := range x.entries {
		dst = binary.AppendUvarint(dst, uint64(e.n))
		if e.n > 0 {
			dst = binary.AppendUvarint(dst, uint64(e.rows))
			dst = binary.AppendUvarint(dst, uint64(e.batches))
			dst = binary.LittleEndian.AppendUint64(dst, e.sum)
		}
	}
	return binary.LittleEndian.AppendUint64(dst, xxh3.Hash(dst[at:]))
}

// appendTrailer appends the trailer after an index of n bytes.
func appendTrailer(dst []byte, n int) []byte {
	dst = binary.LittleEndian.AppendUint64(dst, uint64(n))
	return append(dst, trailerMagic[:]...)
}

// parseTrailer returns the index length a trailer gives, checked against
// a file of size bytes (which must also hold the schema message's 8 bytes
// at least and the end-of-stream marker).
func parseTrailer(t []byte, size int64, lim IndexLimits) (int64, error) {
	lim = lim.norm()
	if len(t) != trailerLen || [8]byte(t[8:]) != trailerMagic {
		return 0, corruptf("map output: no index trailer (magic % x)", t[min(8, len(t)):])
	}
	n := binary.LittleEndian.Uint64(t)
	if n > uint64(lim.MaxIndexBytes) {
		return 0, limitf("map output: index of %d bytes, IndexLimits.MaxIndexBytes is %d", n, lim.MaxIndexBytes)
	}
	if int64(n) > size-trailerLen-int64(len(endOfStream)) {
		return 0, corruptf("map output: index of %d bytes in a %d-byte file", n, size)
	}
	return int64(n), nil
}

// readIndex decodes an index: b is untrusted, checked against lim and
// against size, the file's length (every block must fit between the
// schema message and the end-of-stream marker, exactly).
func readIndex(b []byte, size int64, lim IndexLimits) (*fileIndex, error) {
	lim = lim.norm()
	if len(b) < 9 {
		return nil, corruptf("map output index: %d bytes", len(b))
	}
	body, sum := b[:len(b)-8], binary.LittleEndian.Uint64(b[len(b)-8:])
	if got := xxh3.Hash(body); got != sum {
		return nil, corruptf("map output index: checksum %016x, index says %016x", got, sum)
	}
	if body[0] != indexVersion {
		return nil, corruptf("map output index: version %d, this reader knows %d", body[0], indexVersion)
	}
	r := &reader{b: body[1:]}
	parts, runs, schemaLen := r.uvarint("index"), r.uvarint("index"), r.uvarint("index")
	if r.err != nil {
		return nil, r.err
	}
	switch {
	case parts > uint64(lim.MaxPartitions):
		return nil, limitf("map output index: %d partitions, IndexLimits.MaxPartitions is %d", parts, lim.MaxPartitions)
	case runs > uint64(lim.MaxRuns):
		return nil, limitf("map output index: %d runs, IndexLimits.MaxRuns is %d", runs, lim.MaxRuns)
	case parts*runs > uint64(lim.MaxEntries):
		return nil, limitf("map output index: %d runs × %d partitions, IndexLimits.MaxEntries is %d", runs, parts, lim.MaxEntries)
	case parts*runs > uint64(len(r.b)): // every entry takes a byte at least
		return nil, corruptf("map output index: %d × %d entries in %d bytes", runs, parts, len(r.b))
	}
	x := &fileIndex{partitions: int(parts), runs: int(runs), schemaLen: int64(schemaLen)}
	blocksEnd := size - trailerLen - int64(len(b)) - int64(len(endOfStream))
	if schemaLen > uint64(max(blocksEnd, 0)) {
		return nil, corruptf("map output index: schema message of %d bytes before %d", schemaLen, blocksEnd)
	}
	x.entries = make([]blockEntry, parts*runs)
	off := x.schemaLen
	for i := range x.entries {
		e := &x.entries[i]
		n := r.uvarint("index entries")
		if r.err == nil && n > 0 {
			e.rows, e.batches = int64(r.uvarint("index entries")), int64(r.uvarint("index entries"))
			if len(r.b) < 8 {
				return nil, corruptf("map output index: ends inside entry %d", i)
			}
			e.sum = binary.LittleEndian.Uint64(r.b)
			r.b = r.b[8:]
		}
		if r.err != nil {
			return nil, r.err
		}
		// A record batch message takes 8 bytes at least; rows fit in int64.
		if n > uint64(blocksEnd-off) || (n > 0 && (e.batches == 0 || uint64(e.batches) > n/8 || e.rows < 0)) {
			return nil, corruptf("map output index: entry %d (run %d, partition %d): %d bytes, %d batches, %d rows at offset %d of %d",
				i, i/max(x.partitions, 1), i%max(x.partitions, 1), n, e.batches, e.rows, off, blocksEnd)
		}
		e.off, e.n = off, int64(n)
		off += int64(n)
	}
	if len(r.b) != 0 || off != blocksEnd {
		return nil, corruptf("map output index: blocks end at %d, the end-of-stream marker is at %d (%d index bytes left)", off, blocksEnd, len(r.b))
	}
	return x, nil
}

// xxh3Hash and appendUint64 let tests rebuild an index's checksum.
func xxh3Hash(b []byte) uint64 { return xxh3.Hash(b) }

func appendUint64(b []byte, v uint64) []byte { return binary.LittleEndian.AppendUint64(b, v) }
