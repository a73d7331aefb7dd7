package batch

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/internal/datagen"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the committed fuzz seed corpus under testdata/fuzz")

// seedStreams returns tiny valid streams and files, a few hundred bytes
// each: one small batch per codec, one per datagen.SeedGroups group
// (together every type family, dictionaries included), a sliced record
// and an empty one, whose arrays arrow-go builds from empty buffers.
// Seeds of all the types in one schema were 10 KB apiece, and the fuzzer
// spent its minutes minimizing them (22 inputs in 6 minutes).
func seedStreams(t testing.TB) (streams, files [][]byte) {
	mem := memory.NewGoAllocator()
	type seed struct {
		codec codec.Setting
		rec   arrow.RecordBatch
	}
	var seeds []seed
	for _, c := range []codec.Setting{codec.SettingNone, codec.SettingLZ4, codec.SettingZstd} {
		seeds = append(seeds, seed{c, datagen.Tiny(mem, 3, 1, datagen.SeedGroups[0]...)})
	}
	for i, g := range datagen.SeedGroups[1:] {
		seeds = append(seeds, seed{codec.SettingNone, datagen.Tiny(mem, 3, uint64(i+2), g...)})
	}
	five := datagen.Tiny(mem, 5, 11, datagen.SeedGroups[0]...)
	seeds = append(seeds, seed{codec.SettingNone, five.NewSlice(2, 4)}, seed{codec.SettingNone, five.NewSlice(3, 3)})
	five.Release()
	for _, seed := range seeds {
		var sb, fb bytes.Buffer
		sw, _ := NewStreamWriter(&sb, seed.rec.Schema(), WriteOptions{Codec: seed.codec})
		fw, _ := NewFileWriter(&fb, seed.rec.Schema(), WriteOptions{Codec: seed.codec})
		if err := sw.Write(seed.rec); err != nil {
			t.Fatal(err)
		}
		if err := fw.Write(seed.rec); err != nil {
			t.Fatal(err)
		}
		sw.Close()
		fw.Close()
		seed.rec.Release()
		streams = append(streams, sb.Bytes())
		files = append(files, fb.Bytes())
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
	f.Fuzz(checkStream)
}

// checkStream reads data as a stream, in turn and ahead: no panic, no
// leak, only documented errors, the same records both ways.
func checkStream(t *testing.T, data []byte) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	r, err := NewStreamReader(bytes.NewReader(data), ReadOptions{Alloc: mem, Limits: fuzzLimits})
	if err != nil {
		checkErr(t, err)
		return
	}
	defer r.Release()
	// The same stream decoded ahead on goroutines must give the same
	// records and fail at the same batch with the same error.
	ahead, err := NewStreamReader(bytes.NewReader(data), ReadOptions{Alloc: mem, Limits: fuzzLimits, Prefetch: 3})
	if err != nil {
		t.Fatalf("second reader of the stream: %v", err)
	}
	defer ahead.Release()
	for i := range 100 {
		rec, err := r.Next()
		got, aerr := ahead.Next()
		if err != nil || aerr != nil {
			release(rec, got)
			checkErr(t, err)
			if fmt.Sprint(err) != fmt.Sprint(aerr) {
				t.Fatalf("batch %d: read in turn: %v; read ahead: %v", i, err, aerr)
			}
			return
		}
		touch(rec)
		same := printed(rec) == printed(got)
		release(rec, got)
		if !same {
			t.Fatalf("batch %d differs when read ahead", i)
		}
	}
}

func release(recs ...arrow.RecordBatch) {
	for _, r := range recs {
		if r != nil {
			r.Release()
		}
	}
}

// printed returns the row count and the first rows of each column as
// String prints them (when that is bounded; see touch).
func printed(rec arrow.RecordBatch) string {
	head := rec.NewSlice(0, min(rec.NumRows(), 1000))
	defer head.Release()
	out := fmt.Sprint(rec.NumRows())
	for _, c := range head.Columns() {
		if printCost(c.Data(), 0, int64(c.Len()), printBudget) <= printBudget {
			out += "\n" + c.String()
		}
	}
	return out
}

func FuzzFileReader(f *testing.F) {
	_, files := seedStreams(f)
	for _, s := range files {
		f.Add(s)
	}
	f.Fuzz(checkFile)
}

// checkFile reads data as a file: no panic, no leak, only documented
// errors.
func checkFile(t *testing.T, data []byte) {
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
}

// touch reads the first rows of every column through arrow-go's
// accessors (String walks offsets, views, dictionaries and children), so
// an array that passed our checks but is not safe would panic here. The
// whole columns as decoded are validated too: a slice forgets its null
// count, and nested arrays are only validated here.
//
// Only the first rows are walked, and only when that prints a bounded
// number of values: a hostile batch may rightly claim two billion rows of
// a type that needs no buffer (null, empty struct), as top-level rows or
// inside a few lists, and list views and string views may overlap.
func touch(rec arrow.RecordBatch) {
	head := rec.NewSlice(0, min(rec.NumRows(), 1000))
	defer head.Release()
	for i, c := range head.Columns() {
		for _, a := range []arrow.Array{rec.Column(i), c} {
			if err := validateArray(a); err != nil {
				panic(fmt.Sprintf("decoded array fails arrow-go validation: %v", err))
			}
		}
		if printCost(c.Data(), 0, int64(c.Len()), printBudget) <= printBudget {
			_ = c.String()
		}
	}
}

// printBudget is how many values and bytes touch lets String print for
// one column.
const printBudget = 1 << 20

// printCost returns about how many values and bytes String prints for
// rows [off, off+n) of d, or some number above limit once it passes it.
// It runs on validated arrays only.
func printCost(d arrow.ArrayData, off, n, limit int64) int64 {
	cost := n
	over := func(c int64) bool {
		cost += c
		return cost > limit
	}
	off += int64(d.Offset())
	bufs, kids := d.Buffers(), d.Children()
	switch dt := d.DataType().(type) {
	case *arrow.BinaryType, *arrow.StringType, *arrow.ListType, *arrow.MapType:
		if n > 0 {
			lo, hi := readInt(bufs[1].Bytes(), int(off), 4), readInt(bufs[1].Bytes(), int(off+n), 4)
			if len(kids) == 0 {
				over(hi - lo)
			} else {
				over(printCost(kids[0], lo, hi-lo, limit-cost))
			}
		}
	case *arrow.LargeBinaryType, *arrow.LargeStringType, *arrow.LargeListType:
		if n > 0 {
			lo, hi := readInt(bufs[1].Bytes(), int(off), 8), readInt(bufs[1].Bytes(), int(off+n), 8)
			if len(kids) == 0 {
				over(hi - lo)
			} else {
				over(printCost(kids[0], lo, hi-lo, limit-cost))
			}
		}
	case *arrow.BinaryViewType, *arrow.StringViewType:
		for i := off; i < off+n; i++ {
			if over(readInt(bufs[1].Bytes(), int(i)*4, 4)) { // the length opens each 16-byte view
				break
			}
		}
	case *arrow.ListViewType, *arrow.LargeListViewType:
		w := 4
		if dt.ID() == arrow.LARGE_LIST_VIEW {
			w = 8
		}
		for i := off; i < off+n; i++ {
			o, size := readInt(bufs[1].Bytes(), int(i), w), readInt(bufs[2].Bytes(), int(i), w)
			if over(printCost(kids[0], o, size, limit-cost)) {
				break
			}
		}
	case *arrow.FixedSizeListType:
		k := int64(dt.Len())
		over(printCost(kids[0], off*k, n*k, limit-cost))
	case *arrow.StructType, *arrow.SparseUnionType:
		for _, k := range kids {
			if over(printCost(k, off, n, limit-cost)) {
				break
			}
		}
	case *arrow.DenseUnionType:
		ids := dt.ChildIDs()
		for i := off; i < off+n; i++ {
			k := kids[ids[int8(bufs[1].Bytes()[i])]]
			if over(printCost(k, readInt(bufs[2].Bytes(), int(i), 4), 1, limit-cost)) {
				break
			}
		}
	case *arrow.RunEndEncodedType:
		// The runs that cover the rows, each printed once.
		ends, values := kids[0], kids[1]
		first, last := -1, -1
		for j := 0; j < ends.Len() && last < 0; j++ {
			e := runEndAt(ends, j)
			if first < 0 && e > off {
				first = j
			}
			if e >= off+n {
				last = j
			}
		}
		if first >= 0 && last >= first {
			over(printCost(values, int64(first), int64(last-first+1), limit-cost))
		}
	case *arrow.DictionaryType:
		dict := d.Dictionary()
		over(printCost(dict, 0, int64(dict.Len()), limit-cost))
	}
	return cost
}

// validateArray runs arrow-go's full validation (layout, null count,
// offsets, dictionary indices, recursively through children and
// dictionaries). Invalid UTF-8 in a string array is let through, as Arrow
// C++'s IPC reader lets it through: it is a content problem, not a
// memory-safety one, and Go strings hold any bytes. arrow-go stops at the
// first invalid string, so the rest is then validated piece by piece.
func validateArray(a arrow.Array) error {
	err := array.ValidateFull(a)
	if err == nil || !strings.Contains(err.Error(), "not valid utf8") {
		return err
	}
	d := a.Data()
	if bin := binaryOf(d.DataType()); bin != nil {
		// A string array checks its UTF-8 last; validate it as binary.
		bd := array.NewData(bin, d.Len(), d.Buffers(), nil, d.NullN(), d.Offset())
		defer bd.Release()
		b := array.MakeFromData(bd)
		defer b.Release()
		return array.ValidateFull(b)
	}
	// The array's own checks passed before arrow-go walked down into
	// what holds the invalid string.
	if ext, ok := a.(array.ExtensionArray); ok {
		return validateArray(ext.Storage())
	}
	nested := d.Children()
	if d.DataType().ID() == arrow.DICTIONARY {
		nested = append(nested[:len(nested):len(nested)], d.Dictionary())
	}
	for _, c := range nested {
		ca := array.MakeFromData(c)
		err := validateArray(ca)
		ca.Release()
		if err != nil {
			return err
		}
	}
	return nil
}

// binaryOf returns the binary type with the layout of string type dt, or
// nil when dt is not a string type.
func binaryOf(dt arrow.DataType) arrow.DataType {
	switch dt.ID() {
	case arrow.STRING:
		return arrow.BinaryTypes.Binary
	case arrow.LARGE_STRING:
		return arrow.BinaryTypes.LargeBinary
	case arrow.STRING_VIEW:
		return arrow.BinaryTypes.BinaryView
	}
	return nil
}

// FuzzRoundTrip: whatever quiver encodes it decodes to an equal record.
// Each input picks one group of datagen.SeedGroups (together every type):
// building, encoding and validating every type at once for each input ran
// about a hundred inputs a second.
func FuzzRoundTrip(f *testing.F) {
	f.Add(uint64(1), uint16(10), uint8(0), uint8(0), uint8(5), uint8(0))
	f.Add(uint64(2), uint16(100), uint8(1), uint8(3), uint8(50), uint8(7))
	f.Add(uint64(3), uint16(0), uint8(2), uint8(0), uint8(0), uint8(14))
	f.Fuzz(func(t *testing.T, seed uint64, rows uint16, codecSel, sliceOff, sliceLen, group uint8) {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		rec := datagen.Tiny(mem, int(rows%300), seed, datagen.SeedGroups[int(group)%len(datagen.SeedGroups)]...)
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
		touch(got)
	})
}

// TestWriteFuzzCorpus rewrites testdata/fuzz seeds when run with -rewrite.
func TestWriteFuzzCorpus(t *testing.T) {
	if !*rewrite {
		t.Skip("run with -rewrite to rewrite the seed corpus")
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

// TestLargeFuzzInputs runs the stream and file checks over inputs too
// large for the fuzz corpus (the fuzzer would spend its time minimizing
// them): every type in one schema, per codec, and the crashers of that
// size the fuzzer once found, kept under testdata/regress/<target>/.
func TestLargeFuzzInputs(t *testing.T) {
	mem := memory.NewGoAllocator()
	rec := datagen.Record(mem, 12, 11)
	defer rec.Release()
	for _, c := range []codec.Setting{codec.SettingNone, codec.SettingLZ4, codec.SettingZstd} {
		var sb, fb bytes.Buffer
		sw, _ := NewStreamWriter(&sb, rec.Schema(), WriteOptions{Codec: c})
		fw, _ := NewFileWriter(&fb, rec.Schema(), WriteOptions{Codec: c})
		if err := errors.Join(sw.Write(rec), fw.Write(rec), sw.Close(), fw.Close()); err != nil {
			t.Fatal(err)
		}
		t.Run("all-types/"+c.String(), func(t *testing.T) {
			checkStream(t, sb.Bytes())
			checkFile(t, fb.Bytes())
		})
	}
	for target, check := range map[string]func(*testing.T, []byte){"FuzzStreamReader": checkStream, "FuzzFileReader": checkFile} {
		paths, _ := filepath.Glob(filepath.Join("testdata", "regress", target, "*"))
		for _, p := range paths {
			t.Run(target+"/"+filepath.Base(p), func(t *testing.T) { check(t, readFuzzInput(t, p)) })
		}
	}
}

// readFuzzInput reads a one-[]byte file in the "go test fuzz v1" format.
func readFuzzInput(t *testing.T, path string) []byte {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, rest, _ := strings.Cut(string(b), "\n")
	lit, ok := strings.CutPrefix(strings.TrimSpace(rest), "[]byte(")
	if !ok || !strings.HasSuffix(lit, ")") {
		t.Fatalf("%s: not a []byte fuzz input", path)
	}
	s, err := strconv.Unquote(strings.TrimSuffix(lit, ")"))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return []byte(s)
}
