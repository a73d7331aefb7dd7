package query

import (
	"context"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/quiverdb/quiver/internal/take"
)

// nextUnmatched returns, for a right or full join once the probe side is
// done, the next batch of build rows no probe row matched, with NULL
// probe columns; for a right semi join the rows some probe row matched,
// for a right anti join those none did, build columns only.
func (o *hashJoinOp) nextUnmatched(ctx context.Context) (arrow.RecordBatch, error) {
	return o.unmatched(ctx, o.b, o.matched, &o.tail)
}

// unmatched is nextUnmatched over build side b and its bitmap matched,
// from build row *tail on: o's, or a partitioned join's partition's
// (op_joinx.go).
func (o *hashJoinOp) unmatched(ctx context.Context, b *joinBuild, matched []uint64, tail *int) (arrow.RecordBatch, error) {
	if matched == nil || b == nil {
		return nil, io.EOF
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var sel []int32
	want := uint64(0) // the matched bit of the rows returned
	if o.n.kind == joinRightSemi {
		want = 1
	}
	for ; *tail < b.rows && len(sel) < joinBatchRows; *tail++ {
		if t := *tail; matched[t>>6]>>(t&63)&1 == want {
			sel = append(sel, int32(t))
		}
	}
	if len(sel) == 0 {
		return nil, io.EOF
	}
	rec, err := o.output(ctx, nil, nil, b.rec, sel, len(sel))
	if err == nil {
		o.st.rowsOut.Add(rec.NumRows())
	}
	return rec, err
}

// output is a batch of the join's schema, n rows: the probe's columns at
// rows p of probe (NULLs when p is nil), then, for the joins that return
// the build's columns, the build's at rows b of build (NULLs when b is
// nil). Rows are copied with package take, in any order, except that
// consecutive rows are sliced, not copied: a key-to-primary-key join
// where every probe row matches once passes the probe's columns on
// as they are.
func (o *hashJoinOp) output(ctx context.Context, probe arrow.RecordBatch, p []int32, build arrow.RecordBatch, b []int32, n int) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, 0, o.schema.NumFields())
	add := func(src arrow.RecordBatch, idx []int32, fields []arrow.Field) error {
		run := consecutive(idx)
		for i, f := range fields {
			if idx == nil {
				cols = append(cols, array.MakeArrayOfNull(o.rt.mem, f.Type, n))
				continue
			}
			if run {
				cols = append(cols, array.NewSlice(src.Column(i), int64(idx[0]), int64(idx[0])+int64(len(idx))))
				continue
			}
			a, err := take.Array(ctx, o.rt.mem, src.Column(i), idx)
			if err != nil {
				return &Error{Kind: ErrExec, Msg: fmt.Sprintf("%s: gathering %s", o.title(), f.Name), Err: err}
			}
			cols = append(cols, a)
		}
		return nil
	}
	var err error
	if !o.rightOnly() {
		err = add(probe, p, o.probeFields)
	}
	if err == nil && (o.returnsPairs() || o.rightOnly()) {
		err = add(build, b, o.buildFields)
	}
	if err != nil {
		releaseAll(cols)
		return nil, err
	}
	rec := array.NewRecordBatch(o.schema, cols, int64(n))
	releaseAll(cols)
	return rec, nil
}

// consecutive reports whether idx is a run of consecutive rows.
func consecutive(idx []int32) bool {
	if len(idx) == 0 {
		return false
	}
	first := idx[0]
	for i, r := range idx {
		if r != first+int32(i) {
			return false
		}
	}
	return true
}
