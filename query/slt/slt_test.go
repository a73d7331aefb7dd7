package slt

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/query"
)

// passFloor is the share of the records that apply which must pass: set
// at what the engine reaches, so that it cannot regress unnoticed.
// 10,924 of the 10,936 records of select1-5 and the evidence scripts
// pass (99.89%); the 12 others are an empty IN () list, x'…' literals and
// comparisons of a string with an integer column that SQLite's type
// affinity allows (see the failures the test prints).
const passFloor = 0.998

// shortFloor is passFloor for a -short run, where the 12 failures of the
// evidence scripts weigh more: 1,249 of 1,261 records pass.
const shortFloor = 0.99

// engineDB runs scripts on a query.Engine.
type engineDB struct{ e *query.Engine }

func (d engineDB) Query(ctx context.Context, sql string) (array.RecordReader, error) {
	return d.e.Query(ctx, sql)
}

var list = flag.Bool("slt.list", false, "list every failed record (else a few of each kind)")

// reason is a failure's why without the positions and names that make
// each record's differ.
func reason(why string) string {
	why = positions.ReplaceAllString(why, "")
	if i := strings.Index(why, " ("); i > 0 {
		why = why[:i]
	}
	if len(why) > 120 {
		why = why[:120]
	}
	return why
}

var positions = regexp.MustCompile(` at line \d+, column \d+`)

var only = flag.String("slt.files", "", "run only the scripts whose path contains this")

// shortScripts are the scripts a -short run takes (the race detector's
// pass in CI): select1 and the evidence scripts. The whole corpus (about
// 50 s; select5.test joins up to 64 tables) runs without -short.
var shortScripts = []string{"select1.test"}

func TestCorpus(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.test")
	ev, _ := filepath.Glob("testdata/evidence/*.test")
	files = append(files, ev...)
	if os.Getenv("SLT_TRACE") != "" {
		Trace = func(r *Record) { fmt.Fprintf(os.Stderr, "line %d\n", r.Line) }
	}
	if *only != "" {
		files = slices.DeleteFunc(files, func(f string) bool { return !strings.Contains(f, *only) })
	} else {
		files = slices.DeleteFunc(files, func(f string) bool {
			base := filepath.Base(f)
			return testing.Short() && strings.HasPrefix(base, "select") && !slices.Contains(shortScripts, base)
		})
	}
	sort.Strings(files)
	if len(files) == 0 {
		t.Fatal("no scripts in testdata")
	}
	var passed, failed, skipped int
	var out strings.Builder
	groups := map[string][]string{}
	for _, f := range files {
		rep := runFile(t, f)
		passed += rep.Passed
		failed += rep.Failed
		skipped += rep.Skipped
		fmt.Fprintf(&out, "%s: passed %d of %d records (%d skipped)\n", f, rep.Passed, rep.Passed+rep.Failed, rep.Skipped)
		for _, sl := range rep.Slow {
			fmt.Fprintf(&out, "  %s: slow: %s\n", f, sl)
		}
		for _, fl := range rep.Failures {
			why := reason(fl.Why)
			groups[why] = append(groups[why], fmt.Sprintf("%s:%s", f, fl))
		}
	}
	// Failures grouped by why, most frequent first, a few records each
	// (-slt.list prints all).
	whys := make([]string, 0, len(groups))
	for w := range groups {
		whys = append(whys, w)
	}
	sort.Slice(whys, func(i, j int) bool { return len(groups[whys[i]]) > len(groups[whys[j]]) })
	for _, w := range whys {
		fmt.Fprintf(&out, "%d failed: %s\n", len(groups[w]), w)
		for i, rec := range groups[w] {
			if i == 3 && !*list {
				break
			}
			fmt.Fprintf(&out, "    %s\n", rec)
		}
	}
	t.Log("\n" + out.String())
	t.Logf("passed %d of %d records (%d skipped)", passed, passed+failed, skipped)
	floor := passFloor
	if testing.Short() && *only == "" {
		floor = shortFloor
	}
	if share := float64(passed) / float64(passed+failed); share < floor {
		t.Errorf("passed %.4f of the records that apply, below the floor %.4f", share, floor)
	}
}

func runFile(t *testing.T, path string) Report {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := Parse(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	c, err := cache.New(cache.Options{Alloc: mem})
	if err != nil {
		t.Fatal(err)
	}
	e := query.New(c, query.Options{Alloc: mem, MemoryLimit: 256 << 20})
	rep := Run(context.Background(), engineDB{e}, path, recs)
	for _, name := range c.Tables() {
		c.Drop(name)
	}
	mem.AssertSize(t, 0)
	return rep
}
