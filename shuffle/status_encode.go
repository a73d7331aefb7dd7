package shuffle

import (
	"encoding/binary"
	"fmt"

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
// task, nil where a map has no status) to dst, compressed with c. Every
// status must have partitions blocks. Locations are interned: each
// distinct string is written once, front- and back-coded against the one
// before it.
func AppendStatuses(dst []byte, statuses []*MapStatus, partitions int, c codec.Codec) ([]byte, error) {
	raw, err := appendBody(nil, statuses, partitions)
	if err != nil {
		return dst, err
	}
	dst = append(dst, byte(FormatV1), byte(c.Setting().Kind))
	dst = binary.AppendUvarint(dst, uint64(len(raw)))
	return c.Compress(dst, raw), nil
}

// appendBody appends the uncompressed body.
func appendBody(dst []byte, statuses []*MapStatus, partitions int) ([]byte, error) {
	var sec [numSections][]byte
	locs := make(map[string]uint64)
	prevLoc := ""
	var prevID int64
	var prevIdx uint64
	sec[secKinds] = make([]byte, len(statuses))
	for m, s := range statuses {
		if s == nil {
			continue // KindMissing
		}
		if s.partitions != partitions {
			return dst, fmt.Errorf("shuffle: status of map %d (id %d) has %d partitions, the shuffle %d", m, s.mapID, s.partitions, partitions)
		}
		sec[secKinds][m] = byte(s.kind)
		idx, ok := locs[s.location]
		if !ok {
			idx = uint64(len(locs))
			locs[s.location] = idx
			sec[secLocHeads], sec[secLocMids] = appendLocation(sec[secLocHeads], sec[secLocMids], prevLoc, s.location)
			prevLoc = s.location
		}
		sec[secMapIDs] = binary.AppendVarint(sec[secMapIDs], s.mapID-prevID)
		sec[secLocIdx] = binary.AppendVarint(sec[secLocIdx], int64(idx-prevIdx))
		prevID, prevIdx = s.mapID, idx
		switch s.kind {
		case KindCompressed:
			sec[secSizes] = append(sec[secSizes], s.sizes...)
		case KindHighlyCompressed:
			at := len(sec[secHighly])
			var err error
			if sec[secHighly], err = s.appendHighly(sec[secHighly]); err != nil {
				return dst, err
			}
			sec[secHighLens] = binary.AppendUvarint(sec[secHighLens], uint64(len(sec[secHighly])-at))
		}
	}
	dst = binary.AppendUvarint(dst, uint64(len(statuses)))
	dst = binary.AppendUvarint(dst, uint64(partitions))
	dst = binary.AppendUvarint(dst, uint64(len(locs)))
	for _, b := range sec {
		dst = binary.AppendUvarint(dst, uint64(len(b)))
	}
	for _, b := range sec {
		dst = append(dst, b...)
	}
	return dst, nil
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
