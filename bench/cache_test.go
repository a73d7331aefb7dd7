package bench

import (
	"context"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestRunCache runs the whole harness on small relations, so CI exercises
// every cell, the answer checks and the report, and checks that every
// path releases its Arrow memory.
func TestRunCache(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	var out strings.Builder
	rep, err := RunCache(context.Background(), CacheConfig{Rows: 50_000, Runs: 1, Alloc: mem, ReadAlloc: mem}, &out)
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + out.String())
	if len(rep.Relations) != 4 {
		t.Fatalf("%d relations, want 4", len(rep.Relations))
	}
	for _, rel := range rep.Relations {
		// 5 settings, the uncompressed records, arrow-go lz4 and zstd.
		if len(rel.Cells) != 8 {
			t.Fatalf("%s: %d cells, want 8", rel.Name, len(rel.Cells))
		}
		for _, c := range rel.Cells {
			if c.Footprint <= 0 || len(c.Reads) != len(rel.Queries) || len(c.Reads[0]) != 1 {
				t.Errorf("%s %s: empty measurement %+v", rel.Name, c.Name, c)
			}
		}
	}
	comet := rep.Relations[0]
	if comet.Name != "comet" || comet.Filter != "id BETWEEN 45000 AND 47500" {
		t.Errorf("comet relation %q, filter %q", comet.Name, comet.Filter)
	}
	if len(rep.Targets) != 3 {
		t.Errorf("%d targets, want 3", len(rep.Targets))
	}
	for _, want := range []string{"| setting ", "| materialize ms ", "| read 6 ms ", "| filter decoded ", "| read 1500 ms ", "| uncompressed ", "| arrow-go zstd ", "Targets", "auto: filter"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q", want)
		}
	}
}

// TestRunCacheConcurrent: Put and Scan on two goroutines give the same
// answers (RunCache checks them) and release everything too.
func TestRunCacheConcurrent(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	var out strings.Builder
	cfg := CacheConfig{Rows: 50_000, Runs: 2, Goroutines: 2, BatchRows: 4096, Relations: []RelationSpec{{}, {Ints: 30, Rows: 10_000}}, Alloc: mem, ReadAlloc: mem}
	if _, err := RunCache(context.Background(), cfg, &out); err != nil {
		t.Fatal(err)
	}
}

// badHolder answers one more row than there are.
type badHolder struct{ memHolder }

func (b *badHolder) read(ctx context.Context, q *query) (answer, int, int, error) {
	a, d, n, err := b.memHolder.read(ctx, q)
	a.rows++
	return a, d, n, err
}

// TestCacheWrongAnswer: a holder whose answer differs from the records'
// fails the run instead of printing a number.
func TestCacheWrongAnswer(t *testing.T) {
	rel := buildRelation(nil, RelationSpec{Rows: 1000}, 300)
	defer release(rel.recs)
	cells := []*cacheCell{
		{name: "uncompressed", kind: cellMemory, h: &memHolder{rel: rel}},
		{name: "bad", kind: cellCache, h: &badHolder{memHolder{rel: rel}}},
	}
	_, err := warmUpCache(context.Background(), rel, cells, t.Logf)
	if err == nil || !strings.Contains(err.Error(), "bad read 0: wrong answer") {
		t.Fatalf("err = %v", err)
	}
}

// TestSums checks the summing kernels against a plain loop, on slices
// (non-zero offsets) of arrays with nulls whose slots hold garbage.
func TestSums(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	ib := array.NewInt64Builder(mem)
	sb := array.NewStringBuilder(mem)
	var want []int64
	var wantStr []string
	for i := range 1000 {
		if i%7 == 3 {
			ib.AppendNull()
			sb.AppendNull()
		} else {
			ib.Append(int64(i*i - 500))
			sb.Append(strings.Repeat("x", i%5) + string(rune('a'+i%26)))
		}
		want = append(want, int64(i*i-500))
		wantStr = append(wantStr, strings.Repeat("x", i%5)+string(rune('a'+i%26)))
	}
	ints, strs := ib.NewInt64Array(), sb.NewStringArray()
	defer ints.Release()
	defer strs.Release()
	ib.Release()
	sb.Release()
	// Garbage in the null slots: the kernels must not read them.
	vals := arrow.Int64Traits.CastFromBytes(ints.Data().Buffers()[1].Bytes())
	for i := 3; i < 1000; i += 7 {
		vals[i] = 1 << 40
	}
	for _, off := range []int{0, 5, 13} {
		n := 1000 - off - 7
		is := array.NewSlice(ints, int64(off), int64(off+n))
		ss := array.NewSlice(strs, int64(off), int64(off+n))
		var wi, ws, wcount, wbetween int64
		for i := off; i < off+n; i++ {
			if i%7 == 3 {
				continue
			}
			wi += want[i]
			ws += int64(len(wantStr[i])) + int64(wantStr[i][0])
			if want[i] >= 1000 && want[i] <= 90000 {
				wcount++
				wbetween += want[i]
			}
		}
		if got, err := sumColumn(is); err != nil || got != wi {
			t.Errorf("offset %d: int sum %d, %v; want %d", off, got, err, wi)
		}
		if got, err := sumColumn(ss); err != nil || got != ws {
			t.Errorf("offset %d: string sum %d, %v; want %d", off, got, err, ws)
		}
		if c, s := sumBetween(is.(*array.Int64), 1000, 90000); c != wcount || s != wbetween {
			t.Errorf("offset %d: between %d, %d; want %d, %d", off, c, s, wcount, wbetween)
		}
		is.Release()
		ss.Release()
	}
}

func TestParseRelation(t *testing.T) {
	for _, text := range []string{"comet", "comet:1000", "int100", "int1500:100000", "int7"} {
		r, err := ParseRelation(text)
		if err != nil || r.String() != text {
			t.Errorf("%q: %+v, %v", text, r, err)
		}
	}
	for _, text := range []string{"", "int", "int0", "int-3", "intx", "comet:0", "comet:x", "wide100"} {
		if _, err := ParseRelation(text); err == nil {
			t.Errorf("%q: no error", text)
		}
	}
	for _, c := range []struct {
		spec RelationSpec
		rows int
	}{{RelationSpec{}, 5_000_000}, {RelationSpec{Ints: 100}, 1_000_000}, {RelationSpec{Ints: 200}, 1_000_000}, {RelationSpec{Ints: 1500}, 100_000}, {RelationSpec{Ints: 1500, Rows: 7}, 7}} {
		if got := c.spec.withRows(5_000_000).Rows; got != c.rows {
			t.Errorf("%v: %d rows, want %d", c.spec, got, c.rows)
		}
	}
}

var (
	cacheReportRows = flag.Int("cache.rows", 0, "run TestCacheReport on this many Comet rows (e.g. 5000000)")
	cacheReportRuns = flag.Int("cache.runs", 5, "runs per cell in TestCacheReport")
)

// TestCacheReport is the real measurement, skipped unless -cache.rows is
// given:
//
//	go test -run TestCacheReport -timeout 2h -v ./bench -cache.rows 5000000
func TestCacheReport(t *testing.T) {
	if *cacheReportRows == 0 {
		t.Skip("set -cache.rows to run the full measurement")
	}
	_, err := RunCache(context.Background(), CacheConfig{Rows: *cacheReportRows, Runs: *cacheReportRuns, Progress: os.Stderr}, os.Stdout)
	if err != nil {
		t.Fatal(err)
	}
}
