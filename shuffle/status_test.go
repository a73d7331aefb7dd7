package shuffle

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"

	"github.com/quiverdb/quiver/codec"
)

// Spark's MapStatusSuite "compressSize" values, each by hand from
// ceil(ln(size) / ln(1.1)): ln 2 / ln 1.1 = 7.27 → 8, ln 10 / ln 1.1 =
// 24.16 → 25, ln 1e6 / ln 1.1 = 144.95 → 145, ln 1e9 / ln 1.1 = 217.4 →
// 218, and 1e18 (434.8) caps at 255.
func TestCompressSize(t *testing.T) {
	for _, c := range []struct {
		size int64
		want byte
	}{{-1, 0}, {0, 0}, {1, 1}, {2, 8}, {10, 25}, {1_000_000, 145}, {1_000_000_000, 218}, {1_000_000_000_000_000_000, 255}} {
		if got := CompressSize(c.size); got != c.want {
			t.Errorf("CompressSize(%d) = %d, want %d", c.size, got, c.want)
		}
	}
	// decompressSize: floor(1.1^b); 1.1^8 = 2.14, 1.1^25 = 10.83.
	for _, c := range []struct {
		b    byte
		want int64
	}{{0, 0}, {1, 1}, {8, 2}, {25, 10}} {
		if got := DecompressSize(c.b); got != c.want {
			t.Errorf("DecompressSize(%d) = %d, want %d", c.b, got, c.want)
		}
	}
}

// Spark's range check: a decoded size is within [0.99, 1.11] of the size,
// here tighter: never below it, at most 10% above.
func TestDecompressSizeWithin10Percent(t *testing.T) {
	for size := int64(1); size < 30_000_000_000; size = size*5/4 + 1 {
		got := DecompressSize(CompressSize(size))
		if got < size || float64(got) > 1.1*float64(size)+1 {
			t.Fatalf("size %d reads back as %d", size, got)
		}
	}
}

// Spark's "never report non-empty blocks' sizes as 0", over both kinds.
func TestNonEmptyNeverZero(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 10, 2000, 2001, 10000} {
		for _, mean := range []float64{0, 100, 1e4, 1 << 31} {
			sizes := make([]int64, n)
			for i := range sizes {
				sizes[i] = max(0, int64(mean+rng.NormFloat64()*mean))
			}
			s := NewMapStatus("w", 1, sizes, StatusConfig{})
			for p, want := range sizes {
				if got := s.Size(p); (got == 0) != (want == 0) {
					t.Fatalf("n=%d mean=%g block %d: size %d reads %d", n, mean, p, want, got)
				}
			}
		}
	}
}

func TestKindByPartitions(t *testing.T) {
	for _, c := range []struct {
		n    int
		want StatusKind
	}{{2000, KindCompressed}, {2001, KindHighlyCompressed}} {
		if k := NewMapStatus("w", 0, make([]int64, c.n), StatusConfig{}).Kind(); k != c.want {
			t.Errorf("%d partitions: %s, want %s", c.n, k, c.want)
		}
	}
	if k := NewMapStatus("w", 0, make([]int64, 5000), StatusConfig{MinPartitionsToHighlyCompress: -1}).Kind(); k != KindCompressed {
		t.Errorf("MinPartitionsToHighlyCompress -1: %s", k)
	}
}

// skewedSizes: 10,000 blocks of 10 KiB but 20 of 50 MiB (under the 100 MiB
// threshold) and 10 empty.
func skewedSizes() []int64 {
	sizes := make([]int64, 10_000)
	for i := range sizes {
		switch {
		case i%500 == 7:
			sizes[i] = 50 << 20
		case i%1000 == 3:
			sizes[i] = 0
		default:
			sizes[i] = 10 << 10
		}
	}
	return sizes
}

// SPARK-48290: with Spark's rule the 50 MiB blocks are reported as the
// average, (9,970 × 10,240 + 20 × 52,428,800) / 9,990 = 1,150,668,800 /
// 9,990 = 115,182 bytes; with
// the average bound they are recorded (≥ 50 MiB, ≤ 55 MiB) and the
// average is the 10 KiB blocks' own.
func TestSkewNotAveragedAway(t *testing.T) {
	sizes := skewedSizes()
	spark := NewMapStatus("w", 0, sizes, StatusConfig{AverageBound: -1})
	if got := spark.Size(7); got != 115_182 {
		t.Fatalf("Spark's rule: skewed block reads %d, want the average 115182", got)
	}
	s := NewMapStatus("w", 0, sizes, StatusConfig{})
	if got := s.Average(); got != 10<<10 {
		t.Errorf("average %d, want 10240", got)
	}
	if s.Accurate() != 20 {
		t.Errorf("%d accurate blocks, want 20", s.Accurate())
	}
	for p, want := range sizes {
		got := s.Size(p)
		if got < want || float64(got) > 1.1*float64(want) {
			t.Fatalf("block %d of %d reads %d", p, want, got)
		}
	}
}

// Spark's skew-aware rule (SPARK-36967), with the average bound off: the
// median of all 10,000 sizes is 10,240, × 5 = 51,200; the 100th largest is
// 10,240; min(100 MiB, max(51,200, 10,240)) = 51,200, so the 20 big blocks
// are recorded and the average is 10,240.
func TestSparkSkewFactor(t *testing.T) {
	s := NewMapStatus("w", 0, skewedSizes(), StatusConfig{AverageBound: -1, SkewFactor: 5})
	if s.Accurate() != 20 || s.Average() != 10<<10 {
		t.Fatalf("accurate %d, average %d; want 20, 10240", s.Accurate(), s.Average())
	}
	// With the cap at 5 blocks: max(51,200, 5th largest = 50 MiB) = 50
	// MiB, and "size >= threshold" still takes all 20 (they tie).
	s = NewMapStatus("w", 0, skewedSizes(), StatusConfig{AverageBound: -1, SkewFactor: 5, MaxAccurateSkewedBlocks: 5})
	if s.Accurate() != 20 {
		t.Fatalf("cap 5: accurate %d, want 20 (ties)", s.Accurate())
	}
}

// Blocks at or past AccurateBlockThreshold are recorded (Spark's "blocks
// which are bigger than SHUFFLE_ACCURATE_BLOCK_THRESHOLD should not be
// underestimated"), and SPARK-22540: the average is over the others.
func TestHugeBlocks(t *testing.T) {
	sizes := make([]int64, 3000)
	for i := range sizes {
		sizes[i] = 1000 + int64(i%3) // 1000, 1001, 1002: average 1001
	}
	sizes[5] = 100 << 20 // exactly the threshold: huge
	sizes[6] = 5 << 30
	s := NewMapStatus("w", 0, sizes, StatusConfig{AverageBound: -1})
	if s.Accurate() != 2 {
		t.Fatalf("accurate %d, want 2", s.Accurate())
	}
	// 2,998 others (sizes[5] was 1002, sizes[6] 1000): 999 × 1000 +
	// 1000 × 1001 + 999 × 1002 = 3,000,998 / 2,998 = 1001.
	if s.Average() != 1001 {
		t.Errorf("average %d, want 1001", s.Average())
	}
	if got := s.Size(6); got < 5<<30 || got > 5<<30*11/10 {
		t.Errorf("5 GiB block reads %d", got)
	}
	s = NewMapStatus("w", 0, sizes, StatusConfig{AverageBound: -1, AccurateBlockThreshold: 1001})
	// ≥ 1001: the 2,000 blocks with i%3 ≠ 0 (sizes[5] among them), and
	// sizes[6].
	if s.Accurate() != 2001 {
		t.Errorf("threshold 1001: accurate %d, want 2001", s.Accurate())
	}
}

func TestAllEmpty(t *testing.T) {
	for _, n := range []int{0, 1, 10, 2001, 50_000} {
		s := NewMapStatus("w", 9, make([]int64, n), StatusConfig{})
		v := roundTrip(t, []*MapStatus{s, nil}, n, codec.Setting{Kind: codec.Zstd, Level: 1})
		for p := range n {
			if s.Size(p) != 0 || v.Size(0, p) != 0 {
				t.Fatalf("n=%d block %d not empty", n, p)
			}
		}
	}
}

func roundTrip(t testing.TB, statuses []*MapStatus, partitions int, c codec.Setting) *Statuses {
	t.Helper()
	b, err := AppendStatuses([]byte("prefix"), statuses, partitions, c)
	if err != nil {
		t.Fatal(err)
	}
	if string(b[:6]) != "prefix" {
		t.Fatalf("prefix overwritten: %q", b[:6])
	}
	v, err := DecodeStatuses(b[6:], DecodeLimits{})
	if err != nil {
		t.Fatal(err)
	}
	checkSame(t, statuses, v)
	return v
}

// checkSame compares every block, id and location of statuses with v.
func checkSame(t testing.TB, statuses []*MapStatus, v *Statuses) {
	t.Helper()
	if v.Maps() != len(statuses) {
		t.Fatalf("%d maps, want %d", v.Maps(), len(statuses))
	}
	for m, s := range statuses {
		got := v.Status(m)
		if s == nil {
			if got != nil || v.Kind(m) != KindMissing {
				t.Fatalf("map %d: want missing, got %s", m, v.Kind(m))
			}
			continue
		}
		if got.MapID() != s.MapID() || got.Location() != s.Location() || got.Kind() != s.Kind() {
			t.Fatalf("map %d: (%d, %q, %s), want (%d, %q, %s)", m, got.MapID(), got.Location(), got.Kind(), s.MapID(), s.Location(), s.Kind())
		}
		for p := range s.Partitions() {
			if a, b, c := s.Size(p), got.Size(p), v.Size(m, p); a != b || a != c {
				t.Fatalf("map %d block %d: %d, decoded %d / %d", m, p, a, b, c)
			}
		}
	}
}

func randomStatuses(rng *rand.Rand, maps, partitions, locations int) []*MapStatus {
	out := make([]*MapStatus, maps)
	for m := range out {
		if rng.IntN(10) == 0 {
			continue
		}
		sizes := make([]int64, partitions)
		for p := range sizes {
			switch rng.IntN(4) {
			case 0:
			case 1:
				sizes[p] = rng.Int64N(1 << 30)
			default:
				sizes[p] = rng.Int64N(1 << 16)
			}
		}
		loc := fmt.Sprintf("worker-%d.example:7000", rng.IntN(locations))
		out[m] = NewMapStatus(loc, int64(m*3+rng.IntN(3)), sizes, StatusConfig{})
	}
	return out
}

func TestStatusesRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	partitions := []int{0, 1, 7, 2000, 2001, 6000}
	if testing.Short() { // CI's race pass: 2001 already takes the highly compressed form
		partitions = partitions[:5]
	}
	for _, parts := range partitions {
		for _, c := range []codec.Setting{{}, {Kind: codec.LZ4}, {Kind: codec.Zstd, Level: 1}} {
			t.Run(fmt.Sprintf("partitions=%d/codec=%s", parts, c), func(t *testing.T) {
				st := randomStatuses(rng, 40, parts, 5)
				v := roundTrip(t, st, parts, c)
				for p := range parts {
					sizes := v.PartitionSizes(nil, p)
					for m, s := range st {
						want := int64(0)
						if s != nil {
							want = s.Size(p)
						}
						if sizes[m] != want {
							t.Fatalf("PartitionSizes(%d)[%d] = %d, want %d", p, m, sizes[m], want)
						}
					}
				}
			})
		}
	}
}

// Locations are interned and front/back coded: 1,000 maps on 4 workers
// spell each worker once, and sequential host names cost a few bytes each.
func TestLocationsInterned(t *testing.T) {
	st := make([]*MapStatus, 1000)
	for m := range st {
		st[m] = NewMapStatus(fmt.Sprintf("a-rather-long-worker-host-name-%d.example.com:7000", m%4), int64(m), []int64{1}, StatusConfig{})
	}
	raw, err := appendBody(nil, st, 1)
	if err != nil {
		t.Fatal(err)
	}
	v := roundTrip(t, st, 1, codec.Setting{})
	if len(v.locs) != 4 {
		t.Fatalf("%d locations, want 4", len(v.locs))
	}
	// 4 locations (49 + 3 × 4 bytes), 1,000 × (kind, size, id delta,
	// location delta) and headers: well under 4,200 bytes.
	if len(raw) > 4200 {
		t.Errorf("body %d bytes", len(raw))
	}
	heads, mids := appendLocation(nil, nil, "node12345.example:1000", "node12346.example:1000")
	if string(heads) != "\x08\x0d\x01" || string(mids) != "6" {
		t.Errorf("front coding: heads % x, middle %q", heads, mids)
	}
}

func TestSerializedCachedUntilChange(t *testing.T) {
	s, err := NewShuffleStatuses(3, 4, codec.Setting{Kind: codec.Zstd, Level: 1})
	if err != nil {
		t.Fatal(err)
	}
	st := NewMapStatus("w", 1, []int64{1, 2, 3, 0}, StatusConfig{})
	if err := s.Register(0, st); err != nil {
		t.Fatal(err)
	}
	a, _ := s.Serialized()
	b, _ := s.Serialized()
	if &a[0] != &b[0] || s.builds != 1 {
		t.Fatalf("rebuilt without a change (builds %d)", s.builds)
	}
	if err := s.Register(2, st); err != nil {
		t.Fatal(err)
	}
	c, _ := s.Serialized()
	if s.builds != 2 || s.Missing() != 1 {
		t.Fatalf("builds %d, missing %d", s.builds, s.Missing())
	}
	v, err := DecodeStatuses(c, DecodeLimits{})
	if err != nil || v.Kind(2) != KindCompressed || v.Size(2, 2) != DecompressSize(CompressSize(3)) {
		t.Fatalf("decoded %v", err)
	}
	s.Unregister(2)
	if d, _ := s.Serialized(); s.builds != 3 || len(d) == len(c) && string(d) == string(c) {
		t.Fatalf("Unregister kept the cache")
	}
	if err := s.Register(0, NewMapStatus("w", 1, []int64{1}, StatusConfig{})); err == nil {
		t.Fatal("status of 1 partition accepted in a shuffle of 4")
	}
}

func TestDecodeStatusesHostile(t *testing.T) {
	good, err := AppendStatuses(nil, randomStatuses(rand.New(rand.NewPCG(5, 6)), 10, 3000, 3), 3000, codec.Setting{})
	if err != nil {
		t.Fatal(err)
	}
	body := func(parts ...[]byte) []byte { // an uncompressed envelope around a raw body
		var raw []byte
		for _, p := range parts {
			raw = append(raw, p...)
		}
		// one uncompressed segment
		return append([]byte{byte(FormatV1), 0, byte(len(raw)), 1, byte(len(raw)), byte(len(raw))}, raw...)
	}
	noSections := make([]byte, numSections)
	for _, c := range []struct {
		name string
		b    []byte
		lim  DecodeLimits
		want error
	}{
		{"empty", nil, DecodeLimits{}, ErrCorrupt},
		{"version", []byte{9, 0, 0}, DecodeLimits{}, ErrCorrupt},
		{"codec", []byte{1, 77, 0}, DecodeLimits{}, ErrCorrupt},
		{"body claims 1 TiB", []byte{1, 2, 0x80, 0x80, 0x80, 0x80, 0x80, 0x20}, DecodeLimits{}, ErrLimit},
		{"truncated", good[:len(good)-1], DecodeLimits{}, ErrCorrupt},
		{"max bytes", good, DecodeLimits{MaxBytes: 100}, ErrLimit},
		{"max maps", good, DecodeLimits{MaxMaps: 5}, ErrLimit},
		{"max partitions", good, DecodeLimits{MaxPartitions: 2999}, ErrLimit},
		{"segments past the body", []byte{1, 0, 4, 1, 5, 5, 0, 0, 0, 0, 0}, DecodeLimits{}, ErrCorrupt},
		{"segments short of the body", []byte{1, 0, 4, 1, 3, 3, 0, 0, 0}, DecodeLimits{}, ErrCorrupt},
		{"segment count bomb", []byte{1, 2, 4, 0xff, 0xff, 0xff, 0xff, 0x0f, 0}, DecodeLimits{}, ErrCorrupt},
		// 1 GiB claimed from one zstd byte: refused before the body is
		// allocated (the limit is 32 KiB a byte).
		{"expansion bomb", []byte{1, 2, 0x80, 0x80, 0x80, 0x80, 0x04, 1, 0x80, 0x80, 0x80, 0x80, 0x04, 1, 0}, DecodeLimits{}, ErrCorrupt},
		{"section past the end", body([]byte{0, 0, 0, 0, 0, 100}), DecodeLimits{}, ErrCorrupt},
		{"maps without kinds", body([]byte{5, 1, 0}, noSections), DecodeLimits{}, ErrCorrupt},
		{"more locations than maps", body([]byte{1, 1, 2}, noSections), DecodeLimits{}, ErrCorrupt},
		{"bad kind", body([]byte{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0}, []byte{7}), DecodeLimits{}, ErrCorrupt},
		{"sizes short", body([]byte{1, 4, 1, 3, 1, 1, 1, 1, 2, 0, 0}, []byte{0, 0, 0, 'w', 1, 0, 0, 1, 2}), DecodeLimits{}, ErrCorrupt},
		// Each location repeats all of the one before and adds 100 bytes:
		// 100 + 200 + ... past a 10,000-byte location limit.
		{"location bomb", locationBomb(), DecodeLimits{MaxLocationBytes: 10_000}, ErrLimit},
	} {
		_, err := DecodeStatuses(c.b, c.lim)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
}

func locationBomb() []byte {
	var heads, mids []byte
	prev := ""
	const n = 100
	for range n {
		cur := prev + string(make([]byte, 100))
		heads, mids = appendLocation(heads, mids, prev, cur)
		prev = cur
	}
	kinds := make([]byte, n)
	raw := []byte{n, 0, n}
	for _, l := range []int{len(heads), len(mids), len(kinds), 0, 0, 0, 0, 0} {
		raw = appendUvarint(raw, l)
	}
	raw = append(append(append(raw, heads...), mids...), kinds...)
	b := appendUvarint([]byte{byte(FormatV1), 0}, len(raw))
	b = appendUvarint(appendUvarint(append(b, 1), len(raw)), len(raw)) // one uncompressed segment
	return append(b, raw...)
}

func appendUvarint(b []byte, n int) []byte {
	for n >= 0x80 {
		b = append(b, byte(n)|0x80)
		n >>= 7
	}
	return append(b, byte(n))
}

// The worked example of doc.go, byte for byte.
func TestStatusesWorkedExample(t *testing.T) {
	st := []*MapStatus{
		NewMapStatus("w1:7000", 10, []int64{2, 0, 10}, StatusConfig{}),
		NewMapStatus("w2:7000", 11, []int64{1, 1, 1}, StatusConfig{}),
	}
	raw, err := appendBody(nil, st, 3)
	if err != nil {
		t.Fatal(err)
	}
	want := "\x02\x03\x02" + "\x06\x08\x02\x02\x02\x06\x00\x00" + "\x00\x00\x07\x01\x05\x01" + "w1:70002" +
		"\x01\x01" + "\x14\x02" + "\x00\x02" + "\x08\x00\x19\x01\x01\x01"
	if string(raw) != want {
		t.Fatalf("body\n% x\nwant\n% x", raw, want)
	}
}

// The passes of averageCut give what sorting gives (averageCutSorted), on
// distributions that take one pass, several, and more than its 32 (a
// geometric series drops one block a pass).
func TestAverageCutMatchesSorted(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	dists := map[string]func(i int) int64{
		"uniform": func(int) int64 { return rng.Int64N(64 << 10) },
		"skewed": func(i int) int64 {
			return map[bool]int64{true: rng.Int64N(512 << 20), false: rng.Int64N(64 << 10)}[i%500 == 0]
		},
		"geometric": func(i int) int64 { return 1 << (i % 50) },
		"ties":      func(i int) int64 { return int64(1 + i%3*1000) },
		"lognormal": func(int) int64 { return int64(1000 * math.Exp(3*rng.NormFloat64())) },
	}
	for name, gen := range dists {
		sizes := make([]int64, 5000)
		for i := range sizes {
			sizes[i] = gen(i)
		}
		for _, bound := range []float64{1, 1.5, 2, 5} {
			for _, threshold := range []int64{100 << 20, math.MaxInt64} {
				c1, a1 := averageCut(sizes, threshold, bound)
				c2, a2 := averageCutSorted(sizes, threshold, bound)
				if c1 != c2 || a1 != a2 {
					t.Errorf("%s bound %g: passes (%d, %d), sorted (%d, %d)", name, bound, c1, a1, c2, a2)
				}
			}
		}
	}
}

// Two locations that share a set of the intern table, alternating, are
// each written once.
func TestInternTwoWay(t *testing.T) {
	var tab internTable
	tab.intern("", 0) // seeds the table
	set := func(s string) uint64 { return maphash.String(tab.seed, s) % internSets }
	// Find two strings in the same set.
	a, b := "w0", ""
	for i := 1; b == ""; i++ {
		if s := fmt.Sprintf("w%d", i); set(s) == set(a) {
			b = s
		}
	}
	if i, isNew := tab.intern(a, 1); !isNew || i != 1 {
		t.Fatalf("%q: %d %v", a, i, isNew)
	}
	if i, isNew := tab.intern(b, 2); !isNew || i != 2 {
		t.Fatalf("%q: %d %v", b, i, isNew)
	}
	for range 10 {
		if i, isNew := tab.intern(a, 9); isNew || i != 1 {
			t.Fatalf("%q: %d %v", a, i, isNew)
		}
		if i, isNew := tab.intern(b, 9); isNew || i != 2 {
			t.Fatalf("%q: %d %v", b, i, isNew)
		}
	}
}

// A first present map after missing ones, with an empty location, is
// still given its location (not taken for "same as the map before").
func TestEmptyLocationAfterMissing(t *testing.T) {
	st := []*MapStatus{nil, NewMapStatus("", 5, []int64{3}, StatusConfig{}), NewMapStatus("", 6, []int64{0}, StatusConfig{}), NewMapStatus("w", 7, []int64{1}, StatusConfig{})}
	v := roundTrip(t, st, 1, codec.Setting{Kind: codec.Zstd, Level: 1})
	if len(v.locs) != 2 {
		t.Fatalf("%d locations, want 2", len(v.locs))
	}
}

// A few bytes that claim a 1 GiB body are refused without allocating it.
func TestDecodeStatusesNoBombAllocation(t *testing.T) {
	bomb := []byte{1, 2, 0x80, 0x80, 0x80, 0x80, 0x04, 1, 0x80, 0x80, 0x80, 0x80, 0x04, 1, 0}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := DecodeStatuses(bomb, DecodeLimits{})
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrCorrupt) {
		t.Fatalf("got %v", err)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
		t.Fatalf("allocated %d bytes for a %d-byte input", n, len(bomb))
	}
}

// A body of several segments, cut inside statuses' size bytes and with
// highly compressed records after them, round-trips with every codec
// (AppendStatuses reads the body segment by segment from the statuses),
// and equals the body built whole.
func TestStatusesManySegments(t *testing.T) {
	const maps, parts = 700, 2003 // 1.4 MB of size bytes: two segments, cut mid-status
	rng := rand.New(rand.NewPCG(4, 4))
	sizes := make([]int64, parts)
	st := make([]*MapStatus, maps)
	for m := range st {
		for p := range sizes {
			sizes[p] = rng.Int64N(1 << 30)
		}
		cfg := StatusConfig{MinPartitionsToHighlyCompress: 4000} // compressed
		if m%9 == 0 {
			cfg = StatusConfig{}
		}
		if m%13 != 5 {
			st[m] = NewMapStatus(fmt.Sprintf("w%d:1", m%5), int64(m), sizes, cfg)
		}
	}
	b, err := newBody(st, parts)
	if err == nil {
		err = b.build(st)
	}
	if err != nil {
		t.Fatal(err)
	}
	whole, _ := appendBody(nil, st, parts)
	if b.len() != len(whole) || b.len() <= segmentBytes+b.tailLen()+parts {
		t.Fatalf("body of %d bytes, built whole %d", b.len(), len(whole))
	}
	for _, off := range []int{0, 1, b.headLen() + 7, segmentBytes, b.len() - b.tailLen() - 3} {
		got := make([]byte, min(3000, b.len()-off))
		b.read(got, off)
		if !bytes.Equal(got, whole[off:off+len(got)]) {
			t.Errorf("read at %d differs from the whole body", off)
		}
	}
	for _, c := range []codec.Setting{{Kind: codec.Zstd, Level: 1}, {}, {Kind: codec.LZ4}} {
		enc, err := AppendStatuses(nil, st, parts, c)
		if err != nil {
			t.Fatal(err)
		}
		n, w := binary.Uvarint(enc[2:])
		cc, _ := codec.New(c)
		raw, err := decompressSegments(enc[2+w:], cc, int(n))
		if err != nil || !bytes.Equal(raw, whole) {
			t.Fatalf("%s: %v; decoded body equal to the whole one: %v", c, err, bytes.Equal(raw, whole))
		}
		if !testing.Short() { // every size checked: seconds under -race
			roundTrip(t, st, parts, c)
		}
	}
}

// sharedPrefix and sharedSuffix, which compare 8 bytes at a time, agree
// with a byte at a time on every length around the word boundaries and a
// difference at every place.
func TestSharedPrefixSuffix(t *testing.T) {
	slow := func(a, b string, fromEnd bool) int {
		n := 0
		for n < len(a) && n < len(b) {
			i, j := n, n
			if fromEnd {
				i, j = len(a)-1-n, len(b)-1-n
			}
			if a[i] != b[j] {
				break
			}
			n++
		}
		return n
	}
	base := "node123456.spark.apache.org:1000"
	for la := 0; la <= len(base); la++ {
		for lb := max(0, la-9); lb <= min(len(base), la+9); lb++ {
			for diff := -1; diff < lb; diff++ {
				a, b := base[:la], []byte(base[:lb])
				if diff >= 0 {
					b[diff] ^= 0x20
				}
				if got, want := sharedPrefix(a, string(b)), slow(a, string(b), false); got != want {
					t.Fatalf("sharedPrefix(%q, %q) = %d, want %d", a, b, got, want)
				}
				a, b = base[len(base)-la:], []byte(base[len(base)-lb:])
				if diff >= 0 {
					b[diff] ^= 0x20
				}
				if got, want := sharedSuffix(a, string(b)), slow(a, string(b), true); got != want {
					t.Fatalf("sharedSuffix(%q, %q) = %d, want %d", a, b, got, want)
				}
			}
		}
	}
}

// Status builds a batch of statuses at once and hands out the same one
// for a map every time, from any goroutine; the statuses of maps on both
// sides of a batch's edge, missing ones among them, are right.
func TestStatusBatches(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	st := randomStatuses(rng, statusBatch*2+7, 5, 3)
	st[statusBatch-1], st[statusBatch] = nil, nil
	st[3] = NewMapStatus("w-highly", 3, make([]int64, 5), StatusConfig{MinPartitionsToHighlyCompress: 2})
	b, err := AppendStatuses(nil, st, 5, codec.Setting{Kind: codec.Zstd, Level: 1})
	if err != nil {
		t.Fatal(err)
	}
	v, err := DecodeStatuses(b, DecodeLimits{})
	if err != nil {
		t.Fatal(err)
	}
	got := make([][]*MapStatus, 4)
	var wg sync.WaitGroup
	for g := range got {
		wg.Go(func() {
			for m := range v.Maps() {
				got[g] = append(got[g], v.Status((m+g*97)%v.Maps()))
			}
		})
	}
	wg.Wait()
	for g := range got {
		for i, s := range got[g] {
			m := (i + g*97) % v.Maps()
			if s != v.Status(m) {
				t.Fatalf("goroutine %d: map %d: a second status", g, m)
			}
		}
	}
	checkSame(t, st, v)
	if v.Status(3).Kind() != KindHighlyCompressed || v.Status(3).Partitions() != 5 {
		t.Fatalf("map 3: %s of %d partitions", v.Status(3).Kind(), v.Status(3).Partitions())
	}
}
