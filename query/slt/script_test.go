package slt

import (
	"context"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/query"
)

const sample = `# a comment
hash-threshold 6

statement ok
CREATE TABLE t(a INTEGER, b VARCHAR(10))

statement ok
INSERT INTO t VALUES(1,'x'),(2,''),(3,NULL)

onlyif sqlite # SQLite only
query I nosort
SELECT 1 IN ()
----
0

skipif postgresql
statement ok
SELECT nonsense

query IT rowsort
SELECT a, b FROM t
----
1
x
2
(empty)
3
NULL

query R valuesort label-1
SELECT a / 2.0 FROM t
----
0.500
1.000
1.500

query I nosort label-1
SELECT a FROM t
----
3 values hashing to 0

query I nosort
SELECT a * 10 FROM t ORDER BY 1
----
10
20
31

statement error
SELECT * FROM missing

query T nosort
SELECT b FROM t WHERE a < 3 UNION ALL SELECT b FROM t UNION ALL SELECT 'y' UNION ALL SELECT 'z'
----
7 values hashing to 0

halt

statement ok
SELECT nonsense
`

// TestRunSample: parsing, skipif/onlyif, sort modes, rendering, hashing
// and labels, checked against results written by hand.
func TestRunSample(t *testing.T) {
	recs, err := Parse(strings.NewReader(sample))
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 13 || recs[0].Kind != HashThreshold || recs[0].Threshold != 6 || recs[11].Kind != Halt {
		t.Fatalf("%d records: %+v", len(recs), recs[0])
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	c, _ := cache.New(cache.Options{Alloc: mem})
	defer c.Drop("t")
	rep := Run(context.Background(), engineDB{query.New(c, query.Options{Alloc: mem})}, "sample", recs)
	// Passed: 2 statements, rowsort, valuesort, statement error. Failed:
	// the label (its hash differs), the wrong value 31, the wrong hash.
	if rep.Passed != 5 || rep.Failed != 3 || rep.Skipped != 2 {
		t.Fatalf("passed %d, failed %d, skipped %d: %v", rep.Passed, rep.Failed, rep.Skipped, rep.Failures)
	}
	for i, want := range []string{"labelled label-1", `value 3: expected "31", got "30"`, "expected 7 values hashing to 0, got 7 values hashing to"} {
		if !strings.Contains(rep.Failures[i].Why, want) {
			t.Errorf("failure %d: %s, want %q", i, rep.Failures[i].Why, want)
		}
	}
}

// TestRender: the reference runner's rendering of each type letter.
func TestRender(t *testing.T) {
	mem := memory.NewGoAllocator()
	ints := array.NewInt64Builder(mem)
	ints.AppendValues([]int64{7, -3}, nil)
	ints.AppendNull()
	ia := ints.NewArray()
	floats := array.NewFloat64Builder(mem)
	floats.AppendValues([]float64{2.5, -0.75, 3}, nil)
	fa := floats.NewArray()
	strs := array.NewStringBuilder(mem)
	strs.AppendValues([]string{"", "a\tb", "12abc"}, nil)
	sa := strs.NewArray()
	for _, tc := range []struct {
		arr  arrow.Array
		i    int
		t    byte
		want string
	}{
		{ia, 0, 'I', "7"}, {ia, 1, 'R', "-3.000"}, {ia, 2, 'I', "NULL"}, {ia, 0, 'T', "7"},
		{fa, 0, 'I', "2"}, {fa, 1, 'I', "0"}, {fa, 0, 'R', "2.500"}, {fa, 2, 'T', "3.0"},
		{sa, 0, 'T', "(empty)"}, {sa, 1, 'T', "a@b"}, {sa, 2, 'I', "12"},
	} {
		if got := Render(tc.arr, tc.i, tc.t); got != tc.want {
			t.Errorf("%s[%d] as %c: %q, want %q", tc.arr.DataType(), tc.i, tc.t, got, tc.want)
		}
	}
	for _, a := range []arrow.Array{ia, fa, sa} {
		a.Release()
	}
}
