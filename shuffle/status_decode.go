package shuffle

import (
	"encoding/binary"
	"fmt"
	"math"
	"sync/atomic"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/internal/rawmem"
)

// DecodeLimits bound what DecodeStatuses accepts from bytes it did not
// write. The zero value is the defaults.
type DecodeLimits struct {
	// MaxMaps: map tasks. 0 means 16,777,216.
	MaxMaps int
	// MaxPartitions: blocks per map task. 0 means 16,777,216.
	MaxPartitions int
	// MaxBytes: the uncompressed body. 0 means 1 GiB (200,000 maps × 1,000
	// blocks is 200 MB).
	MaxBytes int64
	// MaxLocationBytes: all distinct locations together (a location may
	// repeat most of the one before it in a few bytes, so this is checked
	// separately). 0 means 64 MiB.
	MaxLocationBytes int64
}

func (l DecodeLimits) norm() DecodeLimits {
	if l.MaxMaps <= 0 {
		l.MaxMaps = 1 << 24
	}
	if l.MaxPartitions <= 0 {
		l.MaxPartitions = 1 << 24
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = 1 << 30
	}
	if l.MaxLocationBytes <= 0 {
		l.MaxLocationBytes = 64 << 20
	}
	return l
}

// Statuses is a decoded view of serialized statuses. Everything was
// checked when it was decoded; the compressed statuses' size bytes are
// read where they lie, and no MapStatus is built until Status asks for
// one. It is immutable and safe for concurrent use.
type Statuses struct {
	maps, partitions int
	kinds            []byte
	ids              []int64
	locIdx           []uint32
	locs             []string
	ordinal          []uint32 // per map: its row in sizes or its entry in highly
	sizes            []byte   // compressed statuses' bytes, row after row
	highly           []highly
	built            []atomic.Pointer[[statusBatch]MapStatus] // Status's, per batch of maps
}

// statusBatch is how many MapStatus values Status builds at once, in one
// allocation: one per status was most of the time of building all
// 200,000 of Spark's benchmark (an allocation, its zeroing and the
// collector's scan of each). A status kept keeps its batch (28 KiB)
// alive, as it keeps the decoded body its size bytes point into.
const statusBatch = 256

// DecodeStatuses decodes what AppendStatuses wrote. b is untrusted:
// lengths and counts are checked against lim before they size anything,
// and bad bytes fail with an error matching ErrCorrupt (or ErrLimit).
func DecodeStatuses(b []byte, lim DecodeLimits) (*Statuses, error) {
	lim = lim.norm()
	if len(b) < 2 {
		return nil, corruptf("statuses: %d bytes, shorter than the 2-byte header", len(b))
	}
	if v := FormatVersion(b[0]); v != FormatV1 {
		return nil, corruptf("statuses: format %s, this reader knows %s", v, FormatV1)
	}
	kind := codec.Kind(b[1])
	if kind > codec.Zstd {
		return nil, corruptf("statuses: unknown codec %d", b[1])
	}
	n, w := binary.Uvarint(b[2:])
	if w <= 0 {
		return nil, corruptf("statuses: bad body length")
	}
	if n > uint64(lim.MaxBytes) {
		return nil, limitf("statuses: body of %d bytes, DecodeLimits.MaxBytes is %d", n, lim.MaxBytes)
	}
	c, err := codec.New(codec.Setting{Kind: kind})
	if err != nil {
		return nil, corruptf("statuses: codec %d: %v", b[1], err)
	}
	raw, err := decompressSegments(b[2+w:], c, int(n))
	if err != nil {
		return nil, err
	}
	return decodeBody(raw, lim)
}

// reader reads uvarints from a section, failing once.
type reader struct {
	b   []byte
	err error
}

// uvarint and varint read a one-byte varint (most of them) inline; a
// reader that failed has no bytes left, so it takes the slow path.
func (r *reader) uvarint(what string) uint64 {
	if b := r.b; len(b) > 0 && b[0] < 0x80 {
		r.b = b[1:]
		return uint64(b[0])
	}
	return r.uvarintSlow(what)
}

func (r *reader) uvarintSlow(what string) uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err, r.b = corruptf("statuses: bad varint in %s", what), nil
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) varint(what string) int64 {
	if b := r.b; len(b) > 0 && b[0] < 0x80 {
		r.b = b[1:]
		return int64(b[0]>>1) ^ -int64(b[0]&1)
	}
	return r.varintSlow(what)
}

func (r *reader) varintSlow(what string) int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.err, r.b = corruptf("statuses: bad varint in %s", what), nil
		return 0
	}
	r.b = r.b[n:]
	return v
}

// take returns the next n bytes.
func (r *reader) take(n uint64, what string) []byte {
	if r.err != nil {
		return nil
	}
	if n > uint64(len(r.b)) {
		r.err, r.b = corruptf("statuses: %s of %d bytes, %d left", what, n, len(r.b)), nil
		return nil
	}
	out := r.b[:n:n]
	r.b = r.b[n:]
	return out
}

var sectionNames = [numSections]string{"location heads", "location middles", "kinds", "map ids", "location numbers", "sizes", "record lengths", "highly compressed records"}

func decodeBody(raw []byte, lim DecodeLimits) (*Statuses, error) {
	r := &reader{b: raw}
	maps, parts, nlocs := r.uvarint("header"), r.uvarint("header"), r.uvarint("header")
	var sec [numSections][]byte
	var lens [numSections]uint64
	for i := range lens {
		lens[i] = r.uvarint("section lengths")
	}
	for i := range sec {
		sec[i] = r.take(lens[i], sectionNames[i])
	}
	if r.err != nil {
		return nil, r.err
	}
	switch {
	case len(r.b) != 0:
		return nil, corruptf("statuses: %d bytes after the last section", len(r.b))
	case maps > uint64(lim.MaxMaps):
		return nil, limitf("statuses: %d maps, DecodeLimits.MaxMaps is %d", maps, lim.MaxMaps)
	case parts > uint64(lim.MaxPartitions):
		return nil, limitf("statuses: %d partitions, DecodeLimits.MaxPartitions is %d", parts, lim.MaxPartitions)
	case nlocs > maps:
		return nil, corruptf("statuses: %d locations for %d maps", nlocs, maps)
	case uint64(len(sec[secKinds])) != maps:
		return nil, corruptf("statuses: %d kinds for %d maps", len(sec[secKinds]), maps)
	}
	v := &Statuses{maps: int(maps), partitions: int(parts), kinds: sec[secKinds]}
	v.built = make([]atomic.Pointer[[statusBatch]MapStatus], (v.maps+statusBatch-1)/statusBatch)
	var err error
	if v.locs, err = decodeLocations(sec[secLocHeads], sec[secLocMids], int(nlocs), lim); err != nil {
		return nil, err
	}
	if err := v.decodeMaps(sec); err != nil {
		return nil, err
	}
	return v, nil
}

// decodeLocations rebuilds the distinct locations: all of them in one
// string, each a substring of it (Spark's benchmark gives each of
// 200,000 maps its own host: a string apiece was an allocation per map).
// A first pass checks every head against the location before it and
// sums the lengths against MaxLocationBytes (prefix sharing lets a few
// bytes claim many), so the bytes are allocated once, after the checks;
// the second builds them in that buffer, each location copied from the
// one before it (already in the buffer) and its middle.
func decodeLocations(heads, mids []byte, n int, lim DecodeLimits) ([]string, error) {
	rest := heads
	prevLen, total, left := uint64(0), uint64(0), uint64(len(mids))
	for i := 0; i < n; i++ {
		p, s, m, w := locationHead(rest)
		if w == 0 {
			return nil, corruptf("statuses: bad varint in location heads")
		}
		rest = rest[w:]
		if p > prevLen || s > prevLen-p {
			return nil, corruptf("statuses: location %d shares %d+%d bytes of a %d-byte one", i, p, s, prevLen)
		}
		if m > left {
			return nil, corruptf("statuses: location %d has a %d-byte middle, %d left", i, m, left)
		}
		left -= m
		prevLen = p + s + m
		if total += prevLen; total > uint64(lim.MaxLocationBytes) {
			return nil, limitf("statuses: locations pass %d bytes (DecodeLimits.MaxLocationBytes) at location %d", lim.MaxLocationBytes, i)
		}
	}
	if len(rest) != 0 || left != 0 {
		return nil, corruptf("statuses: %d + %d bytes after the last location", len(rest), left)
	}
	if total > math.MaxUint32 { // a MaxLocationBytes past 4 GiB
		return nil, limitf("statuses: %d bytes of locations", total)
	}
	buf := make([]byte, 0, total)
	ends := make([]uint32, n)
	prevAt, prevEnd := 0, 0
	for i := range ends {
		p, s, m, w := locationHead(heads)
		heads = heads[w:]
		at := len(buf)
		buf = append(buf, buf[prevAt:prevAt+int(p)]...) // within cap: never moves
		buf = append(buf, mids[:m]...)
		buf = append(buf, buf[prevEnd-int(s):prevEnd]...)
		mids = mids[m:]
		prevAt, prevEnd = at, len(buf)
		ends[i] = uint32(prevEnd)
	}
	all := rawmem.String(buf)
	locs := make([]string, n)
	at := uint32(0)
	for i, end := range ends {
		locs[i], at = all[at:end], end
	}
	return locs, nil
}

// locationHead reads a location head's three uvarints (w is 0 when they
// are bad): one byte each nearly always.
func locationHead(b []byte) (p, s, m uint64, w int) {
	if len(b) >= 3 && (b[0]|b[1]|b[2])&0x80 == 0 {
		return uint64(b[0]), uint64(b[1]), uint64(b[2]), 3
	}
	var x [3]uint64
	for i := range x {
		v, n := binary.Uvarint(b[w:])
		if n <= 0 {
			return 0, 0, 0, 0
		}
		x[i], w = v, w+n
	}
	return x[0], x[1], x[2], w
}

// decodeMaps reads the per-map sections and checks the size sections
// against the kinds.
func (v *Statuses) decodeMaps(sec [numSections][]byte) error {
	ids, idx := &reader{b: sec[secMapIDs]}, &reader{b: sec[secLocIdx]}
	lens := &reader{b: sec[secHighLens]}
	recs := sec[secHighly]
	v.ids = make([]int64, v.maps)
	v.locIdx = make([]uint32, v.maps)
	v.ordinal = make([]uint32, v.maps)
	var id, li int64
	rows := 0
	for m, k := range v.kinds {
		switch StatusKind(k) {
		case KindMissing:
			continue
		case KindCompressed:
			v.ordinal[m] = uint32(rows)
			rows++
		case KindHighlyCompressed:
			n := lens.uvarint("record lengths")
			if lens.err != nil {
				return lens.err
			}
			if n > uint64(len(recs)) {
				return corruptf("statuses: map %d's record of %d bytes, %d left", m, n, len(recs))
			}
			h, err := decodeHighly(recs[:n], v.partitions)
			if err != nil {
				return fmt.Errorf("%w (map %d)", err, m)
			}
			recs = recs[n:]
			v.ordinal[m] = uint32(len(v.highly))
			v.highly = append(v.highly, h)
		default:
			return corruptf("statuses: map %d has kind %d", m, k)
		}
		id += ids.varint("map ids")
		li += idx.varint("location numbers")
		if ids.err != nil || idx.err != nil {
			return corruptf("statuses: map ids or location numbers end before map %d", m)
		}
		if li < 0 || li >= int64(len(v.locs)) {
			return corruptf("statuses: map %d at location %d of %d", m, li, len(v.locs))
		}
		v.ids[m], v.locIdx[m] = id, uint32(li)
	}
	switch {
	case len(ids.b)+len(idx.b)+len(lens.b)+len(recs) != 0:
		return corruptf("statuses: bytes left after the last map (ids %d, locations %d, record lengths %d, records %d)", len(ids.b), len(idx.b), len(lens.b), len(recs))
	case uint64(len(sec[secSizes])) != uint64(rows)*uint64(v.partitions):
		return corruptf("statuses: %d size bytes for %d compressed statuses of %d partitions", len(sec[secSizes]), rows, v.partitions)
	}
	v.sizes = sec[secSizes]
	return nil
}

// decodeHighly reads one highly compressed record.
func decodeHighly(b []byte, partitions int) (highly, error) {
	r := &reader{b: b}
	h := highly{partitions: partitions, avg: int64(r.uvarint("record"))}
	var bms [2]*roaring.Bitmap
	for i := range bms {
		n := r.uvarint("record")
		bb := r.take(n, "bitmap")
		if r.err != nil {
			return h, r.err
		}
		bms[i] = roaring.New()
		if _, err := bms[i].FromBuffer(bb); err != nil {
			return h, corruptf("statuses: bitmap: %v", err)
		}
		if err := bms[i].Validate(); err != nil {
			return h, corruptf("statuses: bitmap: %v", err)
		}
		if !bms[i].IsEmpty() && bms[i].Maximum() >= uint32(partitions) {
			return h, corruptf("statuses: bitmap holds block %d of %d", bms[i].Maximum(), partitions)
		}
	}
	h.empty, h.accurate, h.accSizes = bms[0], bms[1], r.b
	switch {
	case h.avg > 1<<50:
		return h, corruptf("statuses: average block size %d", h.avg)
	case uint64(len(h.accSizes)) != h.accurate.GetCardinality():
		return h, corruptf("statuses: %d size bytes for %d accurate blocks", len(h.accSizes), h.accurate.GetCardinality())
	case h.empty.Intersects(h.accurate):
		return h, corruptf("statuses: a block is both empty and accurate")
	case h.avg == 0 && h.empty.GetCardinality()+h.accurate.GetCardinality() != uint64(partitions):
		return h, corruptf("statuses: average 0 for non-empty blocks")
	}
	for _, s := range h.accSizes {
		if s == 0 {
			return h, corruptf("statuses: an accurate block of size 0")
		}
	}
	return h, nil
}

// Maps returns the number of map tasks (statuses, missing ones included).
func (v *Statuses) Maps() int { return v.maps }

// Partitions returns the number of blocks per map task.
func (v *Statuses) Partitions() int { return v.partitions }

// Kind returns map m's kind (KindMissing when it has no status).
func (v *Statuses) Kind(m int) StatusKind { return StatusKind(v.kinds[m]) }

// Size returns the estimated size of block p of map m (0 for a missing
// status), as MapStatus.Size.
func (v *Statuses) Size(m, p int) int64 {
	switch StatusKind(v.kinds[m]) {
	case KindCompressed:
		return DecompressSize(v.sizes[int(v.ordinal[m])*v.partitions+p])
	case KindHighlyCompressed:
		return v.highly[v.ordinal[m]].size(p)
	}
	return 0
}

// PartitionSizes appends the size of partition p's block of every map to
// dst, map by map: what one reducer reads, without touching the other
// partitions' bytes.
func (v *Statuses) PartitionSizes(dst []int64, p int) []int64 {
	for m := range v.kinds {
		dst = append(dst, v.Size(m, p))
	}
	return dst
}

// Status returns map m's status, or nil when it is missing. The first
// call for a map builds the statuses of its batch of statusBatch maps,
// and every call for a map returns the same *MapStatus.
func (v *Statuses) Status(m int) *MapStatus {
	if StatusKind(v.kinds[m]) == KindMissing {
		return nil
	}
	batch := v.built[m/statusBatch].Load()
	if batch == nil {
		batch = v.buildBatch(m / statusBatch)
	}
	return &batch[m%statusBatch]
}

// buildBatch builds the statuses of batch i; when two goroutines race,
// both return the one stored first.
func (v *Statuses) buildBatch(i int) *[statusBatch]MapStatus {
	batch := new([statusBatch]MapStatus)
	for j := range batch {
		m := i*statusBatch + j
		if m >= v.maps {
			break
		}
		kind := StatusKind(v.kinds[m])
		if kind == KindMissing {
			continue
		}
		s := &batch[j]
		s.location, s.mapID, s.kind = v.locs[v.locIdx[m]], v.ids[m], kind
		if kind == KindCompressed {
			row := int(v.ordinal[m]) * v.partitions
			s.sizes = v.sizes[row : row+v.partitions : row+v.partitions]
		} else {
			s.hi = &v.highly[v.ordinal[m]]
		}
	}
	if v.built[i].CompareAndSwap(nil, batch) {
		return batch
	}
	return v.built[i].Load()
}
