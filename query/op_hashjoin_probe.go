package query

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/quiverdb/quiver/internal/take"
	"github.com/quiverdb/quiver/query/agg"
)

// joinBatchRows caps the pairs of rows one output batch of a join holds,
// and one evaluation of its residual: a key that matches a million build
// rows makes many batches, not one giant one.
const joinBatchRows = outputBatchRows

// joinWorker joins probe batches with the build side on one goroutine.
// Its scratch is its own; the build side is shared and only read, except
// for the bitmap of matched build rows of a right or full join, which is
// set atomically.
//
// A probe batch goes through three steps: match finds for each probe row
// its range of build rows (a lookup of its keys; every build row without
// keys); chunk walks the ranges into (probe row, build row) pairs, at most
// joinBatchRows at a time; pairs keeps those the residual passes, counts
// them per probe row and, for the joins that return pairs, gathers them.
// Then finish applies the kind's rule to the counts: the unmatched rows of
// a left join, the rows of a semi or anti join, the mark column.
type joinWorker struct {
	o *hashJoinOp
	// bd is the build side it probes and matched its bitmap of matched
	// build rows (right and full joins): o's, or, in a partitioned join,
	// its partition's (op_joinx.go).
	bd      *joinBuild
	matched []uint64
	prober  *agg.Prober // nil without keys
	keys    []arrow.Array
	rows    []uint32 // probe rows with no NULL key
	ids     []uint32
	// lo, hi: probe row r meets the build rows order[lo[r]:hi[r]] (rows
	// lo[r] to hi[r]-1 without keys); both -1 when its key is NULL.
	lo, hi []int32
	count  []int32 // per probe row, its pairs the residual passed
	p, b   []int32 // one chunk's pairs: probe row, build row
	sel    []int32
	// curBase numbers the first row of the batch being probed in its
	// partition's file (a grace join's nested loop); -1: unnumbered.
	curBase int64
}

// base is curBase, and whether the batch has one.
func (w *joinWorker) base(arrow.RecordBatch) (int64, bool) { return w.curBase, w.curBase >= 0 }

func (o *hashJoinOp) newWorker() *joinWorker { return o.newWorkerOf(o.b, o.matched) }

// newWorkerOf returns a worker probing b, setting bits of matched.
func (o *hashJoinOp) newWorkerOf(b *joinBuild, matched []uint64) *joinWorker {
	w := &joinWorker{o: o, bd: b, matched: matched}
	if b.kt != nil {
		w.prober = b.kt.NewProber()
		w.keys = make([]arrow.Array, len(o.n.probeKeys))
	}
	return w
}

func (w *joinWorker) release() {
	if w.prober != nil {
		w.prober.Release()
	}
}

// probe joins one probe batch, passing what it returns to emit.
func (w *joinWorker) probe(ctx context.Context, rec arrow.RecordBatch, emit func(arrow.RecordBatch) error) error {
	if rec.NumRows() == 0 {
		return nil
	}
	if w.o.grace == nil {
		w.o.st.probeRows.Add(rec.NumRows()) // a grace join counts them as it partitions them
	}
	if w.o.pass != nil {
		return w.probePass(ctx, rec, emit) // op_gracejoin_loop.go
	}
	if err := w.countMatches(ctx, rec, emit); err != nil {
		return err
	}
	return w.finish(ctx, rec, emit)
}

// countMatches sets w.count to each probe row's pairs the residual
// passed, emitting the pairs of the kinds that return them.
func (w *joinWorker) countMatches(ctx context.Context, rec arrow.RecordBatch, emit func(arrow.RecordBatch) error) error {
	n := int(rec.NumRows())
	if w.uniqueKeys() {
		return w.uniqueMatches(ctx, rec, emit)
	}
	if err := w.match(rec); err != nil {
		return err
	}
	w.count = sized(w.count, n)
	clear(w.count)
	if w.o.needPairs() {
		var cur pairCursor
		for cur.r < n {
			if err := ctx.Err(); err != nil {
				return err
			}
			p, b := w.chunk(&cur, n)
			if err := w.pairs(ctx, rec, p, b, emit); err != nil {
				return err
			}
		}
	} else {
		for r := range n {
			w.count[r] = w.hi[r] - w.lo[r]
		}
	}
	return nil
}

// sized returns s with length n, reusing its memory.
func sized[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// match sets lo and hi for every row of rec.
func (w *joinWorker) match(rec arrow.RecordBatch) error {
	n := int(rec.NumRows())
	bd := w.bd
	w.lo, w.hi = sized(w.lo, n), sized(w.hi, n)
	if w.prober == nil {
		for r := range n {
			w.lo[r], w.hi[r] = 0, int32(bd.rows)
		}
		return w.o.countPairs(n)
	}
	for r := range n {
		w.lo[r], w.hi[r] = -1, -1
	}
	if err := w.lookup(rec); err != nil {
		return err
	}
	if bd.start == nil { // unique build keys: tuple id is at order[id]
		for _, r := range w.rows {
			if id := w.ids[r]; id != agg.NoKey {
				w.lo[r], w.hi[r] = int32(id), int32(id)+1
			} else {
				w.lo[r], w.hi[r] = 0, 0
			}
		}
		return nil
	}
	for _, r := range w.rows {
		if id := w.ids[r]; id != agg.NoKey {
			w.lo[r], w.hi[r] = bd.start[id], bd.start[id+1]
		} else {
			w.lo[r], w.hi[r] = 0, 0
		}
	}
	return nil
}

// lookup sets rows to the probe rows without a NULL key and ids[r] to the
// key tuple id of each, or agg.NoKey.
func (w *joinWorker) lookup(rec arrow.RecordBatch) error {
	n := int(rec.NumRows())
	for i, k := range w.o.n.probeKeys {
		w.keys[i] = rec.Column(k)
	}
	w.rows = nonNullRows(w.rows[:0], w.keys, n)
	w.ids = sized(w.ids, n)
	if err := w.prober.Lookup(w.keys, w.rows, w.ids); err != nil {
		return &Error{Kind: ErrExec, Msg: w.o.title(), Err: err}
	}
	return nil
}

// uniqueKeys: every key tuple of the build side is one build row's, so a
// probe row meets at most one, and the kind's finish reads only counts.
func (w *joinWorker) uniqueKeys() bool {
	k := w.o.n.kind
	return w.prober != nil && w.bd.start == nil && k != joinNullAwareAnti && k != joinMark
}

// uniqueMatches is countMatches over a build side of unique keys: the
// pairs come straight from the lookup, without the ranges match and chunk
// walk (three passes over the batch and two arrays per row, which cost a
// join of a big probe side against a dimension table a third of its time).
func (w *joinWorker) uniqueMatches(ctx context.Context, rec arrow.RecordBatch, emit func(arrow.RecordBatch) error) error {
	if err := w.lookup(rec); err != nil {
		return err
	}
	w.count = sized(w.count, int(rec.NumRows()))
	clear(w.count)
	if !w.o.needPairs() {
		for _, r := range w.rows {
			if w.ids[r] != agg.NoKey {
				w.count[r] = 1
			}
		}
		return nil
	}
	order := w.bd.order
	p, b := w.p[:0], w.b[:0]
	for _, r := range w.rows {
		id := w.ids[r]
		if id == agg.NoKey {
			continue
		}
		x := int32(id)
		if order != nil {
			x = order[id]
		}
		p, b = append(p, int32(r)), append(b, x)
		if len(p) < joinBatchRows {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := w.pairs(ctx, rec, p, b, emit); err != nil {
			return err
		}
		p, b = p[:0], b[:0]
	}
	if len(p) > 0 {
		if err := w.pairs(ctx, rec, p, b, emit); err != nil {
			return err
		}
	}
	w.p, w.b = p[:0], b[:0]
	return nil
}

// pairCursor is where chunk left off: probe row r, at position k of its
// range (started: k is set).
type pairCursor struct {
	r       int
	k       int32
	started bool
}

// chunk returns the next pairs, at most joinBatchRows. For the joins a
// probe row's first passing pair decides (semi, anti, mark), the rest of
// the row's range is skipped once one has passed.
func (w *joinWorker) chunk(c *pairCursor, n int) (p, b []int32) {
	p, b = w.p[:0], w.b[:0]
	order := w.bd.order
	decided := w.o.firstMatchDecides()
	for c.r < n && len(p) < joinBatchRows {
		r := c.r
		if w.lo[r] < 0 { // a NULL key: no pairs
			c.r, c.started = r+1, false
			continue
		}
		if !c.started {
			c.k, c.started = w.lo[r], true
		}
		if w.hi[r] <= c.k || decided && w.count[r] > 0 { // no match, a NULL key, done or settled
			c.r, c.started = r+1, false
			continue
		}
		end := min(w.hi[r], c.k+int32(joinBatchRows-len(p)))
		if order != nil {
			for _, x := range order[c.k:end] {
				p = append(p, int32(r))
				b = append(b, x)
			}
		} else {
			for x := c.k; x < end; x++ {
				p = append(p, int32(r))
				b = append(b, x)
			}
		}
		c.k = end
	}
	w.p, w.b = p, b
	return p, b
}

// pairs handles one chunk: the residual, the counts, the matched build
// rows, and the pairs out for the joins that return them.
func (w *joinWorker) pairs(ctx context.Context, rec arrow.RecordBatch, p, b []int32, emit func(arrow.RecordBatch) error) error {
	o := w.o
	if o.n.residual != nil && len(p) > 0 {
		var err error
		if p, b, err = w.filterPairs(ctx, rec, p, b); err != nil {
			return err
		}
	}
	for _, r := range p {
		w.count[r]++
		if w.count[r] > 1 && o.n.kind == joinSingle {
			return &Error{Kind: ErrExec, Msg: "more than one row returned by a subquery used as an expression"}
		}
	}
	if w.matched != nil {
		for _, x := range b {
			word, bit := &w.matched[x>>6], uint64(1)<<(x&63)
			if atomic.LoadUint64(word)&bit == 0 {
				atomic.OrUint64(word, bit)
			}
		}
	}
	if !o.returnsPairs() || len(p) == 0 {
		return nil
	}
	out, err := o.output(ctx, rec, p, w.bd.rec, b, len(p))
	if err != nil {
		return err
	}
	return emit(out)
}

// filterPairs keeps the pairs for which the residual is TRUE. It evaluates
// the residual over a batch of the probe's columns and then the build's,
// of which only those it reads are gathered (the others are NULL
// placeholders without buffers).
func (w *joinWorker) filterPairs(ctx context.Context, rec arrow.RecordBatch, p, b []int32) ([]int32, []int32, error) {
	o := w.o
	mem := o.rt.evalMem() // the gathered columns count while they live, as the residual's
	defer mem.close()
	np := int(rec.NumCols())
	cols := make([]arrow.Array, len(o.resReads))
	defer releaseAll(cols)
	for i, read := range o.resReads {
		var err error
		switch {
		case !read:
			cols[i] = array.NewNull(len(p))
		case i < np:
			cols[i], err = take.Array(ctx, mem, rec.Column(i), p)
		default:
			cols[i], err = take.Array(ctx, mem, w.bd.rec.Column(i-np), b)
		}
		if err != nil {
			return nil, nil, &Error{Kind: ErrExec, Msg: fmt.Sprintf("%s: gathering %s", o.title(), o.resSchema.Field(i).Name), Err: err}
		}
	}
	batch := array.NewRecordBatch(o.resSchema, cols, int64(len(p)))
	defer batch.Release()
	mask, err := o.n.residual.Eval(ctx, mem, batch)
	if err != nil {
		return nil, nil, execError(err, o.n.residual)
	}
	defer mask.Release()
	bm, ok := mask.(*array.Boolean)
	if !ok { // a NULL residual: no pair passes
		return p[:0], b[:0], nil
	}
	w.sel = take.Selection(w.sel[:0], bm)
	for i, s := range w.sel {
		p[i], b[i] = p[s], b[s]
	}
	return p[:len(w.sel)], b[:len(w.sel)], nil
}

// finish returns what the kind's rule makes of the batch's counts.
func (w *joinWorker) finish(ctx context.Context, rec arrow.RecordBatch, emit func(arrow.RecordBatch) error) error {
	o, n := w.o, int(rec.NumRows())
	bd := o.side // of the whole build side, not a partition's
	keep := func(f func(r int) bool) error {
		w.sel = w.sel[:0]
		for r := range n {
			if f(r) {
				w.sel = append(w.sel, int32(r))
			}
		}
		return w.emitRows(ctx, rec, emit)
	}
	switch o.n.kind {
	case joinLeft, joinFull, joinSingle: // probe rows that met no build row, with NULLs
		w.sel = w.sel[:0]
		for r := range n {
			if w.count[r] == 0 {
				w.sel = append(w.sel, int32(r))
			}
		}
		if len(w.sel) == 0 {
			return nil
		}
		out, err := o.output(ctx, rec, w.sel, nil, nil, len(w.sel))
		if err != nil {
			return err
		}
		return emit(out)
	case joinSemi:
		return keep(func(r int) bool { return w.count[r] > 0 })
	case joinAnti:
		return keep(func(r int) bool { return w.count[r] == 0 })
	case joinNullAwareAnti:
		switch {
		case bd.rows == 0:
			return keep(func(int) bool { return true })
		case bd.hasNull:
			return nil
		}
		return keep(func(r int) bool { return w.count[r] == 0 && w.lo[r] >= 0 })
	case joinMark:
		return w.emitMark(rec, emit)
	}
	return nil
}

// emitRows emits the probe rows in w.sel, probe columns only.
func (w *joinWorker) emitRows(ctx context.Context, rec arrow.RecordBatch, emit func(arrow.RecordBatch) error) error {
	o := w.o
	switch len(w.sel) {
	case 0:
		return nil
	case int(rec.NumRows()):
		return emit(array.NewRecordBatch(o.schema, rec.Columns(), rec.NumRows()))
	}
	out, err := o.output(ctx, rec, w.sel, nil, nil, len(w.sel))
	if err != nil {
		return err
	}
	return emit(out)
}

// emitMark emits every probe row with its mark: TRUE when a build row
// matched it; else FALSE over an empty build side; else NULL when its key
// or a build row's is NULL; else FALSE.
func (w *joinWorker) emitMark(rec arrow.RecordBatch, emit func(arrow.RecordBatch) error) error {
	o, n, bd := w.o, int(rec.NumRows()), w.o.side
	mb := array.NewBooleanBuilder(o.rt.mem)
	defer mb.Release()
	mb.Reserve(n)
	for r := range n {
		switch {
		case w.count[r] > 0:
			mb.UnsafeAppend(true)
		case bd.rows > 0 && (w.lo[r] < 0 || bd.hasNull):
			mb.UnsafeAppendBoolToBitmap(false)
		default:
			mb.UnsafeAppend(false)
		}
	}
	mark := mb.NewArray()
	defer mark.Release()
	cols := append(rec.Columns()[:rec.NumCols():rec.NumCols()], mark)
	return emit(array.NewRecordBatch(o.schema, cols, int64(n)))
}
