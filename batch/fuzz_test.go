package batch

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/internal/testrec"
)

var writeCorpus = flag.Bool("corpus", false, "rewrite the committed fuzz seed corpus under testdata/fuzz")

// seedStreams returns small valid streams and files: every codec, a
// dictionary-bearing schema, a sliced record.
func seedStreams(t testing.TB) (streams, files [][]byte) {
	mem := memory.NewGoAllocator()
	rec := testrec.Build(mem, 12, 11)
	defer rec.Release()
	small := rec.NewSlice(2, 9)
	defer small.Release()
	for _, s := range []codec.Setting{codec.SettingNone, codec.SettingLZ4, codec.SettingZstd} {
		for _, r := range []arrow.RecordBatch{rec, small} {
			var sb, fb bytes.Buffer
			sw, _ := NewStreamWriter(&sb, r.Schema(), WriteOptions{Codec: s})
			fw, _ := NewFileWriter(&fb, r.Schema(), WriteOptions{Codec: s})
			if err := sw.Write(r); err != nil {
				t.Fatal(err)
			}
			if err := fw.Write(r); err != nil {
				t.Fatal(err)
			}
			sw.Close()
			fw.Close()
			streams = append(streams, sb.Bytes())
			files = append(files, fb.Bytes())
		}
	}
	return streams, files
}

// checkErr fails unless err is nil, io.EOF or one of the documented
// sentinels.
func checkErr(t *testing.T, err error) {
	if err == nil || err == io.EOF || errors.Is(err, ErrCorrupt) || errors.Is(err, ErrLimit) || errors.Is(err, ErrUnsupported) {
		return
	}
	t.Fatalf("error matches no sentinel: %v", err)
}

// fuzzLimits keep hostile inputs from allocating much in the fuzzer.
var fuzzLimits = Limits{MaxBody: 1 << 20, MaxUncompressed: 16 << 20, RatioFloor: 4 << 20, MaxMetadata: 1 << 20}

func FuzzStreamReader(f *testing.F) {
	streams, _ := seedStreams(f)
	for _, s := range streams {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		r, err := NewStreamReader(bytes.NewReader(data), ReadOptions{Alloc: mem, Limits: fuzzLimits})
		if err != nil {
			checkErr(t, err)
			return
		}
		defer r.Release()
		for range 100 {
			rec, err := r.Next()
			if err != nil {
				checkErr(t, err)
				return
			}
			touch(rec)
			rec.Release()
		}
	})
}

func FuzzFileReader(f *testing.F) {
	_, files := seedStreams(f)
	for _, s := range files {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		r, err := NewFileReader(bytes.NewReader(data), int64(len(data)), ReadOptions{Alloc: mem, Limits: fuzzLimits, Concurrency: 2})
		if err != nil {
			checkErr(t, err)
			return
		}
		defer r.Release()
		for i := range min(r.NumRecords(), 100) {
			rec, err := r.Record(i)
			if err != nil {
				checkErr(t, err)
				continue
			}
			touch(rec)
			rec.Release()
		}
	})
}

// touch reads every value through arrow-go's accessors (String walks
// offsets, views, dictionaries and children), so an array that passed
// our checks but is not safe would panic here.
// Only the first rows are walked: a hostile batch may rightly claim two
// billion rows of a type that needs no buffer (null, empty struct).
func touch(rec arrow.RecordBatch) {
	head := rec.NewSlice(0, min(rec.NumRows(), 1000))
	defer head.Release()
	for _, c := range head.Columns() {
		_ = c.String()
		if err := validateArray(c); err != nil {
			panic(fmt.Sprintf("decoded array fails arrow-go validation: %v", err))
		}
	}
}

// validateArray runs arrow-go's own full validation where it has one.
// Invalid UTF-8 in a string column is let through, as Arrow C++'s IPC
// reader lets it through: it is a content problem, not a memory-safety
// one, and Go strings hold any bytes.
func validateArray(a arrow.Array) error {
	if v, ok := a.(interface{ ValidateFull() error }); ok {
		if err := v.ValidateFull(); err != nil && !strings.Contains(err.Error(), "not valid utf8") {
			return err
		}
	}
	return nil
}

// FuzzRoundTrip: whatever quiver encodes it decodes to an equal record.
func FuzzRoundTrip(f *testing.F) {
	f.Add(uint64(1), uint16(10), uint8(0), uint8(0), uint8(5))
	f.Add(uint64(2), uint16(100), uint8(1), uint8(3), uint8(50))
	f.Add(uint64(3), uint16(0), uint8(2), uint8(0), uint8(0))
	f.Fuzz(func(t *testing.T, seed uint64, rows uint16, codecSel, sliceOff, sliceLen uint8) {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		rec := testrec.Build(mem, int(rows%300), seed)
		defer rec.Release()
		lo := min(int64(sliceOff), rec.NumRows())
		hi := min(lo+int64(sliceLen), rec.NumRows())
		part := rec.NewSlice(lo, hi)
		defer part.Release()
		s := []codec.Setting{codec.SettingNone, codec.SettingLZ4, codec.SettingZstd}[codecSel%3]
		var buf bytes.Buffer
		w, err := NewStreamWriter(&buf, rec.Schema(), WriteOptions{Codec: s, Alloc: mem})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(part); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		r, err := NewStreamReader(&buf, ReadOptions{Alloc: mem})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Release()
		got, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		defer got.Release()
		if !array.RecordEqual(part, got) {
			t.Fatal("round trip differs")
		}
	})
}

// TestWriteFuzzCorpus rewrites testdata/fuzz seeds when run with -corpus.
func TestWriteFuzzCorpus(t *testing.T) {
	if !*writeCorpus {
		t.Skip("run with -corpus to rewrite the seed corpus")
	}
	streams, files := seedStreams(t)
	write := func(target string, seeds [][]byte) {
		dir := filepath.Join("testdata", "fuzz", target)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for i, s := range seeds {
			body := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", s)
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("seed-%02d", i)), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	write("FuzzStreamReader", streams)
	write("FuzzFileReader", files)
}
