package store

import (
	"bytes"
	"encoding/hex"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/codec"
)

var updateGolden = flag.Bool("rewrite", false, "rewrite testdata/golden_v2")

// TestGoldenDirectory pins the manifest (version 2) and chunk file
// (version 1) formats: a data directory written by this version is
// committed as hex under testdata/golden_v2; it must open and read back,
// and a table written the same way today must be byte for byte those
// files. A change that breaks this test changes a format: bump its
// version and keep a reader for the old one. testdata/golden_v1, the
// same table written with manifest version 1 (no distinct-count
// sketches), must still open and read, its distinct counts unknown.
func TestGoldenDirectory(t *testing.T) {
	mem := checked(t)
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	var recs []arrow.RecordBatch
	for _, js := range []string{
		`[{"id": 1, "name": "a"}, {"id": 2, "name": null}, {"id": 3, "name": "ccc"}]`,
		`[{"id": 10, "name": "dd"}, {"id": 11, "name": ""}]`,
	} {
		rec, _, err := array.RecordFromJSON(mem, schema, strings.NewReader(js))
		if err != nil {
			t.Fatal(err)
		}
		defer rec.Release()
		recs = append(recs, rec)
	}
	fresh := t.TempDir()
	s, c := open(t, fresh, mem, nil)
	r, _ := array.NewRecordReader(schema, recs)
	_, err := s.Put(t.Context(), "golden", r, cache.TableOptions{Codec: cache.Fixed(codec.SettingNone)})
	r.Release()
	if err != nil {
		t.Fatal(err)
	}
	want := contentOf(t, c, "golden")
	s.Close()

	dir := filepath.Join("testdata", "golden_v2")
	names := []string{manifestName(1), chunkName(1, 1)}
	if *updateGolden {
		os.MkdirAll(dir, 0o755)
		for _, name := range names {
			b, err := os.ReadFile(filepath.Join(fresh, name))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, name+".hex"), []byte(hex.Dump(b)), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	golden := t.TempDir()
	for _, name := range names {
		text, err := os.ReadFile(filepath.Join(dir, name+".hex"))
		if err != nil {
			t.Fatalf("%v (run with -rewrite to create)", err)
		}
		b := undump(t, string(text))
		if now, _ := os.ReadFile(filepath.Join(fresh, name)); !bytes.Equal(now, b) {
			t.Errorf("%s is no longer what a Put writes:\n%s", name, hex.Dump(now))
		}
		if err := os.WriteFile(filepath.Join(golden, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s2, c2 := open(t, golden, mem, nil)
	if p := s2.Problems(); len(p) != 0 {
		t.Fatal(p)
	}
	if got := contentOf(t, c2, "golden"); got != want || got.rows != 5 {
		t.Fatalf("golden directory reads %v, want %v", got, want)
	}
	if st, _ := c2.Stats("golden"); st.Columns[0].Distinct != 5 || st.Columns[1].Distinct != 4 {
		t.Fatalf("golden directory's distinct counts: %+v", st.Columns)
	}

	v1 := t.TempDir()
	for _, name := range names {
		text, err := os.ReadFile(filepath.Join("testdata", "golden_v1", name+".hex"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(v1, name), undump(t, string(text)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s3, c3 := open(t, v1, mem, nil)
	if p := s3.Problems(); len(p) != 0 {
		t.Fatal(p)
	}
	if got := contentOf(t, c3, "golden"); got != want {
		t.Fatalf("version 1 directory reads %v, want %v", got, want)
	}
	if st, _ := c3.Stats("golden"); st.Columns[0].Distinct != -1 || st.Columns[0].Rows != 5 {
		t.Fatalf("version 1 directory's stats: %+v", st.Columns[0])
	}
}

// undump reads the bytes of a hex.Dump.
func undump(t *testing.T, text string) []byte {
	var out []byte
	for _, line := range strings.Split(text, "\n") {
		if len(line) < 10 {
			continue
		}
		hexPart, _, _ := strings.Cut(line[10:], "|")
		b, err := hex.DecodeString(strings.ReplaceAll(hexPart, " ", ""))
		if err != nil {
			t.Fatalf("bad golden line %q: %v", line, err)
		}
		out = append(out, b...)
	}
	return out
}
