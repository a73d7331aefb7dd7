package store

import (
	"encoding/binary"
	"errors"
	"math"
	"reflect"
	"testing"

	"github.com/zeebo/xxh3"

	"github.com/quiverdb/quiver/cache"
)

// testManifest is the manifest of a two-batch table with statistics of
// every value kind.
func testManifest(t testing.TB) *manifest {
	mem := checked(t)
	c := newCache(t, mem)
	r := batches(mem, 1, 2, 100)
	defer r.Release()
	ch, err := c.PreparePut(t.Context(), "t", r, cache.TableOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer ch.Abort()
	m := &manifest{id: 7, nextSeq: 3, img: ch.Image(), files: []fileRef{{seq: 1, size: 1000}, {seq: 2, size: 2000}}}
	m.img.Batches[1].Stats[2] = cache.ColumnStats{Rows: 100, Nulls: 3, HasBounds: true, Min: cache.Float(math.Inf(-1)), Max: cache.Float(math.NaN())}
	m.img.Batches[1].Stats[0] = cache.ColumnStats{Rows: 100, HasBounds: true, Min: cache.Uint(0), Max: cache.Uint(math.MaxUint64)}
	m.img.Batches[0].Stats[0] = cache.ColumnStats{Rows: 100, HasBounds: true, Min: cache.Bool(false), Max: cache.Bool(true)}
	m.img.Batches[0].Stats[2] = cache.ColumnStats{Rows: 100, HasBounds: true, Min: cache.Int(math.MinInt64), Max: cache.Value{Kind: cache.KindDecimal, S: "\x80\x01"}}
	for i := range m.img.Batches {
		b := &m.img.Batches[i]
		b.Sizes = make([]int64, len(b.Chunks))
		for c, chunk := range b.Chunks {
			b.Sizes[c] = int64(len(chunk))
		}
		b.Chunks = nil
		m.locs = append(m.locs, batchLoc{file: i, offset: 5 + int64(i)})
	}
	return m
}

// TestManifestRoundTrip: what encode writes decode reads back.
func TestManifestRoundTrip(t *testing.T) {
	m := testManifest(t)
	raw, err := m.encode()
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodeManifest(raw)
	if err != nil {
		t.Fatal(err)
	}
	if !got.img.Input.Equal(m.img.Input) || !got.img.Schema.Equal(m.img.Schema) {
		t.Fatalf("schemas %s / %s, want %s / %s", got.img.Input, got.img.Schema, m.img.Input, m.img.Schema)
	}
	got.img.Input, got.img.Schema, m.img.Input, m.img.Schema = nil, nil, nil, nil
	// NaN != NaN: compare the stats with the NaN replaced on both sides.
	for _, x := range []*manifest{got, m} {
		if f := x.img.Batches[1].Stats[2].Max.F; !math.IsNaN(f) {
			t.Fatalf("NaN bound read back as %v", f)
		}
		x.img.Batches[1].Stats[2].Max.F = 0
	}
	if !reflect.DeepEqual(got, m) {
		t.Fatalf("decoded\n%+v\nwant\n%+v", got, m)
	}
}

// TestManifestCorrupt: every flipped byte and every cut is refused with
// ErrCorrupt (the checksum), and so are bytes with a valid checksum but
// a bad field.
func TestManifestCorrupt(t *testing.T) {
	raw, err := testManifest(t).encode()
	if err != nil {
		t.Fatal(err)
	}
	for i := range raw {
		b := append([]byte(nil), raw...)
		b[i] ^= 0x10
		if _, err := decodeManifest(b); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("byte %d flipped: %v", i, err)
		}
	}
	for n := range len(raw) {
		if _, err := decodeManifest(raw[:n]); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("cut to %d bytes: %v", n, err)
		}
	}
	b := append([]byte(nil), raw[:len(raw)-4]...)
	b[4] = 3 // a version from the future
	if _, err := decodeManifest(binary.LittleEndian.AppendUint32(b, uint32(xxh3.Hash(b)))); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("version 3: %v", err)
	}
	// A sketch with a register past its largest value, under a valid
	// checksum.
	r := &reader{b: appendString(nil, "\x01\x0c\x02\x01\x05\x40")}
	if s := r.sketch(0); s != nil || !errors.Is(r.err, ErrCorrupt) {
		t.Fatalf("bad sketch read as %v, error %v", s, r.err)
	}
}

// FuzzDecodeManifest: bytes with a valid checksum but anything else never
// panic, and what decodes encodes to the same bytes.
func FuzzDecodeManifest(f *testing.F) {
	raw, err := testManifest(f).encode()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(raw[:len(raw)-4])
	f.Add([]byte("QVMF\x01"))
	f.Add([]byte("QVMF\x02"))
	f.Fuzz(func(t *testing.T, body []byte) {
		b := binary.LittleEndian.AppendUint32(append([]byte(nil), body...), uint32(xxh3.Hash(body)))
		m, err := decodeManifest(b)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error %v does not match ErrCorrupt", err)
			}
			return
		}
		if _, err := m.encode(); err != nil {
			t.Fatalf("decoded manifest does not encode: %v", err)
		}
	})
}
