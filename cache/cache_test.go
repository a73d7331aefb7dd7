package cache

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/internal/arrowsize"
	"github.com/quiverdb/quiver/internal/datagen"
)

// checked returns an allocator that fails the test if anything allocated
// from it is still held when the test ends.
func checked(t testing.TB) *memory.CheckedAllocator {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	return mem
}

func newCache(t testing.TB, mem memory.Allocator, budget int64) *Cache {
	t.Helper()
	c, err := New(Options{Alloc: mem, Budget: budget})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// put stores recs as name and returns the table's info.
func put(t testing.TB, c *Cache, name string, schema *arrow.Schema, recs []arrow.RecordBatch, opts TableOptions) TableInfo {
	t.Helper()
	r, err := array.NewRecordReader(schema, recs)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	info, err := c.Put(context.Background(), name, r, opts)
	if err != nil {
		t.Fatalf("Put(%s, %s): %v", name, opts.Codec, err)
	}
	return info
}

// scanAll returns every batch a scan yields, retained, and its metrics.
func scanAll(t testing.TB, c *Cache, name string, opts ScanOptions) ([]arrow.RecordBatch, ScanMetrics) {
	t.Helper()
	s, err := c.Scan(context.Background(), name, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Release()
	var out []arrow.RecordBatch
	for s.Next() {
		rec := s.RecordBatch()
		rec.Retain()
		out = append(out, rec)
	}
	if err := s.Err(); err != nil {
		release(out)
		t.Fatalf("scan %s: %v", name, err)
	}
	return out, s.Metrics()
}

func release(recs []arrow.RecordBatch) {
	for _, r := range recs {
		r.Release()
	}
}

// settings are the codec settings every round-trip test covers.
var settings = []struct {
	name string
	opts TableOptions
}{
	{"none", TableOptions{Codec: Fixed(codec.SettingNone)}},
	{"lz4", TableOptions{Codec: Fixed(codec.SettingLZ4)}},
	{"zstd:1", TableOptions{Codec: Fixed(codec.Setting{Kind: codec.Zstd, Level: 1})}},
	{"zstd:19", TableOptions{Codec: Fixed(codec.Setting{Kind: codec.Zstd, Level: 19})}},
	{"auto", TableOptions{Codec: Auto}},
	{"lz4 plain", TableOptions{Codec: Fixed(codec.SettingLZ4), Plain: true}},
	{"none plain", TableOptions{Codec: Fixed(codec.SettingNone), Plain: true}},
	{"auto 1 goroutine", TableOptions{Codec: Auto, Concurrency: 1}},
}

// allTypesInput returns batches of every type: whole, sliced at odd
// offsets (so bitmaps and offsets need re-aligning), and empty.
func allTypesInput(mem memory.Allocator) []arrow.RecordBatch {
	a := datagen.Record(mem, 300, 1)
	b := datagen.Record(mem, 257, 2)
	defer b.Release()
	return []arrow.RecordBatch{a, b.NewSlice(3, 250), b.NewSlice(11, 11), datagen.Record(mem, 64, 3)}
}

// wantColumn is what a scan should return for column i of rec: the column
// itself, or its values when Put decoded its dictionaries.
func wantColumn(t *testing.T, mem memory.Allocator, info TableInfo, rec arrow.RecordBatch, i int) arrow.Array {
	col := rec.Column(i)
	if info.Columns[i].Dictionary == "decoded" {
		dense, err := decodeDictionary(context.Background(), mem, col)
		if err != nil {
			t.Fatal(err)
		}
		return dense
	}
	col.Retain()
	return col
}

func TestRoundTripEveryTypeAndSetting(t *testing.T) {
	for _, st := range settings {
		t.Run(st.name, func(t *testing.T) {
			mem := checked(t)
			in := allTypesInput(mem)
			defer release(in)
			c := newCache(t, mem, 0)
			info := put(t, c, "t", in[0].Schema(), in, st.opts)
			if info.Batches != len(in) || info.Rows != 300+247+0+64 {
				t.Fatalf("info: %d batches, %d rows", info.Batches, info.Rows)
			}
			for _, conc := range []int{1, 3} {
				out, m := scanAll(t, c, "t", ScanOptions{Concurrency: conc})
				if len(out) != len(in) || m.Decoded != len(in) || m.Rows != info.Rows {
					t.Fatalf("concurrency %d: %d batches, metrics %+v", conc, len(out), m)
				}
				var decoded int64
				for b := range in {
					for i := range int(in[b].NumCols()) {
						want := wantColumn(t, mem, info, in[b], i)
						got := out[b].Column(i)
						if !array.Equal(want, got) {
							t.Errorf("batch %d column %s (%s, %s): got\n%v\nwant\n%v", b, info.Columns[i].Name, info.Columns[i].Encoding, info.Columns[i].Codec, got, want)
						}
						if err := got.Data().(*array.Data); err == nil {
							t.Fatal("no data")
						}
						want.Release()
						decoded += arrowsize.Data(got.Data())
					}
				}
				if decoded != info.Decoded || m.DecodedBytes != info.Decoded {
					t.Errorf("decoded bytes: buffers %d, metrics %d, footprint %d", decoded, m.DecodedBytes, info.Decoded)
				}
				release(out)
			}
		})
	}
}

func TestFootprintIsExactAndDecodedSizeIsCodecIndependent(t *testing.T) {
	mem := checked(t)
	in := allTypesInput(mem)
	defer release(in)
	c := newCache(t, mem, 0)
	var decoded []int64
	for _, st := range settings {
		if st.opts.Plain {
			continue // dictionary decisions may differ without encodings
		}
		info := put(t, c, st.name, in[0].Schema(), in, st.opts)
		var sum, dec int64
		for _, col := range info.Columns {
			sum += col.Compressed
			dec += col.Decoded
		}
		if sum != info.Compressed || dec != info.Decoded {
			t.Errorf("%s: columns sum to %d/%d, table says %d/%d", st.name, sum, dec, info.Compressed, info.Decoded)
		}
		tab, _ := c.snapshot(st.name)
		var held int64
		for _, e := range tab.entries {
			held += e.size()
		}
		if held != info.Compressed {
			t.Errorf("%s: entries hold %d bytes, footprint says %d", st.name, held, info.Compressed)
		}
		decoded = append(decoded, info.Decoded)
	}
	for _, d := range decoded[1:] {
		if d != decoded[0] {
			t.Errorf("decoded size depends on the codec: %v", decoded)
		}
	}
	if got, want := c.Used(), sumCompressed(t, c); got != want {
		t.Errorf("Used %d, tables hold %d", got, want)
	}
}

func sumCompressed(t *testing.T, c *Cache) int64 {
	var n int64
	for _, name := range c.Tables() {
		info, err := c.Info(name)
		if err != nil {
			t.Fatal(err)
		}
		n += info.Compressed
	}
	return n
}

func TestProjectionAndCountOnly(t *testing.T) {
	mem := checked(t)
	in := allTypesInput(mem)
	defer release(in)
	c := newCache(t, mem, 0)
	info := put(t, c, "t", in[0].Schema(), in, TableOptions{Codec: Fixed(codec.SettingLZ4)})
	cols := []int{27, 5, 5, 0}
	out, m := scanAll(t, c, "t", ScanOptions{Columns: cols})
	for b, rec := range out {
		if rec.NumCols() != int64(len(cols)) {
			t.Fatalf("%d columns", rec.NumCols())
		}
		for j, i := range cols {
			want := wantColumn(t, mem, info, in[b], i)
			if !array.Equal(want, rec.Column(j)) || rec.Schema().Field(j).Name != info.Columns[i].Name {
				t.Errorf("batch %d column %d: wrong values or name", b, j)
			}
			want.Release()
		}
	}
	var wantBytes int64
	for _, i := range cols {
		wantBytes += info.Columns[i].Compressed
	}
	if m.CompressedBytes != wantBytes {
		t.Errorf("read %d chunk bytes, the selected columns hold %d", m.CompressedBytes, wantBytes)
	}
	release(out)

	out, m = scanAll(t, c, "t", ScanOptions{Columns: []int{}})
	var rows int64
	for _, rec := range out {
		if rec.NumCols() != 0 {
			t.Fatalf("count-only batch has %d columns", rec.NumCols())
		}
		rows += rec.NumRows()
	}
	release(out)
	if rows != info.Rows || m.Decoded != 0 || m.CompressedBytes != 0 {
		t.Errorf("count only: %d rows (want %d), metrics %+v", rows, info.Rows, m)
	}
}

func TestScanErrors(t *testing.T) {
	mem := checked(t)
	in := allTypesInput(mem)
	defer release(in)
	c := newCache(t, mem, 0)
	put(t, c, "t", in[0].Schema(), in[:1], TableOptions{})
	for _, tc := range []struct {
		name string
		opts ScanOptions
		want string
	}{
		{"missing", ScanOptions{}, "no such table"},
		{"t", ScanOptions{Columns: []int{999}}, "column 999 selected"},
		{"t", ScanOptions{Filter: IsNull{Col: -1}}, "column -1"},
		{"t", ScanOptions{Concurrency: -1}, "negative"},
	} {
		s, err := c.Scan(context.Background(), tc.name, tc.opts)
		if err == nil {
			s.Release()
			t.Errorf("%+v: no error", tc.opts)
			continue
		}
		if !containsStr(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.opts, err, tc.want)
		}
	}
	if _, err := c.Scan(context.Background(), "missing", ScanOptions{}); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing table: %v", err)
	}
}

func containsStr(s, sub string) bool {
	return len(sub) == 0 || len(s) >= len(sub) && (s[:len(sub)] == sub || containsStr(s[1:], sub))
}

func TestCancelledScanStopsAndReleases(t *testing.T) {
	mem := checked(t)
	var in []arrow.RecordBatch
	for i := range 40 {
		in = append(in, datagen.Record(mem, 50, uint64(i)))
	}
	defer release(in)
	c := newCache(t, mem, 0)
	put(t, c, "t", in[0].Schema(), in, TableOptions{})
	for _, conc := range []int{1, 4} {
		ctx, cancel := context.WithCancel(context.Background())
		s, err := c.Scan(ctx, "t", ScanOptions{Concurrency: conc})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for s.Next() {
			n++
			if n == 3 {
				cancel()
			}
		}
		if !errors.Is(s.Err(), context.Canceled) || n != 3 {
			t.Errorf("concurrency %d: %d batches, err %v", conc, n, s.Err())
		}
		s.Release()
		// Released early, with batches decoded ahead.
		s, err = c.Scan(context.Background(), "t", ScanOptions{Concurrency: conc})
		if err != nil {
			t.Fatal(err)
		}
		s.Next()
		s.Release()
		if s.Next() {
			t.Error("Next after Release")
		}
		cancel()
	}
}

// TestScanCancelledWhileWaiting: a scan cancelled while Next waits for a
// batch decoded ahead releases that batch too (it was taken off the
// queue that Release drains).
func TestScanCancelledWhileWaiting(t *testing.T) {
	mem := checked(t)
	var in []arrow.RecordBatch
	for i := range 8 {
		in = append(in, datagen.Record(mem, 200, uint64(i)))
	}
	defer release(in)
	c := newCache(t, mem, 0)
	put(t, c, "t", in[0].Schema(), in, TableOptions{})
	for i := range 300 {
		ctx, cancel := context.WithCancel(context.Background())
		s, err := c.Scan(ctx, "t", ScanOptions{Concurrency: 2})
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			time.Sleep(time.Duration(i%50) * 10 * time.Microsecond)
			cancel()
		}()
		for s.Next() {
		}
		s.Release()
		cancel()
	}
}

func ExampleCache_Scan() {
	mem := memory.NewGoAllocator()
	schema := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}}, nil)
	var recs []arrow.RecordBatch
	for b := range 4 {
		bld := array.NewInt64Builder(mem)
		for i := range 1000 {
			bld.Append(int64(b*1000 + i))
		}
		arr := bld.NewArray()
		recs = append(recs, array.NewRecordBatch(schema, []arrow.Array{arr}, 1000))
		arr.Release()
		bld.Release()
	}
	r, _ := array.NewRecordReader(schema, recs)
	c, _ := New(Options{Alloc: mem})
	info, _ := c.Put(context.Background(), "numbers", r, TableOptions{Codec: Fixed(codec.SettingLZ4)})
	fmt.Printf("%d rows in %d batches, %s encoding, %d bytes decoded\n", info.Rows, info.Batches, info.Columns[0].Encoding, info.Decoded)

	s, _ := c.Scan(context.Background(), "numbers", ScanOptions{Filter: Between{Col: 0, Lo: Int(2500), Hi: Int(2600)}})
	defer s.Release()
	for s.Next() {
		fmt.Println("batch starting at", s.RecordBatch().Column(0).(*array.Int64).Value(0))
	}
	m := s.Metrics()
	fmt.Printf("skipped %d of %d batches\n", m.Skipped, m.Batches)
	// Output:
	// 4000 rows in 4 batches, delta encoding, 32000 bytes decoded
	// batch starting at 2000
	// skipped 3 of 4 batches
}

// TestDecimal128Narrowing: decimal128 values that fit in 64 bits are stored
// narrowed (and say so), others as they are; both read back exactly,
// negative values and NULLs included.
func TestDecimal128Narrowing(t *testing.T) {
	mem := checked(t)
	dt := &arrow.Decimal128Type{Precision: 38, Scale: 2}
	schema := arrow.NewSchema([]arrow.Field{{Name: "d", Type: dt, Nullable: true}}, nil)
	build := func(big bool) arrow.RecordBatch {
		b := array.NewDecimal128Builder(mem, dt)
		defer b.Release()
		for i := range 1000 {
			switch {
			case i%9 == 4:
				b.AppendNull()
			case big && i == 500:
				b.Append(decimal128.New(1, 0)) // 2^64: does not fit
			default:
				b.Append(decimal128.FromI64(int64(i*37 - 9000)))
			}
		}
		arr := b.NewArray()
		defer arr.Release()
		return array.NewRecordBatch(schema, []arrow.Array{arr}, 1000)
	}
	for _, big := range []bool{false, true} {
		rec := build(big)
		c := newCache(t, mem, 0)
		for _, st := range settings {
			info := put(t, c, "d", schema, []arrow.RecordBatch{rec}, st.opts)
			narrowed := strings.HasPrefix(info.Columns[0].Encoding, "narrow64")
			if narrowed != (!big && !st.opts.Plain) {
				t.Errorf("%s big=%v: encoding %q", st.name, big, info.Columns[0].Encoding)
			}
			out, _ := scanAll(t, c, "d", ScanOptions{})
			if !array.Equal(out[0].Column(0), rec.Column(0)) {
				t.Errorf("%s big=%v: values changed", st.name, big)
			}
			release(out)
		}
		rec.Release()
	}
}
