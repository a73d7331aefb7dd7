package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/zeebo/xxh3"

	"github.com/quiverdb/quiver/batch"
	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/hll"
)

// Manifest format (doc.go draws it).
const (
	manifestMagic   = "QVMF"
	manifestVersion = 2 // 1 had no sketches; Open reads both
	// maxManifest bounds the bytes Open reads for one manifest.
	maxManifest = 1 << 30
)

// manifest is one table as its manifest file records it: the cache's
// image of the table without chunk bytes, plus where each batch's chunks
// lie.
type manifest struct {
	id      uint64 // in the file names: t<id>.manifest, t<id>-<seq>.chunks
	nextSeq uint64 // the seq of the next chunk file
	img     cache.Image
	files   []fileRef  // chunk files, in seq order
	locs    []batchLoc // per img.Batches entry
}

// fileRef is one chunk file a manifest names, and its exact length.
type fileRef struct {
	seq  uint64
	size int64
}

// batchLoc is where a batch's chunks start: file index into files, byte
// offset of its first chunk; the chunks follow back to back, their lengths
// being the batch's Sizes.
type batchLoc struct {
	file   int
	offset int64
}

// ErrCorrupt matches the errors of files whose bytes fail their checks.
var ErrCorrupt = errors.New("store: corrupt file")

func corrupt(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, args...))
}

// encode returns the manifest's bytes.
func (m *manifest) encode() ([]byte, error) {
	img := &m.img
	input, err := schemaBytes(img.Input)
	if err != nil {
		return nil, fmt.Errorf("store: table %q: input schema: %w", img.Name, err)
	}
	stored, err := schemaBytes(img.Schema)
	if err != nil {
		return nil, fmt.Errorf("store: table %q: stored schema: %w", img.Name, err)
	}
	b := append([]byte(manifestMagic), manifestVersion)
	b = appendString(b, img.Name)
	b = binary.AppendUvarint(b, m.id)
	b = binary.AppendUvarint(b, m.nextSeq)
	b = appendString(b, string(input))
	b = appendString(b, string(stored))
	b = appendString(b, img.Codec.String())
	b = append(b, b2u(img.Encodings))
	b = binary.AppendUvarint(b, uint64(len(img.Columns)))
	for _, c := range img.Columns {
		b = appendString(b, c.Codec.String())
		b = appendString(b, c.Dictionary)
		b = appendSketch(b, c.Sketch)
	}
	// Encoding names repeat in every batch: a table of them, then indices.
	var names []string
	index := map[string]uint64{}
	for _, bi := range img.Batches {
		for _, n := range bi.Encodings {
			if _, ok := index[n]; !ok {
				index[n] = uint64(len(names))
				names = append(names, n)
			}
		}
	}
	b = binary.AppendUvarint(b, uint64(len(names)))
	for _, n := range names {
		b = appendString(b, n)
	}
	b = binary.AppendUvarint(b, uint64(len(m.files)))
	for _, f := range m.files {
		b = binary.AppendUvarint(b, f.seq)
		b = binary.AppendUvarint(b, uint64(f.size))
	}
	b = binary.AppendUvarint(b, uint64(len(img.Batches)))
	for i, bi := range img.Batches {
		b = binary.AppendUvarint(b, uint64(m.locs[i].file))
		b = binary.AppendUvarint(b, uint64(m.locs[i].offset))
		b = binary.AppendUvarint(b, uint64(bi.Rows))
		for c := range img.Columns {
			b = binary.AppendUvarint(b, uint64(bi.Sizes[c]))
			b = binary.AppendUvarint(b, uint64(bi.Decoded[c]))
			b = binary.AppendUvarint(b, index[bi.Encodings[c]])
			b = appendStats(b, bi.Stats[c])
		}
	}
	return binary.LittleEndian.AppendUint32(b, uint32(xxh3.Hash(b))), nil
}

// appendSketch writes a column's distinct-count sketch as a string of its
// bytes (package hll's format), empty when the column has none.
func appendSketch(b []byte, s *hll.Sketch) []byte {
	if s == nil {
		return append(b, 0)
	}
	sk := s.AppendBinary(nil)
	b = binary.AppendUvarint(b, uint64(len(sk)))
	return append(b, sk...)
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func b2u(v bool) byte {
	if v {
		return 1
	}
	return 0
}

func appendStats(b []byte, s cache.ColumnStats) []byte {
	b = binary.AppendUvarint(b, uint64(s.Nulls))
	b = append(b, b2u(s.HasBounds))
	if s.HasBounds {
		b = appendValue(b, s.Min)
		b = appendValue(b, s.Max)
	}
	return b
}

func appendValue(b []byte, v cache.Value) []byte {
	b = append(b, byte(v.Kind))
	switch v.Kind {
	case cache.KindBool, cache.KindUint:
		b = binary.AppendUvarint(b, v.U)
	case cache.KindInt:
		b = binary.AppendVarint(b, v.I)
	case cache.KindFloat:
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v.F))
	case cache.KindBytes, cache.KindDecimal:
		b = appendString(b, v.S)
	}
	return b
}

// schemaBytes is the Arrow IPC stream of a schema alone.
func schemaBytes(s *arrow.Schema) ([]byte, error) {
	var buf bytes.Buffer
	w := ipc.NewWriter(&buf, ipc.WithSchema(s))
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// parseSchema reads a schema with the batch layer's reader, which checks
// every length before it trusts it (arrow-go's panics on bad bytes).
func parseSchema(b []byte) (*arrow.Schema, error) {
	r, err := batch.NewStreamReader(bytes.NewReader(b), batch.ReadOptions{})
	if err != nil {
		return nil, err
	}
	defer r.Release()
	return r.Schema(), nil
}

// decodeManifest checks a manifest's magic, version and checksum, then
// reads it, every count and length checked against the bytes left.
func decodeManifest(b []byte) (*manifest, error) {
	if len(b) < len(manifestMagic)+1+4 {
		return nil, corrupt("manifest of %d bytes, shorter than its header and checksum", len(b))
	}
	body := b[:len(b)-4]
	if got, want := uint32(xxh3.Hash(body)), binary.LittleEndian.Uint32(b[len(body):]); got != want {
		return nil, corrupt("manifest checksum %08x, the file records %08x (torn or damaged)", got, want)
	}
	if string(body[:4]) != manifestMagic {
		return nil, corrupt("manifest magic %q, want %q", body[:4], manifestMagic)
	}
	version := body[4]
	if version != 1 && version != manifestVersion {
		return nil, corrupt("manifest format version %d, this build reads 1 and %d", version, manifestVersion)
	}
	r := &reader{b: body[5:]}
	m := &manifest{}
	img := &m.img
	img.Name = r.string()
	m.id = r.uint(math.MaxInt64)
	m.nextSeq = r.uint(math.MaxInt64)
	input, stored := r.bytes(), r.bytes()
	codecText := r.string()
	img.Encodings = r.byte() == 1
	img.Columns = make([]cache.ColumnImage, r.count())
	for i := range img.Columns {
		text := r.string()
		img.Columns[i].Dictionary = r.string()
		if version >= 2 {
			img.Columns[i].Sketch = r.sketch(i)
		}
		if r.err == nil {
			s, err := codec.ParseSetting(text)
			if err != nil {
				return nil, corrupt("column %d codec %q: %v", i, text, err)
			}
			img.Columns[i].Codec = s
		}
	}
	names := make([]string, r.count())
	for i := range names {
		names[i] = r.string()
	}
	m.files = make([]fileRef, r.count())
	for i := range m.files {
		m.files[i] = fileRef{seq: r.uint(math.MaxInt64), size: int64(r.uint(math.MaxInt64))}
	}
	n := len(img.Columns)
	nb := r.count()
	if n > 0 && nb > len(r.b)/n { // each batch column takes bytes
		return nil, corrupt("manifest claims %d batches of %d columns in %d bytes", nb, n, len(r.b))
	}
	img.Batches = make([]cache.BatchImage, nb)
	m.locs = make([]batchLoc, nb)
	for i := range img.Batches {
		bi := &img.Batches[i]
		m.locs[i] = batchLoc{file: r.index(len(m.files), "chunk file"), offset: int64(r.uint(math.MaxInt64))}
		bi.Rows = int64(r.uint(math.MaxInt32))
		bi.Sizes, bi.Decoded = make([]int64, n), make([]int64, n)
		bi.Encodings, bi.Stats = make([]string, n), make([]cache.ColumnStats, n)
		for c := range n {
			bi.Sizes[c] = int64(r.uint(math.MaxInt64))
			bi.Decoded[c] = int64(r.uint(math.MaxInt64))
			if k := r.index(len(names), "encoding name"); r.err == nil {
				bi.Encodings[c] = names[k]
			}
			bi.Stats[c] = r.stats(bi.Rows)
		}
	}
	if r.err != nil {
		return nil, r.err
	}
	if len(r.b) != 0 {
		return nil, corrupt("manifest has %d bytes after its last batch", len(r.b))
	}
	var err error
	if img.Codec, err = cache.ParseCodecSetting(codecText); err != nil {
		return nil, corrupt("table codec: %v", err)
	}
	if img.Input, err = parseSchema(input); err != nil {
		return nil, corrupt("input schema: %v", err)
	}
	if img.Schema, err = parseSchema(stored); err != nil {
		return nil, corrupt("stored schema: %v", err)
	}
	if img.Schema.NumFields() != n || img.Input.NumFields() != n {
		return nil, corrupt("manifest has %d columns, its schemas %d and %d fields", n, img.Input.NumFields(), img.Schema.NumFields())
	}
	return m, nil
}

// reader reads a manifest body; the first failure sticks.
type reader struct {
	b   []byte
	err error
}

func (r *reader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = corrupt(format, args...)
	}
}

func (r *reader) byte() byte {
	if r.err != nil || len(r.b) == 0 {
		r.fail("manifest cut off")
		return 0
	}
	v := r.b[0]
	r.b = r.b[1:]
	return v
}

// uint reads a uvarint no larger than limit.
func (r *reader) uint(limit uint64) uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail("manifest cut off or malformed")
		return 0
	}
	if v > limit {
		r.fail("manifest field %d over its limit %d", v, int64(limit))
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) varint() int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.fail("manifest cut off or malformed")
		return 0
	}
	r.b = r.b[n:]
	return v
}

// index reads an index into a list of n.
func (r *reader) index(n int, what string) int {
	if n == 0 && r.err == nil {
		r.fail("manifest refers to a %s in an empty list", what)
	}
	if r.err != nil {
		return 0
	}
	return int(r.uint(uint64(n - 1)))
}

// count reads a count of elements of at least one byte each: no more
// than the bytes left after it.
func (r *reader) count() int {
	n := r.uint(math.MaxInt64)
	if r.err == nil && n > uint64(len(r.b)) {
		r.fail("manifest claims %d elements in the %d bytes left", n, len(r.b))
		return 0
	}
	return int(n)
}

func (r *reader) bytes() []byte {
	n := r.count()
	if r.err != nil {
		return nil
	}
	v := r.b[:n:n]
	r.b = r.b[n:]
	return v
}

func (r *reader) string() string { return string(r.bytes()) }

// sketch reads column i's sketch; nil when the manifest has none.
func (r *reader) sketch(i int) *hll.Sketch {
	b := r.bytes()
	if r.err != nil || len(b) == 0 {
		return nil
	}
	s, err := hll.Parse(b)
	if err != nil {
		r.fail("column %d distinct-count sketch: %v", i, err)
		return nil
	}
	return s
}

func (r *reader) stats(rows int64) cache.ColumnStats {
	s := cache.ColumnStats{Rows: rows, Nulls: int64(r.uint(uint64(rows)))}
	if s.HasBounds = r.byte() == 1; s.HasBounds {
		s.Min, s.Max = r.value(), r.value()
	}
	return s
}

func (r *reader) value() cache.Value {
	v := cache.Value{Kind: cache.Kind(r.byte())}
	switch v.Kind {
	case cache.KindNull:
	case cache.KindBool:
		v.U = r.uint(1)
	case cache.KindUint:
		v.U = r.uint(math.MaxUint64)
	case cache.KindInt:
		v.I = r.varint()
	case cache.KindFloat:
		if len(r.b) < 8 {
			r.fail("manifest cut off in a float")
			return v
		}
		v.F = math.Float64frombits(binary.LittleEndian.Uint64(r.b))
		r.b = r.b[8:]
	case cache.KindBytes, cache.KindDecimal:
		v.S = r.string()
	default:
		r.fail("statistic of unknown kind %d", v.Kind)
	}
	return v
}
