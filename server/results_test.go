package server

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/quiverdb/quiver/client"
	"github.com/quiverdb/quiver/codec"
)

func TestResultCodecsPerSession(t *testing.T) {
	ts := startServer(t, Config{}, numbersTable(3000, 1000))
	cl := ts.client(t)
	ctx := context.Background()
	const sql = `SELECT id, name, val FROM nums WHERE grp < 5 ORDER BY id`
	want, err := fetch(t, cl, ctx, sql)
	if err != nil {
		t.Fatal(err)
	}
	if len(want) != 2144 || want[0] != "0|row 0|0" {
		t.Fatalf("default codec: %d rows, first %q", len(want), want[0])
	}
	for _, tc := range []struct {
		value string
		kind  codec.Kind
	}{
		{"none", codec.None}, {"lz4", codec.LZ4}, {"zstd:1", codec.Zstd}, {"zstd:19", codec.Zstd},
		{"auto", codec.None},                       // the test's client is on loopback
		{"zstd", codec.Zstd}, {"none", codec.None}, // switching back and forth in one session
	} {
		if res := setCodec(t, cl, ctx, tc.value); len(res.Errors) != 0 {
			t.Fatalf("%s: %v", tc.value, res.Errors)
		}
		raw := fetchRaw(t, cl, ctx, sql)
		kinds := codecKinds(raw.infos)
		if len(kinds) == 0 || slices.ContainsFunc(kinds, func(k codec.Kind) bool { return k != tc.kind }) {
			t.Errorf("%s: batches compressed with %v, want all %v", tc.value, kinds, tc.kind)
		}
		got, err := fetch(t, cl, ctx, sql)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: the result differs from the first fetch", tc.value)
		}
	}
}

// TestZstdLevelsDiffer checks that the level reaches the encoder: levels 1
// and 19 give different bytes for one result, and 19 fewer.
func TestZstdLevelsDiffer(t *testing.T) {
	ts := startServer(t, Config{}, numbersTable(20000, 10000))
	cl := ts.client(t)
	ctx := context.Background()
	const sql = `SELECT name, grp FROM nums`
	setCodec(t, cl, ctx, "zstd:1")
	one := fetchRaw(t, cl, ctx, sql)
	setCodec(t, cl, ctx, "zstd:19")
	nineteen := fetchRaw(t, cl, ctx, sql)
	if bytes.Equal(one.stream, nineteen.stream) {
		t.Fatal("zstd:1 and zstd:19 sent the same bytes")
	}
	if len(nineteen.stream) >= len(one.stream) {
		t.Errorf("zstd:19 sent %d bytes, zstd:1 %d", len(nineteen.stream), len(one.stream))
	}
}

func TestSessionOptionErrorsAndDefaults(t *testing.T) {
	ts := startServer(t, Config{ResultCodec: "lz4"}, numbersTable(10, 10))
	cl := ts.client(t)
	ctx := context.Background()
	got, err := cl.GetSessionOptions(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if v := got.SessionOptions[OptionResultCodec].GetStringValue(); v != "lz4" {
		t.Errorf("default codec option %q, want lz4", v)
	}
	res := setCodec(t, cl, ctx, "brotli")
	if res.Errors[OptionResultCodec] == nil {
		t.Error("brotli accepted")
	}
	res2, err := client.SetSessionOptions(ctx, cl, map[string]any{"quiver.nope": "x"})
	if err != nil || res2.Errors["quiver.nope"] == nil {
		t.Errorf("unknown option: %v %v", res2, err)
	}
	setCodec(t, cl, ctx, "zstd:3")
	got, _ = cl.GetSessionOptions(ctx, nil)
	if v := got.SessionOptions[OptionResultCodec].GetStringValue(); v != "zstd:3" {
		t.Errorf("after set: %q", v)
	}
	if _, err := cl.CloseSession(ctx, nil); err != nil {
		t.Fatal(err)
	}
	got, _ = cl.GetSessionOptions(ctx, nil)
	if v := got.SessionOptions[OptionResultCodec].GetStringValue(); v != "lz4" {
		t.Errorf("after CloseSession: %q, want the default lz4", v)
	}
}

// TestLimitSlicesTheLastBatch is Kyuubi's case: LIMIT 150 over 100-row
// batches sends 100 rows, then the second batch sliced to 50, compressed
// like the first.
func TestLimitSlicesTheLastBatch(t *testing.T) {
	ts := startServer(t, Config{}, numbersTable(1000, 100))
	cl := ts.client(t)
	ctx := context.Background()
	setCodec(t, cl, ctx, "zstd:1")
	raw := fetchRaw(t, cl, ctx, `SELECT id, name FROM nums LIMIT 150`)
	var rows []int64
	for _, m := range raw.infos {
		rows = append(rows, m.Rows)
		if m.Codec != codec.Zstd {
			t.Errorf("batch %d: codec %v", m.Index, m.Codec)
		}
	}
	if fmt.Sprint(rows) != "[100 50]" {
		t.Errorf("batches of %v rows, want [100 50]", rows)
	}
	got, err := fetch(t, cl, ctx, `SELECT id FROM nums LIMIT 150`)
	if err != nil || len(got) != 150 || got[149] != "149" {
		t.Errorf("LIMIT 150: %d rows, err %v", len(got), err)
	}
}

// TestMessagesFitTheCap sends a result of 8 MB batches to a client with
// gRPC's default 4 MiB receive limit: the server cuts them.
func TestMessagesFitTheCap(t *testing.T) {
	ts := startServer(t, Config{MaxMessageBytes: 1 << 20}, wideStrings(4000, 2000, 2000))
	cl := ts.client(t)
	ctx := context.Background()
	setCodec(t, cl, ctx, "none")
	raw := fetchRaw(t, cl, ctx, `SELECT s FROM wide`)
	total := int64(0)
	for _, fd := range raw.messages {
		if n := len(fd.DataHeader) + len(fd.DataBody); n > 1<<20 {
			t.Fatalf("a message of %d bytes, over the 1 MiB cap", n)
		}
	}
	for _, m := range raw.infos {
		total += m.Rows
	}
	if total != 4000 || len(raw.infos) < 8 {
		t.Errorf("%d rows in %d batches; want 4000 rows in at least 8", total, len(raw.infos))
	}

	// At the default cap, a client with default limits reads the whole
	// uncompressed result (4000 × 2000 bytes = 8 MB in 2 batches).
	ts2 := startServer(t, Config{}, wideStrings(4000, 2000, 2000))
	cl2 := ts2.client(t)
	setCodec(t, cl2, ctx, "none")
	got, err := fetch(t, cl2, ctx, `SELECT s FROM wide`)
	if err != nil || len(got) != 4000 {
		t.Fatalf("default cap: %d rows, %v", len(got), err)
	}
}

func TestRowsPerBatchCap(t *testing.T) {
	ts := startServer(t, Config{MaxBatchRows: 300}, numbersTable(1000, 1000))
	cl := ts.client(t)
	raw := fetchRaw(t, cl, context.Background(), `SELECT id FROM nums`)
	var rows []int64
	for _, m := range raw.infos {
		rows = append(rows, m.Rows)
	}
	if fmt.Sprint(rows) != "[300 300 300 100]" {
		t.Errorf("batches of %v rows", rows)
	}
}

func TestOneRowOverTheCapFails(t *testing.T) {
	ts := startServer(t, Config{MaxMessageBytes: 64 << 10}, wideStrings(10, 5, 100<<10))
	cl := ts.client(t)
	ctx := context.Background()
	setCodec(t, cl, ctx, "none")
	_, err := fetch(t, cl, ctx, `SELECT s FROM wide`)
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte("over the server's 65536-byte message limit")) {
		t.Fatalf("got %v", err)
	}
}

// TestSmallBatchesUncompressed: under zstd a batch that compression
// would make bigger (a count, a few short rows: an 8-byte length and a
// frame per buffer outweigh what they save) is sent uncompressed, and
// the client reads it; a big batch in the same session is compressed.
func TestSmallBatchesUncompressed(t *testing.T) {
	ts := startServer(t, Config{}, numbersTable(20000, 10000))
	cl := ts.client(t)
	ctx := context.Background()
	setCodec(t, cl, ctx, "zstd:1")
	for _, tc := range []struct {
		sql  string
		kind codec.Kind
	}{
		{"SELECT count(*) FROM nums", codec.None},
		{"SELECT id, name FROM nums WHERE id < 3", codec.None},
		{"SELECT id, name FROM nums", codec.Zstd},
	} {
		raw := fetchRaw(t, cl, ctx, tc.sql)
		kinds := codecKinds(raw.infos)
		if len(kinds) == 0 || slices.ContainsFunc(kinds, func(k codec.Kind) bool { return k != tc.kind }) {
			t.Errorf("%s: batches sent with %v, want %v", tc.sql, kinds, tc.kind)
		}
		if _, err := fetch(t, cl, ctx, tc.sql); err != nil {
			t.Errorf("%s: %v", tc.sql, err)
		}
	}
}
