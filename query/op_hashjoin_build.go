package query

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/quiverdb/quiver/internal/arrowsize"
	"github.com/quiverdb/quiver/internal/take"
	"github.com/quiverdb/quiver/query/agg"
)

// joinBuild is a join's build side, drained: all its rows in one batch,
// and with keys a table of their distinct key tuples (agg.KeyTable) and,
// per tuple, the build rows holding it, so that the rows matching a probe
// row are one range of order. Everything it holds counts in the query's
// memory tracker (held). A grace hash join builds one per partition.
type joinBuild struct {
	rec  arrow.RecordBatch // every build row; nil when there are none
	rows int
	kt   *agg.KeyTable // nil without keys
	// The rows of key tuple id are order[start[id]:start[id+1]], ascending
	// (so gathering one key's rows copies runs). When each tuple is on
	// one row (a primary key) start is nil: tuple id's row is order[id].
	// When moreover no key is NULL, ids number the rows in order and
	// order is nil too: tuple id is row id. Without keys order is nil:
	// every probe row meets every build row, [0, rows).
	start, order []int32
	hasNull      bool  // some build row has a NULL key: it matches nothing
	held         int64 // bytes accounted to the tracker
	// mayPass: a chunk of a nested-loop fallback (op_gracejoin_loop.go),
	// whose bytes are taken past the limit rather than refused.
	mayPass bool
}

// buildCollector gathers the build side batch by batch: its columns, and
// each row's key tuple id (agg.NoKey for a NULL key).
type buildCollector struct {
	o     *hashJoinOp
	b     *joinBuild
	cols  [][]arrow.Array // per column, its arrays, one per batch
	sizes []int64         // per column, the bytes of its arrays
	ids   []uint32        // per build row
	keys  []arrow.Array
	rows  []uint32 // of the batch being inserted: those with no NULL key
	// spillable: the whole build side is being drained and, past the
	// memory limit (or forced), it turns into a grace hash join's
	// partitions (op_gracejoin.go); not when a partition is loaded.
	spillable bool
	batchRows []int   // rows of each batch in cols
	batchSize []int64 // bytes of each batch in cols
}

// drainBuild reads the build side to its end into a joinBuild. On error
// everything it held is released.
//
// When the query may spill and the build side passes the memory limit
// (or Options.ForceJoinSpill), it is partitioned to spill files instead
// (o.grace); drainBuild then returns nil.
func (o *hashJoinOp) drainBuild(ctx context.Context) (*joinBuild, error) {
	c := o.newCollector()
	c.spillable = o.canSpill()
	err := c.collect(ctx, newSharedInput(o.build))
	if err == nil && o.grace == nil && c.spillable && !c.finishFits() {
		err = c.toGrace(ctx)
	}
	if err == nil && o.grace == nil && o.partitionChosen(c) { // plan_joinx.go
		return nil, o.partitionBuild(ctx, c) // op_joinx.go; releases c
	}
	if err == nil && o.grace != nil {
		err = o.grace.finishBuild()
		c.release()
		if err != nil {
			return nil, err
		}
		return nil, nil
	}
	if err == nil {
		err = c.finish(ctx)
		if err != nil && c.spillable && c.b.rec != nil && errors.Is(err, ErrMemory) {
			err = c.recToGrace(ctx)
			if err == nil {
				err = o.grace.finishBuild()
			}
			c.release()
			if err != nil {
				return nil, err
			}
			return nil, nil
		}
	}
	c.release()
	if err != nil {
		o.releaseBuild(c.b)
		return nil, err
	}
	return c.b, nil
}

func (o *hashJoinOp) newCollector() *buildCollector {
	c := &buildCollector{o: o, b: &joinBuild{}, cols: make([][]arrow.Array, o.n.build.schema().NumFields())}
	c.sizes = make([]int64, len(c.cols))
	return c
}

// release drops the collector's batches (what finish did not gather).
func (c *buildCollector) release() {
	for i, col := range c.cols {
		releaseAll(col)
		c.cols[i] = nil
	}
}

// loadBuild drains batches of build rows from in into a joinBuild held in
// memory, failing with ErrMemory when they do not fit (a partition of a
// grace hash join).
func (o *hashJoinOp) loadBuild(ctx context.Context, in batchSource, mayPass bool) (*joinBuild, error) {
	c := o.newCollector()
	c.b.mayPass = mayPass
	err := c.collect(ctx, in)
	if err == nil {
		err = c.finish(ctx)
	}
	c.release()
	if err != nil {
		o.releaseBuild(c.b)
		return nil, err
	}
	return c.b, nil
}

// batchSource is what workers pull batches from: a shared input below
// the join, or a spilled partition.
type batchSource interface {
	next(ctx context.Context) (arrow.RecordBatch, error)
}

// newKeyTable gives the collector's build its table of key tuples, when
// the join has keys.
func (c *buildCollector) newKeyTable() error {
	o := c.o
	if len(o.n.buildKeys) == 0 {
		return nil
	}
	types := make([]arrow.DataType, len(o.n.buildKeys))
	for i, k := range o.n.buildKeys {
		types[i] = o.n.build.schema().Field(k).Type
	}
	kt, err := agg.NewKeyTable(types)
	if err != nil {
		return &Error{Kind: ErrInvalid, Msg: "hash join keys", Err: err}
	}
	c.b.kt = kt
	c.keys = make([]arrow.Array, len(types))
	return nil
}

func (c *buildCollector) collect(ctx context.Context, in batchSource) error {
	o := c.o
	if err := c.newKeyTable(); err != nil {
		return err
	}
	// Workers read the build side together (sharedInput), so the filters
	// and projections below the join run in parallel; the batches are
	// kept one at a time. The keys go into the table once all rows are in
	// (finish), when their number is known.
	// Once the build side spills, batches are partitioned outside the
	// lock, in parallel.
	var mu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	for range max(o.rt.workers, 1) {
		g.Go(func() error {
			for {
				rec, err := in.next(gctx)
				if err == io.EOF {
					return nil
				}
				if err != nil {
					return err
				}
				mu.Lock()
				gj, err := c.addOrSpill(gctx, rec)
				mu.Unlock()
				if err == nil && gj != nil {
					err = gj.addBuild(gctx, rec)
				}
				rec.Release()
				if err != nil {
					return err
				}
			}
		})
	}
	return g.Wait()
}

// addOrSpill keeps a build batch, or returns the grace join that is to
// partition it: the build side spills already, is forced to, or this
// batch passes the memory limit (then the batches kept so far are
// partitioned first).
func (c *buildCollector) addOrSpill(ctx context.Context, rec arrow.RecordBatch) (*graceJoin, error) {
	o := c.o
	if !c.spillable {
		return nil, c.add(rec)
	}
	if o.grace != nil {
		return o.grace, nil
	}
	var err error
	if !c.spillable || !o.rt.joinSpill.force {
		if err = c.add(rec); err == nil || !c.spillable || !errors.Is(err, ErrMemory) {
			return nil, err
		}
	}
	if err := c.toGrace(ctx); err != nil {
		return nil, err
	}
	return o.grace, nil
}

// add keeps the columns of one build batch.
func (c *buildCollector) add(rec arrow.RecordBatch) error {
	o := c.o
	n := int(rec.NumRows())
	if n == 0 {
		return nil
	}
	if c.b.rows+n > math.MaxInt32 {
		return &Error{Kind: ErrUnsupported, Msg: fmt.Sprintf("%s: a build side of more than %d rows", o.title(), math.MaxInt32)}
	}
	rec = c.compact(rec)
	defer rec.Release()
	var bytes int64
	for _, col := range rec.Columns() {
		bytes += arrowsize.Data(col.Data())
	}
	if err := o.hold(c.b, bytes); err != nil {
		return err
	}
	for i, col := range rec.Columns() {
		col.Retain()
		c.cols[i] = append(c.cols[i], col)
		c.sizes[i] += arrowsize.Data(col.Data())
	}
	c.batchRows = append(c.batchRows, n)
	c.batchSize = append(c.batchSize, bytes)
	c.b.rows += n
	return nil
}

// compact returns rec (retained), or a copy of its rows when rec is a
// slice of buffers much larger than its rows: a build side holds its
// batches until the join ends, and a few rows a filter kept or a LIMIT
// cut from a large batch would pin (and count) the whole of it. TPC-H
// Q18's build side at SF 1 was 57 rows holding 193 MiB (BENCHMARKS §16e).
func (c *buildCollector) compact(rec arrow.RecordBatch) arrow.RecordBatch {
	held, rows := arrowsize.Record(rec), arrowsize.LogicalRecord(rec)
	if held-rows < compactSlack || held < 4*rows {
		rec.Retain()
		return rec
	}
	all := make([]int32, rec.NumRows())
	for i := range all {
		all[i] = int32(i)
	}
	out, err := take.Record(context.Background(), c.o.rt.mem, rec, all)
	if err != nil { // a type take has no copy for: keep the batch as it is
		rec.Retain()
		return rec
	}
	return out
}

// compactSlack is the bytes a build batch may pin past its rows' before
// add copies the rows out.
const compactSlack = 1 << 20

// heldBatch returns batch j of those add kept (the caller releases it).
func (c *buildCollector) heldBatch(j int) arrow.RecordBatch {
	cols := make([]arrow.Array, len(c.cols))
	for i := range c.cols {
		cols[i] = c.cols[i][j]
	}
	return array.NewRecordBatch(c.o.n.build.schema(), cols, int64(c.batchRows[j]))
}

// dropBatch releases batch j of those add kept, shrinking the query's
// tracker by its bytes, which it returns for the caller to take off
// c.b.held (dropBatch runs on many goroutines, each its own batches).
func (c *buildCollector) dropBatch(j int) int64 {
	for i := range c.cols {
		c.cols[i][j].Release()
		c.cols[i][j] = nil
	}
	c.o.rt.mt.shrink(c.batchSize[j])
	return c.batchSize[j]
}

// insertBlock is the build rows inserted at a time: the table's scratch
// is sized for it, not for the whole build side.
const insertBlock = 1 << 16

// insert numbers the key tuples of every build row (c.ids; agg.NoKey for a
// NULL key), a block of rows at a time. When the first block's keys are
// mostly distinct, the table is sized for the whole build side at once,
// by the first block's proportion of distinct keys, so that it does not
// grow (and place every key again) at each doubling.
func (c *buildCollector) insert(ctx context.Context) error {
	o, b := c.o, c.b
	if b.rows == 0 {
		return nil
	}
	if err := o.hold(b, int64(b.rows)*4); err != nil {
		return err
	}
	c.ids = make([]uint32, b.rows)
	cols := make([]arrow.Array, len(o.n.buildKeys))
	for i, k := range o.n.buildKeys {
		cols[i] = b.rec.Column(k)
	}
	if err := c.denseFromStart(cols); err != nil {
		return err
	}
	for lo := 0; lo < b.rows; lo += insertBlock {
		if err := ctx.Err(); err != nil {
			return err
		}
		hi := min(lo+insertBlock, b.rows)
		for i, col := range cols {
			c.keys[i] = array.NewSlice(col, int64(lo), int64(hi))
		}
		err := c.insertBlock(c.ids[lo:hi])
		releaseAll(c.keys)
		if err != nil {
			return err
		}
		if g := b.kt.Len(); lo == 0 && hi < b.rows && 4*g >= 3*hi {
			used := b.kt.MemoryUsage()
			if err := b.kt.Reserve(int(int64(g) * int64(b.rows) / int64(hi))); err != nil {
				return &Error{Kind: ErrExec, Msg: o.title(), Err: err}
			}
			if err := o.hold(b, b.kt.MemoryUsage()-used); err != nil {
				return err
			}
		}
	}
	return nil
}

// denseFromStart makes the key table a dense index before the inserts
// (agg.KeyTable.UseDense) when the build side's one integer key spans a
// range dense enough, and the memory limit has room: the keys are then
// numbered without hashing. Otherwise the hash table is built, and may
// still become dense once its distinct keys are known (densify).
func (c *buildCollector) denseFromStart(cols []arrow.Array) error {
	o, b := c.o, c.b
	if len(cols) != 1 {
		return nil
	}
	var r keyRange
	r.add(cols[0])
	if r.unsupported || !r.seen || !agg.DenseFits(r.lo, r.hi, b.rows) {
		return nil
	}
	need := (r.hi - r.lo + 1) * 4
	if !o.tryHold(b, need) {
		return nil
	}
	used := b.kt.MemoryUsage()
	if err := b.kt.UseDense(r.lo, r.hi); err != nil {
		o.unhold(b, need)
		return &Error{Kind: ErrExec, Msg: o.title(), Err: err}
	}
	o.unhold(b, need-(b.kt.MemoryUsage()-used))
	return nil
}

// insertBlock inserts the rows of c.keys, setting their ids.
func (c *buildCollector) insertBlock(ids []uint32) error {
	o, b := c.o, c.b
	n := len(ids)
	c.rows = nonNullRows(c.rows[:0], c.keys, n)
	b.hasNull = b.hasNull || len(c.rows) < n
	for i := range ids {
		ids[i] = agg.NoKey // stays for a NULL key
	}
	used := b.kt.MemoryUsage()
	if err := b.kt.Insert(c.keys, c.rows, ids); err != nil {
		return &Error{Kind: ErrExec, Msg: o.title(), Err: err}
	}
	return o.hold(b, b.kt.MemoryUsage()-used)
}

// nonNullRows appends to dst the rows of keys (n rows each) where no key
// is NULL.
func nonNullRows(dst []uint32, keys []arrow.Array, n int) []uint32 {
	nulls := false
	for _, k := range keys {
		nulls = nulls || k.NullN() > 0
	}
	if !nulls {
		for r := range n {
			dst = append(dst, uint32(r))
		}
		return dst
	}
	for r := range n {
		ok := true
		for _, k := range keys {
			ok = ok && k.IsValid(r)
		}
		if ok {
			dst = append(dst, uint32(r))
		}
	}
	return dst
}

// finish puts the build rows into one batch, a column at a time (so that
// at most one column is held twice), and groups the rows by key tuple.
// One batch, because then a build row is one int32 and the pairs' build
// columns are gathered with one take per column (internal/take); rows
// spread over the batches as they came would need a (batch, row) per
// pair and a gather from many sources per column, on every output batch,
// while the copy is one pass over the build side.
func (c *buildCollector) finish(ctx context.Context) error {
	o, b := c.o, c.b
	if b.rows > 0 {
		schema := o.n.build.schema()
		out := make([]arrow.Array, len(c.cols))
		for i, parts := range c.cols {
			if len(parts) == 1 {
				out[i] = parts[0]
				parts[0].Retain()
				continue
			}
			if err := o.hold(b, c.sizes[i]); err != nil { // the copy, while both exist
				releaseAll(out[:i])
				return err
			}
			arr, err := array.Concatenate(parts, o.rt.mem)
			if err != nil {
				releaseAll(out[:i])
				return &Error{Kind: ErrExec, Msg: fmt.Sprintf("%s: gathering the build side's column %s", o.title(), schema.Field(i).Name), Err: err}
			}
			out[i] = arr
			releaseAll(parts)
			c.cols[i] = nil
			o.unhold(b, c.sizes[i]) // the parts; the copy holds as much
		}
		b.rec = array.NewRecordBatch(schema, out, int64(b.rows))
		releaseAll(out)
		for _, col := range b.rec.Columns() {
			settleNulls(col)
		}
	}
	if b.kt == nil {
		return nil
	}
	if err := c.insert(ctx); err != nil {
		return err
	}
	if err := c.group(); err != nil {
		return err
	}
	used := b.kt.MemoryUsage()
	b.kt.Seal() // what only inserts needed goes
	o.unhold(b, used-b.kt.MemoryUsage())
	return c.densify()
}

// densify gives a build side of dense integer keys its dense index
// (agg/dense.go), when the memory limit has room for it while the hash
// slots it replaces still exist; without room, the hash table serves.
func (c *buildCollector) densify() error {
	o, b := c.o, c.b
	need := b.kt.DenseBytes()
	if need == 0 || !o.tryHold(b, need) {
		return nil
	}
	used := b.kt.MemoryUsage()
	if err := b.kt.Densify(); err != nil {
		o.unhold(b, need)
		return &Error{Kind: ErrExec, Msg: o.title(), Err: err}
	}
	o.unhold(b, need-(b.kt.MemoryUsage()-used)) // what it took beyond the freed slots
	return nil
}

// group sorts the build rows by key tuple id into start and order (a
// counting sort, stable, so each tuple's rows stay ascending), and drops
// the ids.
func (c *buildCollector) group() error {
	o, b := c.o, c.b
	groups := b.kt.Len()
	keyed := 0
	for _, id := range c.ids {
		if id != agg.NoKey {
			keyed++
		}
	}
	defer func() {
		o.unhold(b, int64(cap(c.ids))*4)
		c.ids = nil
	}()
	if groups == keyed { // unique keys: no ranges, and maybe no order
		return c.unique()
	}
	if err := o.hold(b, int64(groups+1+keyed)*4); err != nil {
		return err
	}
	b.start = make([]int32, groups+1)
	b.order = make([]int32, keyed)
	for _, id := range c.ids {
		if id != agg.NoKey {
			b.start[id+1]++
		}
	}
	for g := range groups {
		b.start[g+1] += b.start[g]
	}
	for row, id := range c.ids {
		if id != agg.NoKey {
			b.order[b.start[id]] = int32(row)
			b.start[id]++
		}
	}
	// Each start[id] moved to the end of its rows, which is where the
	// next tuple's begin.
	copy(b.start[1:], b.start[:groups])
	b.start[0] = 0
	return nil
}

// unique sets order for a build side whose key tuples are each on one
// row: the row of each tuple, or nothing when tuple ids are row numbers.
// A probe then finds its build row with one lookup less, or two.
func (c *buildCollector) unique() error {
	o, b := c.o, c.b
	if !b.hasNull {
		return nil // ids are given in first-seen order: row r has id r
	}
	if err := o.hold(b, int64(b.kt.Len())*4); err != nil {
		return err
	}
	b.order = make([]int32, b.kt.Len())
	for row, id := range c.ids {
		if id != agg.NoKey {
			b.order[id] = int32(row)
		}
	}
	return nil
}

// hold accounts n more bytes to the build side, failing with ErrMemory
// naming the join past the query's limit; a nested-loop chunk's
// (mayPass) are taken past it.
func (o *hashJoinOp) hold(b *joinBuild, n int64) error {
	if n <= 0 {
		return nil
	}
	if b.mayPass {
		o.rt.mt.force(n)
	} else if held, ok := o.rt.mt.tryGrow(n); !ok {
		return o.rt.mt.joinLimitError(o.title(), n, held)
	}
	b.held += n
	return nil
}

// tryHold accounts n more bytes to the build side for what it can do
// without (a dense index, a runtime filter) if they fit the limit.
func (o *hashJoinOp) tryHold(b *joinBuild, n int64) bool {
	if n <= 0 {
		return true
	}
	if _, ok := o.rt.mt.tryGrow(n); !ok {
		return false
	}
	b.held += n
	return true
}

// unhold gives back n bytes held.
func (o *hashJoinOp) unhold(b *joinBuild, n int64) {
	o.rt.mt.shrink(n)
	b.held -= n
}

// releaseBuild frees what b holds.
func (o *hashJoinOp) releaseBuild(b *joinBuild) {
	if b == nil {
		return
	}
	if b.rec != nil {
		b.rec.Release()
		b.rec = nil
	}
	if b.kt != nil {
		b.kt.Release()
		b.kt = nil
	}
	b.start, b.order = nil, nil
	o.rt.mt.shrink(b.held)
	b.held = 0
}

// settleNulls counts the NULLs of col and its children now: an array
// read from a spill file counts them when first asked, a write that
// workers sharing the build side would race on.
func settleNulls(col arrow.Array) {
	col.NullN()
	d := col.Data()
	for _, c := range d.Children() {
		a := array.MakeFromData(c)
		settleNulls(a)
		a.Release()
	}
	if dict, ok := d.Dictionary().(*array.Data); ok && dict != nil {
		a := array.MakeFromData(dict)
		settleNulls(a)
		a.Release()
	}
}
