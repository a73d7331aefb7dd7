package shuffle

import (
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"math/bits"
	"slices"

	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/internal/rawmem"
)

// FormatVersion is the first byte of serialized statuses (doc.go).
type FormatVersion uint8

// FormatV1 is the only version so far.
const FormatV1 FormatVersion = 1

func (v FormatVersion) String() string { return fmt.Sprintf("v%d", uint8(v)) }

// The sections of the body, in order (doc.go draws them).
const (
	secLocHeads = iota // per location: shared prefix, shared suffix, middle length
	secLocMids         // the middles, concatenated
	secKinds           // one StatusKind per map
	secMapIDs          // zigzag deltas of present maps' ids
	secLocIdx          // zigzag deltas of present maps' location numbers
	secSizes           // compressed statuses' size bytes, map after map
	secHighLens        // byte length of each highly compressed record
	secHighly          // the highly compressed records
	numSections
)

// AppendStatuses appends the serialized form of statuses (one per map
// task, nil where a map has no status) to dst, compressed with c (zstd:1
// is what quiver uses). Every status must have partitions blocks.
// Locations are interned: each distinct string is written once, front-
// and back-coded against the one before it.
func AppendStatuses(dst []byte, statuses []*MapStatus, partitions int, c codec.Setting) ([]byte, error) {
	compress, err := compressor(c)
	if err != nil {
		return dst, err
	}
	b, err := newBody(statuses, partitions)
	if err != nil {
		return dst, err
	}
	// A segment's worth of size bytes or more are cut and compressed on
	// their own, starting now, while this goroutine builds the other
	// sections (at 10 blocks per status, building them was half the
	// serialization's time, with a core idle); fewer go with the rest.
	var sizeSegs []segment
	sizesDone := make(chan struct{})
	if b.sizesLen() >= segmentBytes {
		sizeSegs = cut(b.readSizes, b.sizesLen())
		go func() {
			defer close(sizesDone)
			compressSegments(sizeSegs, compress)
		}()
	} else {
		close(sizesDone)
	}
	err = b.build(statuses)
	if err != nil {
		<-sizesDone
		return dst, err
	}
	var segs []segment
	if sizeSegs != nil {
		head := cut(b.readHead, b.headLen())
		rest := append(head, cut(b.readTail, b.tailLen())...)
		compressSegments(rest, compress)
		<-sizesDone
		segs = slices.Concat(rest[:len(head)], sizeSegs, rest[len(head):])
	} else {
		segs = cut(b.read, b.len())
		compressSegments(segs, compress)
	}
	dst = append(dst, byte(FormatV1), byte(c.Kind))
	dst = binary.AppendUvarint(dst, uint64(b.len()))
	return appendSegments(dst, segs), nil
}

// body is the uncompressed body, in three regions: the head (the counts,
// the section lengths and the sections before the sizes), the size bytes
// and the tail (the sections after them). The size bytes, most of it at
// 1,000 blocks per status (200 MB in Spark's benchmark), stay in the
// statuses, and each segment is copied from them into a scratch buffer
// of its compressing goroutine, so the body is never built whole
// (building it was a third of the serialization's CPU samples: clearing
// and filling 200 MB that are read once); the sections are not
// concatenated either.
type body struct {
	head  [][]byte     // the counts and section lengths, then the sections before the sizes
	sizes []*MapStatus // the compressed statuses, whose size bytes follow head
	per   int          // size bytes per status: the partitions
	tail  [][]byte     // the sections after the sizes
}

func (b *body) headLen() int  { return piecesLen(b.head) }
func (b *body) sizesLen() int { return len(b.sizes) * b.per }
func (b *body) tailLen() int  { return piecesLen(b.tail) }
func (b *body) len() int      { return b.headLen() + b.sizesLen() + b.tailLen() }

func (b *body) readHead(dst []byte, off int) { readPieces(b.head, dst, off) }
func (b *body) readTail(dst []byte, off int) { readPieces(b.tail, dst, off) }

// readSizes fills dst with the size bytes from off.
func (b *body) readSizes(dst []byte, off int) {
	i, j := off/b.per, off%b.per
	for ; len(dst) > 0; i, j = i+1, 0 {
		n := copy(dst, b.sizes[i].sizes[j:])
		dst = dst[n:]
	}
}

// read fills dst with the body's bytes from off.
func (b *body) read(dst []byte, off int) {
	for _, r := range [...]struct {
		n    int
		read func([]byte, int)
	}{{b.headLen(), b.readHead}, {b.sizesLen(), b.readSizes}, {b.tailLen(), b.readTail}} {
		if off < r.n && len(dst) > 0 {
			n := min(len(dst), r.n-off)
			r.read(dst[:n], off)
			dst, off = dst[n:], off+n
		}
		off -= r.n
	}
}

func piecesLen(pieces [][]byte) int {
	n := 0
	for _, p := range pieces {
		n += len(p)
	}
	return n
}

// readPieces fills dst with the bytes of pieces, one after the other,
// from off.
func readPieces(pieces [][]byte, dst []byte, off int) {
	for _, p := range pieces {
		if off >= len(p) {
			off -= len(p)
			continue
		}
		n := copy(dst, p[off:])
		dst, off = dst[n:], 0
		if len(dst) == 0 {
			return
		}
	}
}

// appendBody appends the uncompressed body (tests; AppendStatuses reads
// it segment by segment).
func appendBody(dst []byte, statuses []*MapStatus, partitions int) ([]byte, error) {
	b, err := newBody(statuses, partitions)
	if err == nil {
		err = b.build(statuses)
	}
	if err != nil {
		return dst, err
	}
	at := len(dst)
	dst = append(dst, make([]byte, b.len())...)
	b.read(dst[at:], 0)
	return dst, nil
}

// newBody checks that every status has partitions blocks and lists the
// compressed ones, whose size bytes are then known: the body's other
// regions are made by build.
func newBody(statuses []*MapStatus, partitions int) (*body, error) {
	b := &body{per: partitions, sizes: make([]*MapStatus, 0, len(statuses))}
	for m, s := range statuses {
		if s == nil {
			continue
		}
		if n := s.Partitions(); n != partitions {
			return nil, fmt.Errorf("shuffle: status of map %d (id %d) has %d partitions, the shuffle %d", m, s.mapID, n, partitions)
		}
		if s.kind == KindCompressed {
			b.sizes = append(b.sizes, s)
		}
	}
	return b, nil
}

// build makes the sections other than the sizes, in one pass over the
// statuses.
func (b *body) build(statuses []*MapStatus) error {
	var sec [numSections][]byte
	sec[secMapIDs] = make([]byte, 0, len(statuses))
	sec[secLocIdx] = make([]byte, 0, len(statuses))
	var locs internTable
	nlocs := uint64(0)
	prevLoc := "" // the last new location, which the next is coded against
	lastLoc := "" // the last present map's
	havePrev := false
	var prevID int64
	var prevIdx uint64
	sec[secKinds] = make([]byte, len(statuses))
	for m, s := range statuses {
		if s == nil {
			continue // KindMissing
		}
		sec[secKinds][m] = byte(s.kind)
		idx := prevIdx
		if s.location != lastLoc || !havePrev { // a worker's maps often come in a row
			var isNew bool
			if idx, isNew = locs.intern(s.location, nlocs); isNew {
				nlocs++
				sec[secLocHeads], sec[secLocMids] = appendLocation(sec[secLocHeads], sec[secLocMids], prevLoc, s.location)
				prevLoc = s.location
			}
		}
		sec[secMapIDs] = binary.AppendVarint(sec[secMapIDs], s.mapID-prevID)
		sec[secLocIdx] = binary.AppendVarint(sec[secLocIdx], int64(idx-prevIdx))
		prevID, prevIdx, lastLoc, havePrev = s.mapID, idx, s.location, true
		if s.kind == KindHighlyCompressed {
			at := len(sec[secHighly])
			var err error
			if sec[secHighly], err = s.appendHighly(sec[secHighly]); err != nil {
				return err
			}
			sec[secHighLens] = binary.AppendUvarint(sec[secHighLens], uint64(len(sec[secHighly])-at))
		}
	}
	counts := make([]byte, 0, (3+numSections)*binary.MaxVarintLen64)
	counts = binary.AppendUvarint(counts, uint64(len(statuses)))
	counts = binary.AppendUvarint(counts, uint64(b.per))
	counts = binary.AppendUvarint(counts, nlocs)
	for i, x := range sec {
		if i == secSizes {
			counts = binary.AppendUvarint(counts, uint64(b.sizesLen()))
			continue
		}
		counts = binary.AppendUvarint(counts, uint64(len(x)))
	}
	b.head = append([][]byte{counts}, sec[:secSizes]...)
	b.tail = sec[secSizes+1:]
	return nil
}

// appendLocation writes cur as the length of the prefix it shares with
// prev, the length of the suffix it shares with the rest of prev, and the
// middle: "node12346.example:1000" after "node12345.example:1000" costs
// (8, 13, 1) and "6".
func appendLocation(heads, mids []byte, prev, cur string) ([]byte, []byte) {
	p := sharedPrefix(prev, cur)
	s := sharedSuffix(prev[p:], cur[p:])
	mid := cur[p : len(cur)-s]
	heads = binary.AppendUvarint(heads, uint64(p))
	heads = binary.AppendUvarint(heads, uint64(s))
	heads = binary.AppendUvarint(heads, uint64(len(mid)))
	return heads, append(mids, mid...)
}

// sharedPrefix returns how many bytes a and b begin with in common,
// comparing 8 at a time (locations share tens of bytes: a byte at a time
// was a sixth of the serialization at 10 blocks per status).
func sharedPrefix(a, b string) int {
	n := min(len(a), len(b))
	ab, bb := rawmem.Bytes(a), rawmem.Bytes(b)
	i := 0
	for ; i+8 <= n; i += 8 {
		if x := rawmem.Load64(ab, i) ^ rawmem.Load64(bb, i); x != 0 {
			return i + bits.TrailingZeros64(x)/8
		}
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// sharedSuffix returns how many bytes a and b end with in common.
func sharedSuffix(a, b string) int {
	n := min(len(a), len(b))
	ab, bb := rawmem.Bytes(a), rawmem.Bytes(b)
	s := 0
	for ; s+8 <= n; s += 8 {
		if x := rawmem.Load64(ab, len(a)-s-8) ^ rawmem.Load64(bb, len(b)-s-8); x != 0 {
			return s + bits.LeadingZeros64(x)/8
		}
	}
	for s < n && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	return s
}

// appendHighly appends a highly compressed record: average, empty bitmap,
// accurate bitmap (both in the portable roaring format, each after its
// length), then the accurate blocks' size bytes, which end the record.
func (s *MapStatus) appendHighly(dst []byte) ([]byte, error) {
	dst = binary.AppendUvarint(dst, uint64(s.hi.avg))
	for _, bm := range [...]interface{ ToBytes() ([]byte, error) }{s.hi.empty, s.hi.accurate} {
		b, err := bm.ToBytes()
		if err != nil {
			return dst, fmt.Errorf("shuffle: serializing a bitmap of map id %d: %w", s.mapID, err)
		}
		dst = binary.AppendUvarint(dst, uint64(len(b)))
		dst = append(dst, b...)
	}
	return append(dst, s.hi.accSizes...), nil
}

// internTable remembers the locations written so far in a fixed table:
// 4,096 sets of two slots, a location's set chosen by its hash, the older
// of the two giving way to a new location. A location pushed out is
// written again if it comes back (the decoder takes repeats), which
// needs more than 4,096 workers interleaved, or three that share a set;
// below that each location is written once. A Go map of every location
// was a third of the serialization time at 10 blocks per status in
// Spark's benchmark, which gives each of 200,000 maps its own host. A
// slot keeps its location's hash, so a lookup compares strings only when
// the hashes agree (the strings are spread over the heap: comparing
// each new location with the two in its set was a tenth of the time).
type internTable struct {
	seed  maphash.Seed
	sets  [][2]internSlot
	clock uint64
}

type internSlot struct {
	hash uint64
	loc  string
	idx  uint64
	used uint64 // clock at the last hit or put; 0: empty
}

const internSets = 4096

// intern returns loc's number, or when the table does not hold it puts
// it with the number next and reports it new.
func (t *internTable) intern(loc string, next uint64) (idx uint64, isNew bool) {
	if t.sets == nil {
		t.seed = maphash.MakeSeed()
		t.sets = make([][2]internSlot, internSets)
	}
	h := maphash.String(t.seed, loc)
	set := &t.sets[h%internSets]
	t.clock++
	for i := range set {
		if set[i].hash == h && set[i].used != 0 && set[i].loc == loc {
			set[i].used = t.clock
			return set[i].idx, false
		}
	}
	old := 0
	if set[1].used < set[0].used {
		old = 1
	}
	set[old] = internSlot{hash: h, loc: loc, idx: next, used: t.clock}
	return next, true
}
