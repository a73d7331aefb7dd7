package query

import (
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/cache"
)

// blobsEngine is an engine over "blobs": id int64 and the same bytes
// stored five ways — bin (binary), lbin (large_binary), fsb
// (fixed_size_binary[2]), bview (binary_view) — and sview, a string_view
// of ASCII text; NULL every 4th row.
func blobsEngine(t *testing.T) *Engine {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "bin", Type: arrow.BinaryTypes.Binary, Nullable: true},
		{Name: "lbin", Type: arrow.BinaryTypes.LargeBinary, Nullable: true},
		{Name: "fsb", Type: &arrow.FixedSizeBinaryType{ByteWidth: 2}, Nullable: true},
		{Name: "bview", Type: arrow.BinaryTypes.BinaryView, Nullable: true},
		{Name: "sview", Type: arrow.BinaryTypes.StringView, Nullable: true},
	}, nil)
	vals := [][]byte{{0x00, 0x01}, {0xff, 0x00}, {0x61, 0x62}, {0x00, 0x01}, {0x0a, 0xff}, {0x61, 0x61}}
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	for i := range 12 {
		v := vals[i%len(vals)]
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		if i%4 == 3 {
			for f := 1; f < 6; f++ {
				b.Field(f).AppendNull()
			}
			continue
		}
		b.Field(1).(*array.BinaryBuilder).Append(v)
		b.Field(2).(*array.BinaryBuilder).Append(v)
		b.Field(3).(*array.FixedSizeBinaryBuilder).Append(v)
		b.Field(4).(*array.BinaryViewBuilder).Append(v)
		b.Field(5).(*array.StringViewBuilder).Append(strings.Repeat("s", i%3+1))
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	c, err := cache.New(cache.Options{Alloc: mem})
	if err != nil {
		t.Fatal(err)
	}
	putTable(t, c, "blobs", []arrow.RecordBatch{rec})
	return New(c, Options{Alloc: mem, MemoryLimit: 64 << 20})
}

// TestBlobQueries: binary columns of every layout are selected, compared
// (bytewise, unsigned), sorted, grouped (a bare key in its stored type),
// measured and cast, and x'…' is a BLOB literal.
func TestBlobQueries(t *testing.T) {
	e := blobsEngine(t)
	for _, tc := range []struct{ sql, want string }{
		{`SELECT bin, fsb FROM blobs WHERE id = 1`, "/wA=|/wA="}, // arrow-go shows bytes as base64
		{`SELECT count(*) FROM blobs WHERE bin = x'0001' AND lbin = x'0001' AND fsb = x'0001' AND bview = x'0001'`, "3"},
		{`SELECT count(*) FROM blobs WHERE bin > x'6100'`, "4"},
		{`SELECT id FROM blobs WHERE bin IS NOT NULL ORDER BY fsb DESC, id LIMIT 3`, "1 2 8"},
		{`SELECT fsb, count(*) FROM blobs GROUP BY fsb ORDER BY fsb NULLS FIRST`, "NULL|3 AAE=|3 Cv8=|2 YWE=|1 YWI=|2 /wA=|1"},
		{`SELECT octet_length(lbin), CAST(bview AS VARCHAR), CAST(fsb AS VARCHAR), sview, length(sview) FROM blobs WHERE id = 4`,
			`2|\x0A\xFF|\x0A\xFF|ss|2`},
		{`SELECT CAST(x'0AFF41' AS VARCHAR), octet_length(x'0AFF'), CAST(CAST('\xAA\x00ab' AS BLOB) AS VARCHAR), x'00' < x'0000', x'ff' > x'0aff'`,
			`\x0A\xFFA|2|\xAA\x00ab|true|true`},
		{`SELECT a.id FROM blobs a JOIN blobs b ON a.fsb = b.bin WHERE a.id = 0 ORDER BY b.id`, "0 0 0"},
		{`SELECT min(bin), max(fsb), min(lbin) FROM blobs`, "AAE=|/wA=|AAE="},
		{`SELECT id % 2 AS k, min(bview), max(bin) FROM blobs GROUP BY k ORDER BY k`, "0|AAE=|YWI= 1|AAE=|/wA="},
		// text meets a BLOB as one, as in DuckDB
		{`SELECT count(*) FROM blobs WHERE bin = '\x0A\xFF' OR bin > 'ab'`, "3"},
	} {
		got, _, err := runOrdered(t, e, tc.sql)
		if err != nil {
			t.Errorf("%s: %v", tc.sql, err)
			continue
		}
		if s := strings.Join(got, " "); s != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.sql, s, tc.want)
		}
	}
	for _, tc := range []struct{ sql, want string }{
		{`SELECT CAST('é' AS BLOB)`, "bytes past ASCII"},
		{`SELECT bin < 'é' FROM blobs`, "cannot compare BLOB with 'é'"},
		{`SELECT bin < 5 FROM blobs`, "cannot compare"},
		{`SELECT sum(bin) FROM blobs`, "sum over binary"},
	} {
		if _, err := run(t, e, tc.sql); err == nil || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want ErrInvalid containing %q", tc.sql, err, tc.want)
		}
	}
}

// TestTopKOverViews: ORDER BY … LIMIT over a binary_view column keeps the
// k-th key as a bound for the scan; that copy must not hold the batch's
// buffers (arrow-go's Concatenate shares a view's data buffers), or the
// query's allocator never gets them back.
func TestTopKOverViews(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	schema := arrow.NewSchema([]arrow.Field{{Name: "c", Type: arrow.BinaryTypes.BinaryView, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.StringView, Nullable: true}}, nil)
	b := array.NewRecordBuilder(mem, schema)
	for i := range 300 {
		v := strings.Repeat(string(rune('a'+i%26)), 13+i%7) // past 12 bytes: not inline
		b.Field(0).(*array.BinaryViewBuilder).Append([]byte(v))
		b.Field(1).(*array.StringViewBuilder).Append(v)
	}
	rec := b.NewRecordBatch()
	b.Release()
	c, err := cache.New(cache.Options{Alloc: mem})
	if err != nil {
		t.Fatal(err)
	}
	putTable(t, c, "v", []arrow.RecordBatch{rec})
	rec.Release()
	e := New(c, Options{Alloc: mem})
	for _, sql := range []string{`SELECT c FROM v ORDER BY c LIMIT 5`, `SELECT s FROM v ORDER BY s DESC LIMIT 3`} {
		if _, err := run(t, e, sql); err != nil {
			t.Errorf("%s: %v", sql, err)
		}
	}
	c.Drop("v")
}
