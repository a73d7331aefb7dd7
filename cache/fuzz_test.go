package cache

import (
	"context"
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/internal/datagen"
	"github.com/quiverdb/quiver/internal/take"
)

// fuzzTypes are the column types FuzzChunkDecode decodes as: every form,
// every offset width, bitmaps, and IPC-stored types.
var fuzzTypes = func() []arrow.DataType {
	var dts []arrow.DataType
	for _, f := range datagen.AllTypes().Fields() {
		dts = append(dts, f.Type)
	}
	return dts
}()

// checkNarrow: the row filter's decode of a narrowed decimal128 chunk
// fails where decode fails, with ErrCorrupt, and otherwise widens to
// decode's array.
func checkNarrow(t *testing.T, dec *chunkDecoder, mem memory.Allocator, dt arrow.DataType, src []byte, arr arrow.Array, decodeErr error) {
	t.Helper()
	col, ok, err := dec.narrow(dt, src, 1<<20, nil)
	if err != nil && !errors.Is(err, ErrCorrupt) {
		t.Fatalf("narrow: error not ErrCorrupt: %v", err)
	}
	if !ok {
		return
	}
	defer col.release()
	if decodeErr != nil {
		t.Fatalf("narrow decoded a chunk decode refuses (%v)", decodeErr)
	}
	wide := col.widen(mem, dt, nil, true)
	defer wide.Release()
	if !sameArray(arr, wide) {
		t.Fatalf("narrow and widen gave\n%v\ndecode gave\n%v", wide, arr)
	}
}

// checkRows: decoding some rows of a chunk (chunk_rows.go) fails where
// decode fails, with ErrCorrupt, and otherwise gives decode's values at
// those rows.
func checkRows(t *testing.T, dec *chunkDecoder, mem memory.Allocator, dt arrow.DataType, src []byte, arr arrow.Array, decodeErr error) {
	t.Helper()
	sel := []int32{0, 0}
	if arr != nil && arr.Len() > 0 {
		sel = []int32{int32(arr.Len() - 1), 0, int32(arr.Len() / 2)}
	}
	got, ok, err := dec.decodeRows(dt, src, 1<<20, sel)
	if err != nil && !errors.Is(err, ErrCorrupt) {
		t.Fatalf("decodeRows: error not ErrCorrupt: %v", err)
	}
	if !ok {
		return
	}
	defer got.Release()
	if decodeErr != nil {
		t.Fatalf("decodeRows decoded a chunk decode refuses (%v)", decodeErr)
	}
	want, err := take.Array(context.Background(), mem, arr, sel)
	if err != nil {
		t.Fatal(err)
	}
	defer want.Release()
	if !sameArray(want, got) {
		t.Fatalf("decodeRows gave\n%v\ndecode and take gave\n%v", got, want)
	}
}

// FuzzChunkDecode decodes arbitrary bytes as a chunk of each column type,
// with the checksum as given and with a valid one appended (so the fuzzer
// gets past it to the header and parts). Decoding must fail with
// ErrCorrupt or return an array that survives a re-encode round trip; it
// must never panic, leak or allocate past the limit.
func FuzzChunkDecode(f *testing.F) {
	mem := memory.NewGoAllocator()
	rec := datagen.Record(mem, 40, 5)
	defer rec.Release()
	for i := range fuzzTypes {
		for _, s := range []codec.Setting{codec.SettingNone, codec.SettingLZ4, codec.SettingZstd} {
			enc := &chunkEncoder{encodings: true, mem: mem}
			enc.use(s)
			chunk, _, err := enc.encode(nil, rec.Column(i))
			if err != nil {
				f.Fatal(err)
			}
			f.Add(chunk[:len(chunk)-4], uint8(i), true)
		}
	}
	// A decimal128 column whose values fit in 64 bits, which the cache
	// narrows.
	for i, dt := range fuzzTypes {
		if dt.ID() != arrow.DECIMAL128 {
			continue
		}
		b := array.NewDecimal128Builder(mem, dt.(*arrow.Decimal128Type))
		for v := range 50 {
			if v%7 == 3 {
				b.AppendNull()
			} else {
				b.Append(decimal128.FromI64(int64(v*v*1000 - 7)))
			}
		}
		a := b.NewArray()
		b.Release()
		enc := &chunkEncoder{encodings: true, mem: mem}
		enc.use(codec.SettingZstd)
		chunk, _, err := enc.encode(nil, a)
		a.Release()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(chunk[:len(chunk)-4], uint8(i), true)
	}
	f.Fuzz(func(t *testing.T, body []byte, typ uint8, fixSum bool) {
		dt := fuzzTypes[int(typ)%len(fuzzTypes)]
		src := body
		if fixSum {
			src = appendChecksum(body)
		}
		checked := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer checked.AssertSize(t, 0)
		dec := &chunkDecoder{mem: checked}
		arr, err := dec.decode(dt, src, 1<<20)
		checkNarrow(t, dec, checked, dt, src, arr, err)
		checkRows(t, dec, checked, dt, src, arr, err)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error not ErrCorrupt: %v", err)
			}
			return
		}
		defer arr.Release()
		if arr.Len() < 0 || arr.NullN() > arr.Len() {
			t.Fatalf("array of %d rows, %d nulls", arr.Len(), arr.NullN())
		}
		enc := &chunkEncoder{encodings: true, mem: checked}
		enc.use(codec.SettingLZ4)
		again, _, err := enc.encode(nil, arr)
		if err != nil {
			return // a type the batch layer refuses to write, e.g. a slice arrow-go cannot
		}
		back, err := dec.decode(dt, again, 1<<30)
		if err != nil {
			t.Fatalf("re-encoded chunk does not decode: %v", err)
		}
		defer back.Release()
		if !sameArray(arr, back) {
			t.Fatalf("round trip changed the array:\n%v\n%v", arr, back)
		}
	})
}
