package query

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/quiverdb/quiver/query/expr"
	"github.com/quiverdb/quiver/sortkey"
)

// windowOp computes a windowNode. Below it, a projection appends the
// partition keys, order keys and arguments to each input batch, and the
// external sort (the ORDER BY operator, op_extsort.go: in memory while it
// fits, spilling sorted runs past the query's memory limit) orders the
// rows by partition then order keys. windowOp reads the sorted batches and
// holds one partition at a time: a batch whose last row is still in the
// partition that began in the batches held is added to them (nothing is
// copied); otherwise the held batches and the new one are concatenated
// into a block, every partition that ends in it is computed
// (window_eval.go), and the rest, the start of the next partition, is
// held on. Without PARTITION BY the input is one partition, held whole;
// what is held counts in the query's memory tracker.
type windowOp struct {
	rt     *runtime
	src    operator // sorted: input columns, then partition keys, order keys, arguments
	n      *windowNode
	schema *arrow.Schema
	width  int // input columns passed through

	pEnc, oEnc *sortkey.Encoder // nil: no such keys

	held      []arrow.RecordBatch
	heldBytes int64
	out       []arrow.RecordBatch
	eof       bool
	closed    bool

	// streams: every call can be computed over a partition streamed in
	// chunks (window_stream.go); carry: the partition being streamed
	// (nil: none), whose rest is held.
	streams   bool
	carry     *winCarry
	carryRows arrow.RecordBatch // carry.ctx as held bytes: charged

	// paths: how each call is computed over a partition past memory
	// (window_spill_path.go); spills: every call has one and the query
	// may spill. wspill: the first pass over a partition being spilled;
	// replay: the second; after: the rows read past it (charged
	// afterBytes), computed after it, all of them when afterFinal.
	paths      []winPath
	spills     bool
	wspill     *winSpill
	replay     *winReplay
	after      arrow.RecordBatch
	afterBytes int64
	afterFinal bool
	spillTime  time.Duration // writing the file being spilled
	stats      *winSpillStats
}

func newWindowOp(rt *runtime, in operator, n *windowNode) (operator, error) {
	inSchema := in.Schema()
	keep := n.keep
	if keep == nil {
		keep = make([]int, inSchema.NumFields())
		for i := range keep {
			keep[i] = i
		}
	}
	width := len(keep)
	// The projection below the sort: the input's columns passed through,
	// then the keys and arguments.
	exprs := make([]expr.Expr, 0, width+len(n.partition)+len(n.order)+len(n.args))
	names := make([]string, 0, cap(exprs))
	var nullable []bool
	for _, p := range keep {
		f := inSchema.Field(p)
		exprs = append(exprs, expr.Column(p, f.Name, f.Type))
		names = append(names, f.Name)
		nullable = append(nullable, f.Nullable)
	}
	add := func(es []expr.Expr, prefix string) {
		for i, e := range es {
			exprs = append(exprs, e)
			names = append(names, fmt.Sprintf("$%s%d", prefix, i))
		}
	}
	add(n.partition, "partition")
	add(n.order, "order")
	add(n.args, "arg")
	fields := make([]arrow.Field, len(exprs))
	for i, e := range exprs {
		fields[i] = arrow.Field{Name: names[i], Type: e.Type(), Nullable: i >= width || nullable[i]}
	}
	projSchema := arrow.NewSchema(fields, nil)
	var src operator = &projectOp{rt: rt, in: in, exprs: exprs, schema: projSchema, left: -1}
	o := &windowOp{rt: rt, n: n, schema: n.schema(), width: width, streams: true}
	o.spills = rt.spill != nil
	for _, c := range n.calls {
		o.streams = o.streams && n.streamable(c)
		o.paths = append(o.paths, n.spillPath(c))
		o.spills = o.spills && o.paths[len(o.paths)-1] != pathNone
	}
	o.stats = &winSpillStats{}
	if o.spills && !o.streams {
		rt.spills.add(o.stats)
	}
	var keys []sortKey
	var err error
	if len(n.partition) > 0 {
		pf := make([]sortkey.SortField, len(n.partition))
		for i, e := range n.partition {
			keys = append(keys, sortKey{col: width + i})
			pf[i] = sortkey.SortField{Type: e.Type()}
		}
		if o.pEnc, err = sortkey.NewEncoder(pf); err != nil {
			src.Close()
			return nil, &Error{Kind: ErrUnsupported, Msg: "PARTITION BY", Err: err}
		}
	}
	if len(n.order) > 0 {
		of := make([]sortkey.SortField, len(n.order))
		for i, e := range n.order {
			k := n.orderKeys[i]
			keys = append(keys, sortKey{col: width + len(n.partition) + i, desc: k.desc, nullsFirst: k.nullsFirst})
			of[i] = sortkey.SortField{Type: e.Type()}
		}
		if o.oEnc, err = sortkey.NewEncoder(of); err != nil {
			src.Close()
			return nil, &Error{Kind: ErrUnsupported, Msg: "window ORDER BY", Err: err}
		}
	}
	if !n.sorted {
		so, err := newExtSortOp(rt, src, keys, -1, projSchema, 1)
		if err != nil {
			return nil, err
		}
		so.what = "the sort of window (" + n.specText + ")"
		src = so
	}
	o.src = src
	return o, nil
}

func (o *windowOp) Schema() *arrow.Schema { return o.schema }

// spillStats is what the window's sort and the window spilled so far
// (EXPLAIN ANALYZE).
func (o *windowOp) spillStats() SpillStats {
	st := o.stats.spillStats()
	if s, ok := o.src.(*extSortOp); ok {
		st = st.Add(s.spillStats())
	}
	return st
}

func (o *windowOp) Next(ctx context.Context) (arrow.RecordBatch, error) {
	for len(o.out) == 0 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if o.replay != nil { // a spilled partition's second pass (window_spill.go)
			if err := o.replayStep(ctx); err != nil {
				return nil, err
			}
			continue
		}
		if o.eof {
			return nil, io.EOF
		}
		rec, err := o.src.Next(ctx)
		switch {
		case err == io.EOF:
			o.eof = true
			err = o.flush(ctx, nil, true)
		case err != nil:
			return nil, err
		default:
			err = o.push(ctx, rec)
		}
		if err != nil {
			return nil, err
		}
	}
	rec := o.out[0]
	o.out = o.out[1:]
	return rec, nil
}

// push takes the next sorted batch (and the caller's reference to it).
func (o *windowOp) push(ctx context.Context, rec arrow.RecordBatch) error {
	if rec.NumRows() == 0 {
		rec.Release()
		return nil
	}
	open := o.openPartition()
	if open != nil {
		same, err := o.samePartition(open, 0, rec, int(rec.NumRows())-1)
		if err != nil {
			rec.Release()
			return err
		}
		if same {
			return o.hold(ctx, rec, true)
		}
	}
	return o.flush(ctx, rec, false)
}

// openPartition is a batch whose first row is in the partition held (or
// streamed), nil when none is.
func (o *windowOp) openPartition() arrow.RecordBatch {
	switch {
	case o.wspill != nil:
		return o.wspill.last
	case len(o.held) > 0:
		return o.held[0]
	case o.carry != nil:
		return o.carry.ctx
	}
	return nil
}

// hold keeps rec with the partition held. A partition that spans
// batches counts in the query's memory (charge); the start of one, cut
// from the batch just computed, is the one batch a streaming operator
// holds anyway. When what is held passes half the memory limit and the
// window's calls allow it, the rows held are computed as a chunk of a
// streamed partition (window_stream.go), or, when they have a way past
// memory and the query may spill, the partition is spilled and computed
// in two passes (window_spill.go); otherwise a partition fails the
// query when it alone passes the memory limit: what the sort below holds
// while it merges is already more than the window can give back.
func (o *windowOp) hold(ctx context.Context, rec arrow.RecordBatch, charge bool) error {
	if o.wspill != nil { // the partition is being spilled (window_spill.go)
		defer rec.Release()
		return o.spillWrite(ctx, rec)
	}
	o.held = append(o.held, rec)
	if !charge {
		return nil
	}
	size := batchBytes(rec)
	o.rt.mt.charge(size)
	o.heldBytes += size
	lim := o.rt.mt.limit
	switch {
	case lim <= 0:
		return nil
	case o.streams && o.heldBytes > lim/2:
		return o.streamHeld(ctx)
	case o.spills && o.heldBytes > lim/2:
		return o.startSpill(ctx) // window_spill.go
	case o.heldBytes > lim:
		mt := o.rt.mt
		return &Error{Kind: ErrMemory, Msg: fmt.Sprintf("a window partition holds %d bytes, past %s (%d bytes), and %s need%s the whole partition: PARTITION BY more keys%s",
			o.heldBytes, mt.names.limit, mt.limit, o.wholeCalls(), plural(o.wholeCalls()), mt.advice())}
	}
	return nil
}

// wholeCalls names the calls that keep a partition from being streamed
// or, when the query may spill, from being spilled.
func (o *windowOp) wholeCalls() string {
	var names []string
	for k, c := range o.n.calls {
		if o.rt.spill != nil && o.paths[k] == pathNone || o.rt.spill == nil && !o.n.streamable(c) {
			names = append(names, filterText(c.text))
		}
	}
	if len(names) > 3 {
		names = append(names[:3], "…")
	}
	return strings.Join(names, ", ")
}

func plural(names string) string {
	if strings.Contains(names, ", ") {
		return ""
	}
	return "s"
}

// streamHeld computes the rows held of the partition being streamed (its
// carried context first) and holds what is left.
func (o *windowOp) streamHeld(ctx context.Context) error {
	if o.carry == nil {
		o.carry = &winCarry{calls: make([]callCarry, len(o.n.calls))}
	}
	parts := o.held
	if o.carry.ctx != nil {
		parts = append([]arrow.RecordBatch{o.carry.ctx}, parts...)
	}
	block, err := concatBatches(o.rt.mem, parts[0].Schema(), parts) // ddl_rebatch.go
	o.releaseHeld()
	if err != nil {
		return err
	}
	defer block.Release()
	out, pending, err := o.streamChunk(ctx, block, false)
	if err != nil {
		return err
	}
	o.emit(out)
	o.chargeCarry()
	if pending != nil {
		o.held = []arrow.RecordBatch{pending}
		o.heldBytes = batchBytes(pending)
		o.rt.mt.charge(o.heldBytes)
		if lim := o.rt.mt.limit; o.heldBytes > lim {
			mt := o.rt.mt
			return &Error{Kind: ErrMemory, Msg: fmt.Sprintf("a streamed window partition holds %d bytes of rows it cannot compute yet (rows of equal ORDER BY keys, which a RANGE or GROUPS frame's CURRENT ROW takes together), past %s (%d bytes)%s",
				o.heldBytes, mt.names.limit, mt.limit, mt.advice())}
		}
	}
	return nil
}

// chargeCarry charges the carried context rows in place of the ones
// charged before.
func (o *windowOp) chargeCarry() {
	if o.carryRows != nil {
		o.rt.mt.shrink(batchBytes(o.carryRows))
		o.carryRows.Release()
		o.carryRows = nil
	}
	if o.carry != nil && o.carry.ctx != nil {
		o.carryRows = o.carry.ctx
		o.carryRows.Retain()
		o.rt.mt.charge(batchBytes(o.carryRows))
	}
}

// endCarry drops the carry of a partition that has ended.
func (o *windowOp) endCarry() {
	o.carry.release()
	o.carry = nil
	o.chargeCarry()
}

// emit hands out on in batches of the usual size (slices of it, nothing
// copied).
func (o *windowOp) emit(out arrow.RecordBatch) {
	for lo := int64(0); lo < out.NumRows(); lo += outputBatchRows {
		o.out = append(o.out, out.NewSlice(lo, min(lo+outputBatchRows, out.NumRows())))
	}
	out.Release()
}

func (o *windowOp) releaseHeld() {
	for _, r := range o.held {
		r.Release()
	}
	o.held = nil
	o.rt.mt.shrink(o.heldBytes)
	o.heldBytes = 0
}

// samePartition reports whether row i of a and row j of b have equal
// partition keys.
func (o *windowOp) samePartition(a arrow.RecordBatch, i int, b arrow.RecordBatch, j int) (bool, error) {
	if o.pEnc == nil {
		return true, nil
	}
	var rows sortkey.Rows
	for _, x := range []struct {
		r arrow.RecordBatch
		i int
	}{{a, i}, {b, j}} {
		cols := make([]arrow.Array, len(o.n.partition))
		for k := range cols {
			cols[k] = array.NewSlice(x.r.Column(o.width+k), int64(x.i), int64(x.i)+1)
		}
		err := o.pEnc.Encode(&rows, cols)
		releaseAll(cols)
		if err != nil {
			return false, err
		}
	}
	return bytes.Equal(rows.Row(0), rows.Row(1)), nil
}

// flush computes the partitions that end in the held batches and rec
// (nil: none), all of them when final, and holds the rest.
func (o *windowOp) flush(ctx context.Context, rec arrow.RecordBatch, final bool) error {
	if o.wspill != nil {
		return o.flushSpilled(ctx, rec, final) // window_spill.go
	}
	parts := o.held
	if o.carry != nil { // the streamed partition's context rows come first
		parts = append([]arrow.RecordBatch{o.carry.ctx}, parts...)
	}
	if rec != nil {
		parts = append(parts[:len(parts):len(parts)], rec)
	}
	if len(parts) == 0 {
		return nil
	}
	var block arrow.RecordBatch
	var err error
	if len(parts) == 1 && o.carry == nil {
		block = parts[0]
		block.Retain()
	} else {
		block, err = concatBatches(o.rt.mem, parts[0].Schema(), parts) // ddl_rebatch.go
	}
	if rec != nil {
		rec.Release()
	}
	o.releaseHeld()
	if err != nil {
		return err
	}
	defer block.Release()
	starts, err := o.partitionStarts(block)
	if err != nil {
		return err
	}
	if o.carry != nil {
		// The first partition ends the one streamed: compute it on its own.
		first := int(block.NumRows())
		if len(starts) > 1 {
			first = starts[1]
		}
		head := block.NewSlice(0, int64(first))
		err := o.streamFinal(ctx, head)
		head.Release()
		if err != nil {
			return err
		}
		o.endCarry()
		rest := block.NewSlice(int64(first), block.NumRows())
		defer rest.Release()
		block = rest
		starts = starts[1:]
		for i := range starts {
			starts[i] -= first
		}
		if len(starts) == 0 {
			return nil
		}
	}
	n := int(block.NumRows())
	end := n
	if !final {
		end = starts[len(starts)-1] // the last partition may go on
		starts = starts[:len(starts)-1]
		if err := o.hold(ctx, block.NewSlice(int64(end), int64(n)), false); err != nil {
			return err
		}
	}
	if end == 0 {
		return nil
	}
	out, err := o.compute(ctx, block, starts, end)
	if err != nil {
		return err
	}
	// A block is as large as its partitions: hand it on in batches of
	// the usual size.
	o.emit(out)
	return nil
}

// partitionStarts returns the first row of each partition of block.
func (o *windowOp) partitionStarts(block arrow.RecordBatch) ([]int, error) {
	starts := []int{0}
	if o.pEnc == nil {
		return starts, nil
	}
	var rows sortkey.Rows
	cols := block.Columns()[o.width : o.width+len(o.n.partition)]
	if err := o.pEnc.Encode(&rows, cols); err != nil {
		return nil, err
	}
	for i := 1; i < int(block.NumRows()); i++ {
		if !bytes.Equal(rows.Row(i-1), rows.Row(i)) {
			starts = append(starts, i)
		}
	}
	return starts, nil
}

// compute returns rows [0, end) of block, its input columns and the
// window calls over the partitions starting at starts.
func (o *windowOp) compute(ctx context.Context, block arrow.RecordBatch, starts []int, end int) (arrow.RecordBatch, error) {
	w := &winBlock{rt: o.rt, block: block, n: end, starts: append(starts, end),
		argBase: o.width + len(o.n.partition) + len(o.n.order)}
	if err := w.peers(o.oEnc, block.Columns()[o.width+len(o.n.partition):w.argBase]); err != nil {
		return nil, err
	}
	if len(o.n.order) > 0 {
		k := o.n.orderKeys[0]
		w.order = block.Column(o.width + len(o.n.partition))
		w.orderField = sortkey.SortField{Type: w.order.DataType(), Desc: k.desc, NullsFirst: k.nullsFirst}
	}
	cols := make([]arrow.Array, 0, o.schema.NumFields())
	for i := range o.width {
		cols = append(cols, array.NewSlice(block.Column(i), 0, int64(end)))
	}
	for _, c := range o.n.calls {
		a, err := w.call(ctx, c)
		if err != nil {
			releaseAll(cols)
			return nil, err
		}
		cols = append(cols, a)
	}
	out := array.NewRecordBatch(o.schema, cols, int64(end))
	releaseAll(cols)
	return out, nil
}

func (o *windowOp) Close() {
	if o.closed {
		return
	}
	o.closed = true
	o.closeSpill()
	o.releaseHeld()
	if o.carry != nil {
		o.endCarry()
	}
	for _, r := range o.out {
		r.Release()
	}
	o.out = nil
	o.src.Close()
}

// batchBytes is the size of the buffers rec's columns hold (all of a
// buffer a slice shares).
func batchBytes(rec arrow.RecordBatch) int64 {
	var n int64
	var add func(d arrow.ArrayData)
	add = func(d arrow.ArrayData) {
		for _, b := range d.Buffers() {
			if b != nil {
				n += int64(b.Len())
			}
		}
		for _, c := range d.Children() {
			add(c)
		}
		if d.DataType().ID() == arrow.DICTIONARY {
			add(d.Dictionary())
		}
	}
	for _, c := range rec.Columns() {
		add(c.Data())
	}
	return n
}
