package cache

import (
	"context"
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/quiverdb/quiver/codec"
)

// scramblers damage a chunk in place or by truncation.
var scramblers = map[string]func([]byte) []byte{
	"flip middle": func(b []byte) []byte { b[len(b)/2] ^= 0x5a; return b },
	"flip first":  func(b []byte) []byte { b[0] ^= 1; return b },
	"flip last":   func(b []byte) []byte { b[len(b)-1] ^= 0x80; return b },
	"truncate":    func(b []byte) []byte { return b[:len(b)/2] },
	"empty":       func(b []byte) []byte { return b[:0] },
}

// TestCorruptChunkFailsOnlyItsColumn scrambles each column of each batch
// in turn: scanning the other columns still returns their values, and
// scanning the damaged one fails with an error naming table, batch and
// column.
func TestCorruptChunkFailsOnlyItsColumn(t *testing.T) {
	scramble := scramblers
	batches := 4
	if testing.Short() { // under -race: two ways, first batch, one setting
		scramble = map[string]func([]byte) []byte{"flip middle": scramblers["flip middle"], "truncate": scramblers["truncate"]}
		batches = 1
	}
	for _, st := range []TableOptions{{Codec: Fixed(codec.SettingLZ4)}, {Codec: Fixed(codec.SettingNone), Plain: true}, {Codec: Auto}} {
		mem := checked(t)
		in := allTypesInput(mem)
		c := newCache(t, mem, 0)
		info := put(t, c, "tbl", in[0].Schema(), in, st)
		tab, _ := c.snapshot("tbl")
		n := len(info.Columns)
		for b, e := range tab.entries[:min(batches, len(tab.entries))] {
			for col := range n {
				for name, damage := range scramble {
					if len(e.chunks[col]) == 0 {
						continue
					}
					saved := e.chunks[col]
					e.chunks[col] = damage(append([]byte(nil), saved...))

					others := make([]int, 0, n-1)
					for i := range n {
						if i != col {
							others = append(others, i)
						}
					}
					out, _ := scanAll(t, c, "tbl", ScanOptions{Columns: others})
					for j, i := range others {
						want := wantColumn(t, mem, info, in[b], i)
						if !sameArray(want, out[b].Column(j)) {
							t.Errorf("%s: batch %d column %d changed when column %d was damaged", st.Codec, b, i, col)
						}
						want.Release()
					}
					release(out)

					for _, conc := range []int{1, 2} {
						s, err := c.Scan(context.Background(), "tbl", ScanOptions{Columns: []int{col}, Concurrency: conc})
						if err != nil {
							t.Fatal(err)
						}
						for s.Next() {
						}
						var ce *ChunkError
						err = s.Err()
						if !errors.Is(err, ErrCorrupt) || !errors.As(err, &ce) || ce.Table != "tbl" || ce.Batch != b || ce.Column != info.Columns[col].Name {
							t.Fatalf("%s %s: batch %d column %s (%s): %v", st.Codec, name, b, info.Columns[col].Name, info.Columns[col].Encoding, err)
						}
						s.Release()
					}
					e.chunks[col] = saved
				}
			}
		}
		release(in)
	}
}

// TestHostileChunksPastTheChecksum feeds the decoder chunks whose checksum
// is right but whose header lies, as a bug in the encoder would: every one
// must fail with ErrCorrupt, not panic or over-allocate.
func TestHostileChunksPastTheChecksum(t *testing.T) {
	mem := checked(t)
	dec := &chunkDecoder{mem: mem}
	i64 := arrow.PrimitiveTypes.Int64
	str := arrow.BinaryTypes.String
	for _, tc := range []struct {
		name string
		dt   arrow.DataType
		body []byte
	}{
		{"unknown version", i64, []byte{9, formFixed, 0, 1, 0, 2}},
		{"unknown form", i64, []byte{1, 7, 0, 1, 0, 2}},
		{"unknown codec", i64, []byte{1, formFixed, 9, 1, 0, 2}},
		{"form for another type", str, []byte{1, formFixed, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0}},
		{"nulls over rows", i64, []byte{1, formFixed, 0, 1, 2, 2}},
		{"wrong part count", i64, []byte{1, formFixed, 0, 1, 0, 3}},
		{"header cut", i64, []byte{1, formFixed, 0, 1, 0, 2, 0, 8}},
		{"unknown flag", i64, []byte{1, formFixed, 0, 1, 0, 2, 0, 0, 0, 0, 0x80, 8, 8, 8}},
		{"raw length mismatch", i64, []byte{1, formFixed, 0, 1, 0, 2, 0, 0, 0, 0, 0, 8, 8, 7, 1, 2, 3, 4, 5, 6, 7}},
		{"values short", i64, []byte{1, formFixed, 0, 2, 0, 2, 0, 0, 0, 0, 0, 8, 8, 8, 1, 2, 3, 4, 5, 6, 7, 8}},
		{"past the limit", i64, []byte{1, formFixed, 0, 1, 0, 2, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0x0f, 1, 1, 1}},
		{"payload past the end", i64, []byte{1, formFixed, 0, 1, 0, 2, 0, 0, 0, 0, 0, 8, 8, 8, 1}},
		{"trailing bytes", i64, []byte{1, formFixed, 0, 1, 0, 2, 0, 0, 0, 0, 0, 8, 8, 8, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
		{"validity in a column without nulls", i64, []byte{1, formFixed, 0, 1, 0, 2, 0, 1, 1, 1, 0, 8, 8, 8, 1, 1, 2, 3, 4, 5, 6, 7, 8}},
		{"null count disagrees", i64, []byte{1, formFixed, 0, 1, 1, 2, 0, 1, 1, 1, 0, 8, 8, 8, 1, 1, 2, 3, 4, 5, 6, 7, 8}},
		{"compressed without a codec", i64, []byte{1, formFixed, 0, 1, 0, 2, 0, 0, 0, 0, partCompressed, 8, 8, 2, 1, 2}},
		{"offsets not from 0", str, []byte{1, formVarBinary, 0, 1, 0, 3, 0, 0, 0, 0, 0, 8, 8, 8, 0, 1, 1, 1, 1, 0, 0, 0, 2, 0, 0, 0, 'x'}},
		{"offsets past the data", str, []byte{1, formVarBinary, 0, 1, 0, 3, 0, 0, 0, 0, 0, 8, 8, 8, 0, 1, 1, 1, 0, 0, 0, 0, 2, 0, 0, 0, 'x'}},
		{"narrowed odd size", &arrow.Decimal128Type{Precision: 10, Scale: 0}, []byte{1, formFixed, 0, 1, 0, 2, 0, 0, 0, 0, partNarrowed, 8, 4, 4, 1, 2, 3, 4}},
		{"narrowed wrong inner", &arrow.Decimal128Type{Precision: 10, Scale: 0}, []byte{1, formFixed, 0, 1, 0, 2, 0, 0, 0, 0, partNarrowed, 16, 16, 16, 1, 2, 3, 4, 5, 6, 7, 8, 1, 2, 3, 4, 5, 6, 7, 8}},
		{"ipc odd parts", arrow.Null, []byte{1, formIPC, 0, 1, 0, 1, 0, 0, 0, 0}},
		{"ipc garbage", arrow.Null, []byte{1, formIPC, 0, 1, 0, 2, 0, 2, 2, 2, 0, 0, 0, 0, 1, 2}},
	} {
		src := appendChecksum(tc.body)
		arr, err := dec.decode(tc.dt, src, 64)
		if err == nil {
			arr.Release()
			t.Errorf("%s: decoded", tc.name)
			continue
		}
		if !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v, want ErrCorrupt", tc.name, err)
		}
	}
}

func appendChecksum(body []byte) []byte {
	out := append([]byte(nil), body...)
	return appendCRC(out, 0)
}

func TestScanCountOnlyIgnoresCorruption(t *testing.T) {
	mem := checked(t)
	in := allTypesInput(mem)
	defer release(in)
	c := newCache(t, mem, 0)
	info := put(t, c, "t", in[0].Schema(), in, TableOptions{})
	tab, _ := c.snapshot("t")
	for _, e := range tab.entries {
		for i := range e.chunks {
			e.chunks[i] = nil
		}
	}
	out, m := scanAll(t, c, "t", ScanOptions{Columns: []int{}})
	release(out)
	if m.Rows != info.Rows {
		t.Errorf("count only read %d rows, want %d", m.Rows, info.Rows)
	}
	s, _ := c.Scan(context.Background(), "t", ScanOptions{Columns: []int{3}})
	defer s.Release()
	for s.Next() {
	}
	if !errors.Is(s.Err(), ErrCorrupt) {
		t.Errorf("reading an emptied chunk: %v", s.Err())
	}
}
