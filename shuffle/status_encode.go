package shuffle

import (
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"slices"

	"github.com/quiverdb/quiver/codec"
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
	body, err := newBody(statuses, partitions)
	if err != nil {
		return dst, err
	}
	dst = append(dst, byte(FormatV1), byte(c.Kind))
	dst = binary.AppendUvarint(dst, uint64(body.len()))
	return appendCompressed(dst, body, compress), nil
}

// body is the uncompressed body without its size bytes, most of it at
// 1,000 blocks per status (200 MB in Spark's benchmark): those stay in
// the statuses, and each segment is copied from them into a scratch
// buffer of its compressing goroutine, so the body is never built whole
// (building it was a third of the serialization's CPU samples: clearing and
// filling 200 MB that are read once).
type body struct {
	head  []byte       // the counts, section lengths and sections before the sizes
	sizes []*MapStatus // the compressed statuses, whose size bytes follow head
	per   int          // size bytes per status: the partitions
	tail  []byte       // the sections after the sizes
}

func (b *body) len() int { return len(b.head) + len(b.sizes)*b.per + len(b.tail) }

// read fills dst with the body's bytes from off.
func (b *body) read(dst []byte, off int) {
	for len(dst) > 0 {
		switch sizesAt := len(b.head); {
		case off < sizesAt:
			n := copy(dst, b.head[off:])
			dst, off = dst[n:], off+n
		case off < sizesAt+len(b.sizes)*b.per:
			i := (off - sizesAt) / b.per
			n := copy(dst, b.sizes[i].sizes[(off-sizesAt)%b.per:])
			dst, off = dst[n:], off+n
		default:
			n := copy(dst, b.tail[off-sizesAt-len(b.sizes)*b.per:])
			dst, off = dst[n:], off+n
		}
	}
}

// appendBody appends the uncompressed body (tests; AppendStatuses reads
// it segment by segment).
func appendBody(dst []byte, statuses []*MapStatus, partitions int) ([]byte, error) {
	b, err := newBody(statuses, partitions)
	if err != nil {
		return dst, err
	}
	at := len(dst)
	dst = append(dst, make([]byte, b.len())...)
	b.read(dst[at:], 0)
	return dst, nil
}

// newBody builds the body's sections.
func newBody(statuses []*MapStatus, partitions int) (*body, error) {
	var sec [numSections][]byte
	compressed := 0
	for _, s := range statuses {
		if s != nil && s.kind == KindCompressed {
			compressed++
		}
	}
	// The size bytes, most of a 200 MB body at 1,000 blocks, stay in the
	// statuses (body.read).
	sizesLen := compressed * partitions
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
		if s.partitions != partitions {
			return nil, fmt.Errorf("shuffle: status of map %d (id %d) has %d partitions, the shuffle %d", m, s.mapID, s.partitions, partitions)
		}
		sec[secKinds][m] = byte(s.kind)
		idx, ok := prevIdx, s.location == lastLoc && havePrev // a worker's maps often come in a row
		if !ok {
			idx, ok = locs.find(s.location)
		}
		if !ok {
			idx = nlocs
			nlocs++
			locs.put(s.location, idx)
			sec[secLocHeads], sec[secLocMids] = appendLocation(sec[secLocHeads], sec[secLocMids], prevLoc, s.location)
			prevLoc = s.location
		}
		sec[secMapIDs] = binary.AppendVarint(sec[secMapIDs], s.mapID-prevID)
		sec[secLocIdx] = binary.AppendVarint(sec[secLocIdx], int64(idx-prevIdx))
		prevID, prevIdx, lastLoc, havePrev = s.mapID, idx, s.location, true
		if s.kind == KindHighlyCompressed {
			at := len(sec[secHighly])
			var err error
			if sec[secHighly], err = s.appendHighly(sec[secHighly]); err != nil {
				return nil, err
			}
			sec[secHighLens] = binary.AppendUvarint(sec[secHighLens], uint64(len(sec[secHighly])-at))
		}
	}
	b := &body{per: partitions, sizes: make([]*MapStatus, 0, compressed)}
	for _, s := range statuses {
		if s != nil && s.kind == KindCompressed {
			b.sizes = append(b.sizes, s)
		}
	}
	head := 0
	for _, x := range sec[:secSizes] {
		head += len(x)
	}
	dst := make([]byte, 0, head+(3+numSections)*binary.MaxVarintLen64)
	dst = binary.AppendUvarint(dst, uint64(len(statuses)))
	dst = binary.AppendUvarint(dst, uint64(partitions))
	dst = binary.AppendUvarint(dst, nlocs)
	for i, x := range sec {
		if i == secSizes {
			dst = binary.AppendUvarint(dst, uint64(sizesLen))
			continue
		}
		dst = binary.AppendUvarint(dst, uint64(len(x)))
	}
	for _, x := range sec[:secSizes] {
		dst = append(dst, x...)
	}
	b.head = dst
	b.tail = slices.Concat(sec[secSizes+1:]...)
	return b, nil
}

// appendLocation writes cur as the length of the prefix it shares with
// prev, the length of the suffix it shares with the rest of prev, and the
// middle: "node12346.example:1000" after "node12345.example:1000" costs
// (8, 13, 1) and "6".
func appendLocation(heads, mids []byte, prev, cur string) ([]byte, []byte) {
	p := 0
	for p < len(prev) && p < len(cur) && prev[p] == cur[p] {
		p++
	}
	s := 0
	for s < len(prev)-p && s < len(cur)-p && prev[len(prev)-1-s] == cur[len(cur)-1-s] {
		s++
	}
	mid := cur[p : len(cur)-s]
	heads = binary.AppendUvarint(heads, uint64(p))
	heads = binary.AppendUvarint(heads, uint64(s))
	heads = binary.AppendUvarint(heads, uint64(len(mid)))
	return heads, append(mids, mid...)
}

// appendHighly appends a highly compressed record: average, empty bitmap,
// accurate bitmap (both in the portable roaring format, each after its
// length), then the accurate blocks' size bytes, which end the record.
func (s *MapStatus) appendHighly(dst []byte) ([]byte, error) {
	dst = binary.AppendUvarint(dst, uint64(s.avg))
	for _, bm := range [...]interface{ ToBytes() ([]byte, error) }{s.empty, s.accurate} {
		b, err := bm.ToBytes()
		if err != nil {
			return dst, fmt.Errorf("shuffle: serializing a bitmap of map id %d: %w", s.mapID, err)
		}
		dst = binary.AppendUvarint(dst, uint64(len(b)))
		dst = append(dst, b...)
	}
	return append(dst, s.accSizes...), nil
}

// internTable remembers the locations written so far in a fixed table:
// 4,096 sets of two slots, a location's set chosen by its hash, the older
// of the two giving way to a new location. A location pushed out is
// written again if it comes back (the decoder takes repeats), which
// needs more than 4,096 workers interleaved, or three that share a set;
// below that each location is written once. A Go map of every location
// was a third of the serialization time at 10 blocks per status in
// Spark's benchmark, which gives each of 200,000 maps its own host.
type internTable struct {
	seed  maphash.Seed
	sets  [][2]internSlot
	clock uint64
}

type internSlot struct {
	loc  string
	idx  uint64
	used uint64 // clock at the last hit or put; 0: empty
}

const internSets = 4096

func (t *internTable) set(loc string) *[2]internSlot {
	if t.sets == nil {
		t.seed = maphash.MakeSeed()
		t.sets = make([][2]internSlot, internSets)
	}
	return &t.sets[maphash.String(t.seed, loc)%internSets]
}

func (t *internTable) find(loc string) (uint64, bool) {
	set := t.set(loc)
	for i := range set {
		if set[i].used != 0 && set[i].loc == loc {
			t.clock++
			set[i].used = t.clock
			return set[i].idx, true
		}
	}
	return 0, false
}

func (t *internTable) put(loc string, idx uint64) {
	set := t.set(loc)
	old := 0
	if set[1].used < set[0].used {
		old = 1
	}
	t.clock++
	set[old] = internSlot{loc: loc, idx: idx, used: t.clock}
}
