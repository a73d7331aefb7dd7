package query

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/query/expr"
)

// The join tests build hashJoinNodes by hand over two cached tables, p
// (probe) and b (build), of the same columns, and compare what the join
// returns with a nested loop over the tables' rows written here.
//
//	i int64, f float64 (-0, 0, NaN among the values), d decimal(9,2),
//	s utf8 (short and past 8 bytes), dt date32, bo bool: key columns from
//	small domains, so keys repeat, each NULL one row in ten;
//	v int64 (what the residual compares), id int64 (the row number,
//	unique, NOT NULL), tag int32 (a stored type passed through), u int64
//	(the row number, NULL every seventh row: unique keys with NULLs)
var joinSchema = arrow.NewSchema([]arrow.Field{
	{Name: "i", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "f", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "d", Type: &arrow.Decimal128Type{Precision: 9, Scale: 2}, Nullable: true},
	{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "dt", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
	{Name: "bo", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
	{Name: "v", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "id", Type: arrow.PrimitiveTypes.Int64},
	{Name: "tag", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	{Name: "u", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
}, nil)

// joinSide is how one side of a test join is made.
type joinSide struct {
	rows, batch int
	domain      int     // of i: 1 makes every i equal
	nullP       float64 // of each key column
	hot         float64 // share of the rows whose i is 0 (a skewed key)
}

// joinTables puts p and b into a new cache of mem and returns it with
// each table as one batch, for the reference (from an allocator of its
// own, so that mem holds nothing between queries).
func joinTables(t testing.TB, mem memory.Allocator, seed uint64, p, b joinSide) (*cache.Cache, map[string]arrow.RecordBatch) {
	t.Helper()
	c, err := cache.New(cache.Options{Alloc: mem})
	if err != nil {
		t.Fatal(err)
	}
	own := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() { own.AssertSize(t, 0) })
	rng := rand.New(rand.NewPCG(seed, 5))
	recs := map[string]arrow.RecordBatch{}
	for _, tab := range []struct {
		name string
		side joinSide
	}{{"p", p}, {"b", b}} {
		rec := joinRecord(own, rng, tab.side)
		recs[tab.name] = rec
		var parts []arrow.RecordBatch
		for lo := int64(0); lo < rec.NumRows(); lo += int64(tab.side.batch) {
			parts = append(parts, rec.NewSlice(lo, min(lo+int64(tab.side.batch), rec.NumRows())))
		}
		r, _ := array.NewRecordReader(joinSchema, parts)
		_, err := c.Put(context.Background(), tab.name, r, cache.TableOptions{Codec: cache.Fixed(codec.SettingLZ4)})
		r.Release()
		for _, part := range parts {
			part.Release()
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		for _, r := range recs {
			cellsMemoMu.Lock()
			delete(cellsMemo, r)
			cellsMemoMu.Unlock()
			r.Release()
		}
	})
	return c, recs
}

var (
	joinFloats  = []float64{math.Copysign(0, -1), 0, 1.5, math.NaN(), -2.25, 3}
	joinStrings = []string{"", "a", "B", "ab", "a string past eight bytes", "a string past eight bytez"}
)

func joinRecord(mem memory.Allocator, rng *rand.Rand, side joinSide) arrow.RecordBatch {
	b := array.NewRecordBuilder(mem, joinSchema)
	defer b.Release()
	null := func(col int) bool {
		if rng.Float64() < side.nullP {
			b.Field(col).AppendNull()
			return true
		}
		return false
	}
	for row := range side.rows {
		if side.hot > 0 && rng.Float64() < side.hot {
			b.Field(0).(*array.Int64Builder).Append(0)
		} else if !null(0) {
			b.Field(0).(*array.Int64Builder).Append(int64(rng.IntN(side.domain)))
		}
		if !null(1) {
			b.Field(1).(*array.Float64Builder).Append(joinFloats[rng.IntN(len(joinFloats))])
		}
		if !null(2) {
			b.Field(2).(*array.Decimal128Builder).Append(decimal128.FromI64(int64(rng.IntN(5)) * 125))
		}
		if !null(3) {
			b.Field(3).(*array.StringBuilder).Append(joinStrings[rng.IntN(len(joinStrings))])
		}
		if !null(4) {
			b.Field(4).(*array.Date32Builder).Append(arrow.Date32(19000 + rng.IntN(5)))
		}
		if !null(5) {
			b.Field(5).(*array.BooleanBuilder).Append(rng.IntN(2) == 0)
		}
		if rng.IntN(10) == 0 {
			b.Field(6).AppendNull()
		} else {
			b.Field(6).(*array.Int64Builder).Append(int64(rng.IntN(20)))
		}
		b.Field(7).(*array.Int64Builder).Append(int64(row))
		b.Field(8).(*array.Int32Builder).Append(int32(row * 3))
		if row%7 == 6 {
			b.Field(9).AppendNull()
		} else {
			b.Field(9).(*array.Int64Builder).Append(int64(row))
		}
	}
	return b.NewRecordBatch()
}

// joinScan scans every column of a test table.
func joinScan(t testing.TB, c *cache.Cache, table string) *scanNode {
	t.Helper()
	info, err := c.Info(table)
	if err != nil {
		t.Fatal(err)
	}
	cols := make([]int, info.Schema.NumFields())
	for i := range cols {
		cols[i] = i
	}
	return &scanNode{table: table, info: info, columns: cols, fields: info.Schema.Fields()}
}

// emptied filters every row out of a side.
func emptied(t testing.TB, n planNode) planNode {
	f, err := expr.Literal(false)
	if err != nil {
		t.Fatal(err)
	}
	return &filterNode{in: n, pred: f, what: "Filter"}
}

// vLess is the test residual p.v < b.v.
func vLess(t testing.TB) expr.Expr {
	np := joinSchema.NumFields()
	e, err := expr.Compare(expr.Lt, expr.Column(6, "p.v", arrow.PrimitiveTypes.Int64),
		expr.Column(np+6, "b.v", arrow.PrimitiveTypes.Int64))
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// joinCase is one join the reference computes too.
type joinCase struct {
	kind                 joinKind
	probeKeys, buildKeys []int
	residual             bool
	emptyProbe           bool
	emptyBuild           bool
}

func (jc joinCase) node(t testing.TB, c *cache.Cache) *hashJoinNode {
	var probe, build planNode = joinScan(t, c, "p"), joinScan(t, c, "b")
	if jc.emptyProbe {
		probe = emptied(t, probe)
	}
	if jc.emptyBuild {
		build = emptied(t, build)
	}
	n := &hashJoinNode{probe: probe, build: build, kind: jc.kind, probeKeys: jc.probeKeys, buildKeys: jc.buildKeys, markName: "mark", estRows: -1}
	if jc.residual {
		n.residual = vLess(t)
	}
	return n
}

// reference joins the tables' rows with nested loops, as plan_join.go
// documents each kind, returning each row's cells joined by "|", or the
// error a single join must fail with.
func (jc joinCase) reference(recs map[string]arrow.RecordBatch) ([]string, error) {
	p, b := recs["p"], recs["b"]
	pc, bc := cellsOf(p), cellsOf(b)
	np, nb := int(p.NumRows()), int(b.NumRows())
	if jc.emptyProbe {
		np = 0
	}
	if jc.emptyBuild {
		nb = 0
	}
	nulls := slices.Repeat([]string{"NULL"}, joinSchema.NumFields())
	row := func(rec arrow.RecordBatch, r int) []string {
		switch {
		case r < 0:
			return nulls
		case rec == p:
			return pc[r]
		}
		return bc[r]
	}
	// Each row's keys and residual value, read once: the loops below
	// run rows × rows times (millions in the grace join's tests).
	pk, bk := rowKeys(p, pc, jc.probeKeys), rowKeys(b, bc, jc.buildKeys)
	keyNull := func(keys [][]string, r int) bool { return keys[r] == nil }
	buildNull := false
	for r := range nb {
		buildNull = buildNull || keyNull(bk, r)
	}
	pv, bv := p.Column(6).(*array.Int64), b.Column(6).(*array.Int64)
	matches := func(pr, br int) bool {
		if keyNull(pk, pr) || keyNull(bk, br) || !slices.Equal(pk[pr], bk[br]) {
			return false
		}
		if jc.residual {
			return pv.IsValid(pr) && bv.IsValid(br) && pv.Value(pr) < bv.Value(br)
		}
		return true
	}
	var out []string
	emit := func(cells ...[]string) { out = append(out, strings.Join(slices.Concat(cells...), "|")) }
	matched := make([]bool, nb)
	for pr := range np {
		var ms []int
		for br := range nb {
			if matches(pr, br) {
				ms = append(ms, br)
				matched[br] = true
			}
		}
		switch jc.kind {
		case joinInner, joinLeft, joinRight, joinFull, joinSingle:
			if jc.kind == joinSingle && len(ms) > 1 {
				return nil, errSingleRow
			}
			for _, br := range ms {
				emit(row(p, pr), row(b, br))
			}
			if len(ms) == 0 && (jc.kind == joinLeft || jc.kind == joinFull || jc.kind == joinSingle) {
				emit(row(p, pr), row(b, -1))
			}
		case joinSemi:
			if len(ms) > 0 {
				emit(row(p, pr))
			}
		case joinAnti:
			if len(ms) == 0 {
				emit(row(p, pr))
			}
		case joinNullAwareAnti:
			if nb == 0 || len(ms) == 0 && !buildNull && !keyNull(pk, pr) {
				emit(row(p, pr))
			}
		case joinMark:
			mark := "false"
			switch {
			case len(ms) > 0:
				mark = "true"
			case nb > 0 && (buildNull || keyNull(pk, pr)):
				mark = "NULL"
			}
			emit(row(p, pr), []string{mark})
		}
	}
	if jc.kind == joinRight || jc.kind == joinFull {
		for br := range nb {
			if !matched[br] {
				emit(row(p, -1), row(b, br))
			}
		}
	}
	if jc.kind == joinRightSemi || jc.kind == joinRightAnti {
		for br := range nb {
			if matched[br] == (jc.kind == joinRightSemi) {
				emit(row(b, br))
			}
		}
	}
	return out, nil
}

var errSingleRow = errors.New("more than one row returned by a subquery used as an expression")

// rowKeys is each row's keys as the join compares them, by row: nil
// when one is NULL, else their cells, with -0 written as 0 (SQL equality:
// -0 equals 0; NaN equals NaN, whose cells are all "NaN").
func rowKeys(rec arrow.RecordBatch, cells [][]string, keys []int) [][]string {
	out := make([][]string, rec.NumRows())
	for r := range out {
		k := make([]string, len(keys))
		for i, c := range keys {
			col := rec.Column(c)
			if col.IsNull(r) {
				k = nil
				break
			}
			k[i] = cells[r][c]
			if f, ok := col.(*array.Float64); ok && f.Value(r) == 0 {
				k[i] = "0"
			}
		}
		out[r] = k
	}
	return out
}

// cellsOf is every cell of rec, by row, computed once per table (under
// a lock: the heavy join tests run in parallel).
var (
	cellsMemo   = map[arrow.RecordBatch][][]string{}
	cellsMemoMu sync.Mutex
)

func cellsOf(rec arrow.RecordBatch) [][]string {
	cellsMemoMu.Lock()
	defer cellsMemoMu.Unlock()
	if c, ok := cellsMemo[rec]; ok {
		return c
	}
	out := make([][]string, rec.NumRows())
	for r := range out {
		out[r] = make([]string, rec.NumCols())
		for j, col := range rec.Columns() {
			out[r][j] = cell(col, r)
		}
	}
	cellsMemo[rec] = out
	return out
}

// runJoin runs n to the end and returns its rows, sorted, and its
// batches' sizes (runQuiet's checks).
func runJoin(t testing.TB, e *Engine, mem *memory.CheckedAllocator, n planNode) ([]string, []int, error) {
	t.Helper()
	rows, sizes, _, err := runJoinStats(t, e, mem, n)
	return rows, sizes, err
}

// runJoinStats is runJoin, with what the query spilled.
func runJoinStats(t testing.TB, e *Engine, mem *memory.CheckedAllocator, n planNode) ([]string, []int, SpillStats, error) {
	t.Helper()
	var rows []string
	var sizes []int
	st, err := runQuietStats(t, e, mem, n, func(rec arrow.RecordBatch) {
		sizes = append(sizes, int(rec.NumRows()))
		for i := range int(rec.NumRows()) {
			cells := make([]string, rec.NumCols())
			for j, col := range rec.Columns() {
				cells[j] = cell(col, i)
			}
			rows = append(rows, strings.Join(cells, "|"))
		}
	})
	slices.Sort(rows)
	return rows, sizes, st, err
}

// runQuiet runs n to the end, passing each batch to fn, checking each
// batch's schema and that the query gives back every byte it held.
func runQuiet(t testing.TB, e *Engine, mem *memory.CheckedAllocator, n planNode, fn func(arrow.RecordBatch)) error {
	t.Helper()
	_, err := runQuietStats(t, e, mem, n, fn)
	return err
}

// runQuietStats is runQuiet, with what the query spilled.
func runQuietStats(t testing.TB, e *Engine, mem *memory.CheckedAllocator, n planNode, fn func(arrow.RecordBatch)) (SpillStats, error) {
	t.Helper()
	r, err := e.run(context.Background(), n)
	if err != nil {
		return SpillStats{}, err
	}
	for r.Next() {
		rec := r.RecordBatch()
		if !rec.Schema().Equal(n.schema()) {
			t.Fatalf("batch schema %v, want %v", rec.Schema(), n.schema())
		}
		fn(rec)
	}
	err = r.Err()
	st := r.Stats().Spill
	r.Release()
	if used := r.mt.used.Load(); used != 0 {
		t.Errorf("the query's tracker holds %d bytes after it ended", used)
	}
	if got := mem.CurrentAlloc(); got != 0 {
		t.Fatalf("%d bytes allocated after the query ended (err %v)", got, err)
	}
	return st, err
}

func joinKinds() []joinKind {
	return []joinKind{joinInner, joinLeft, joinRight, joinFull, joinSemi, joinAnti, joinNullAwareAnti, joinMark, joinSingle, joinRightSemi, joinRightAnti}
}

// shortJoinKinds is joinKinds for CI's race pass (-short), which runs
// after the full pass has checked every kind: one kind of each way of
// emitting rows (pairs, unmatched probe and build rows through Full,
// build rows once through RightSemi, the NULL rule, a mark column, the
// single-row check), since what a race can break is the emitting and the
// build's shared matched bits, not a kind's own rule.
func shortJoinKinds() []joinKind {
	if !testing.Short() {
		return joinKinds()
	}
	return []joinKind{joinInner, joinFull, joinNullAwareAnti, joinMark, joinSingle, joinRightSemi}
}

// TestJoinMatchesNestedLoop runs every kind over every key type alone,
// two keys together, a key unique on the build side (so a single join
// succeeds), and no keys (a nested-loop join); with and without a
// residual; over empty probe and build sides too; on one worker and on
// three (run with -race). Build keys unique with and without NULLs take
// the paths that need no ranges. The tables hold NULL keys and repeated keys and
// come in many batches.
func TestJoinMatchesNestedLoop(t *testing.T) {
	t.Parallel() // heavy: overlaps the others under -race
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	c, recs := joinTables(t, mem, 1, joinSide{rows: 230, batch: 17, domain: 8, nullP: 0.1}, joinSide{rows: 150, batch: 13, domain: 8, nullP: 0.1})
	engines := map[int]*Engine{}
	for _, w := range []int{1, 3} {
		engines[w] = New(c, Options{Alloc: mem, MemoryLimit: 64 << 20, Workers: w})
	}
	keys := []struct {
		name     string
		pk, bk   []int
		workers  []int
		allSides bool
	}{
		{"i", []int{0}, []int{0}, []int{1, 3}, true},
		{"f", []int{1}, []int{1}, []int{1}, false},
		{"d", []int{2}, []int{2}, []int{1}, false},
		{"s", []int{3}, []int{3}, []int{3}, false},
		{"dt", []int{4}, []int{4}, []int{1}, false},
		{"bo", []int{5}, []int{5}, []int{1}, false},
		{"i,s", []int{0, 3}, []int{0, 3}, []int{3}, true},
		{"i=id", []int{0}, []int{7}, []int{1, 3}, true},
		{"i=u", []int{0}, []int{9}, []int{3}, false},
		{"none", nil, nil, []int{1, 3}, true},
	}
	singles := 0
	for _, k := range keys {
		for _, kind := range shortJoinKinds() {
			for _, residual := range []bool{false, true} {
				sides := [][2]bool{{false, false}}
				if k.allSides {
					sides = append(sides, [2]bool{true, false}, [2]bool{false, true})
				}
				for _, side := range sides {
					for _, w := range k.workers {
						jc := joinCase{kind: kind, probeKeys: k.pk, buildKeys: k.bk, residual: residual, emptyProbe: side[0], emptyBuild: side[1]}
						name := fmt.Sprintf("%s/%s/residual=%v/emptyProbe=%v/emptyBuild=%v/workers=%d", kind, k.name, residual, side[0], side[1], w)
						t.Run(name, func(t *testing.T) {
							want, wantErr := jc.reference(recs)
							got, _, err := runJoin(t, engines[w], mem, jc.node(t, c))
							if wantErr != nil {
								if !errors.Is(err, ErrExec) || !strings.Contains(fmt.Sprint(err), wantErr.Error()) {
									t.Fatalf("err %v, want ErrExec %q", err, wantErr)
								}
								singles++
								return
							}
							if err != nil {
								t.Fatal(err)
							}
							slices.Sort(want)
							if i := firstDiff(got, want); !slices.Equal(got, want) {
								t.Fatalf("%d rows, want %d; first difference at %d: got %q, want %q", len(got), len(want), i, at(got, i), at(want, i))
							}
						})
					}
				}
			}
		}
	}
	if singles == 0 {
		t.Error("no single join failed on a probe row matching two build rows")
	}
}

// TestJoinManyMatches joins keys that match hundreds of rows each, so one
// probe batch makes many times joinBatchRows pairs: batches must stay at
// most joinBatchRows rows, and the answers right.
func TestJoinManyMatches(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	c, recs := joinTables(t, mem, 2, joinSide{rows: 130, batch: 64, domain: 1}, joinSide{rows: 500, batch: 200, domain: 1})
	e := New(c, Options{Alloc: mem, MemoryLimit: 64 << 20, Workers: 2})
	for _, jc := range []joinCase{
		{kind: joinInner, probeKeys: []int{0}, buildKeys: []int{0}},
		{kind: joinFull, probeKeys: []int{0}, buildKeys: []int{0}, residual: true},
		{kind: joinSemi, probeKeys: []int{0}, buildKeys: []int{0}, residual: true},
		{kind: joinMark, probeKeys: []int{0}, buildKeys: []int{0}, residual: true},
		{kind: joinInner},
	} {
		t.Run(fmt.Sprintf("%s/keys=%d/residual=%v", jc.kind, len(jc.probeKeys), jc.residual), func(t *testing.T) {
			want, _ := jc.reference(recs)
			slices.Sort(want)
			got, sizes, err := runJoin(t, e, mem, jc.node(t, c))
			if err != nil {
				t.Fatal(err)
			}
			if i := firstDiff(got, want); !slices.Equal(got, want) {
				t.Fatalf("%d rows, want %d; first difference at %d: got %q, want %q", len(got), len(want), i, at(got, i), at(want, i))
			}
			if m := slices.Max(sizes); m > joinBatchRows {
				t.Errorf("a batch of %d rows, past %d", m, joinBatchRows)
			}
			if jc.kind == joinInner && slices.Max(sizes) != joinBatchRows {
				t.Errorf("largest batch %d rows: the cap never bound (sizes %v)", slices.Max(sizes), sizes)
			}
		})
	}
}

// TestJoinOfJoinsAndLimit: a join's probe side may be a join (whose
// workers a parent's workers pull from), and a LIMIT above a join closes
// it while its workers wait to hand over batches; both give back every
// byte.
func TestJoinOfJoinsAndLimit(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	c, recs := joinTables(t, mem, 6, joinSide{rows: 230, batch: 17, domain: 8, nullP: 0.1}, joinSide{rows: 150, batch: 13, domain: 8, nullP: 0.1})
	e := New(c, Options{Alloc: mem, Workers: 3})
	inner := joinCase{kind: joinInner, probeKeys: []int{0}, buildKeys: []int{0}}
	innerRows, _ := inner.reference(recs)
	np := joinSchema.NumFields()
	// (p ⋈ b on i) ⋈ b on p.id = b.id: each pair of the inner join once
	// more with the build row numbered as its probe row.
	outer := &hashJoinNode{probe: inner.node(t, c), build: joinScan(t, c, "b"), kind: joinInner,
		probeKeys: []int{7}, buildKeys: []int{7}, estRows: -1}
	var want []string
	bc := cellsOf(recs["b"])
	for _, r := range innerRows {
		id := strings.Split(r, "|")[7]
		for _, brow := range bc {
			if brow[7] == id {
				want = append(want, r+"|"+strings.Join(brow, "|"))
			}
		}
	}
	slices.Sort(want)
	got, _, err := runJoin(t, e, mem, outer)
	if err != nil {
		t.Fatal(err)
	}
	if i := firstDiff(got, want); !slices.Equal(got, want) {
		t.Fatalf("%d rows, want %d; first difference at %d: got %q, want %q", len(got), len(want), i, at(got, i), at(want, i))
	}
	if len(want) == 0 || outer.schema().NumFields() != 3*np {
		t.Fatalf("%d rows of %d columns: not a test", len(want), outer.schema().NumFields())
	}

	got, _, err = runJoin(t, e, mem, &limitNode{in: inner.node(t, c), limit: 5})
	if err != nil || len(got) != 5 {
		t.Errorf("LIMIT 5 over a join: %d rows, %v", len(got), err)
	}
}

// TestCrossJoinOfRowCounts: sides that decode no column (a scan that
// only counts rows, as under count(*)) still join: a cross join returns
// every pair, of no columns, and a left join over an empty build side
// every probe row.
func TestCrossJoinOfRowCounts(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	c, _ := joinTables(t, mem, 7, joinSide{rows: 230, batch: 17, domain: 8}, joinSide{rows: 150, batch: 13, domain: 8})
	e := New(c, Options{Alloc: mem, Workers: 2})
	counts := func(table string) *scanNode {
		s := joinScan(t, c, table)
		s.columns, s.fields = []int{}, nil
		return s
	}
	for _, tc := range []struct {
		kind  joinKind
		build planNode
		want  int
	}{
		{joinInner, counts("b"), 230 * 150},
		{joinLeft, emptied(t, counts("b")), 230},
		{joinSemi, counts("b"), 230},
	} {
		n := &hashJoinNode{probe: counts("p"), build: tc.build, kind: tc.kind, estRows: -1}
		rows := 0
		if err := runQuiet(t, e, mem, n, func(rec arrow.RecordBatch) { rows += int(rec.NumRows()) }); err != nil || rows != tc.want {
			t.Errorf("%s: %d rows, want %d (%v)", tc.kind, rows, tc.want, err)
		}
	}
}

// TestJoinLargeBuild joins a build side of more than one insert block of
// unique keys, with and without NULLs, so that the key table is sized
// from its first block; every probe key finds its one build row, and a
// right join adds each build row no probe row found.
func TestJoinLargeBuild(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	const buildRows = 3*insertBlock/2 + 7
	c, recs := joinTables(t, mem, 8, joinSide{rows: 3000, batch: 500, domain: buildRows + 100, nullP: 0.05}, joinSide{rows: buildRows, batch: 10_000, domain: 8})
	e := New(c, Options{Alloc: mem, Workers: 2})
	p := recs["p"]
	for _, key := range []int{7, 9} { // id, u
		bk := recs["b"].Column(key)
		found := map[int64]int{} // build key → probe rows finding it
		matches := 0
		for r := range int(p.NumRows()) {
			if p.Column(0).IsNull(r) {
				continue
			}
			v := p.Column(0).(*array.Int64).Value(r)
			if v < buildRows && bk.IsValid(int(v)) {
				found[v]++
				matches++
			}
		}
		for _, kind := range []joinKind{joinInner, joinRight} {
			n := &hashJoinNode{probe: joinScan(t, c, "p"), build: joinScan(t, c, "b"), kind: kind, probeKeys: []int{0}, buildKeys: []int{key}, estRows: -1}
			rows, bad := 0, 0
			err := runQuiet(t, e, mem, n, func(rec arrow.RecordBatch) {
				rows += int(rec.NumRows())
				pi, bi := rec.Column(0).(*array.Int64), rec.Column(joinSchema.NumFields()+key).(*array.Int64)
				for r := range int(rec.NumRows()) {
					if pi.IsValid(r) && pi.Value(r) != bi.Value(r) {
						bad++
					}
				}
			})
			want := matches
			if kind == joinRight {
				want += buildRows - len(found)
			}
			if err != nil || rows != want || bad > 0 {
				t.Errorf("%s on b.%s: %d rows, want %d; %d pairs of unequal keys; %v", kind, joinSchema.Field(key).Name, rows, want, bad, err)
			}
		}
	}
}
