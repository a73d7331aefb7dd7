package query

// A grace hash join's build side: how a hash join turns into one
// (op_gracejoin.go) while its build side is drained, and how its rows
// are partitioned.

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/quiverdb/quiver/shuffle"
)

// partitioner returns a level-0 partitioner, one per goroutine at a time.
func (g *graceJoin) partitioner() (*shuffle.HashPartitioner, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if n := len(g.free); n > 0 {
		p := g.free[n-1]
		g.free = g.free[:n-1]
		return p, nil
	}
	p, err := shuffle.NewHashPartitioner(g.types, partitionSeed(0), g.fanout)
	if err != nil {
		return nil, &Error{Kind: ErrExec, Msg: g.o.title() + ": partitioning", Err: err}
	}
	return p, nil
}

func (g *graceJoin) putPartitioner(p *shuffle.HashPartitioner) {
	g.mu.Lock()
	g.free = append(g.free, p)
	g.mu.Unlock()
}

// toGrace turns the build side into a grace hash join's partitions: the
// batches kept so far are partitioned, released as they are written.
func (c *buildCollector) toGrace(ctx context.Context) error {
	o := c.o
	o.grace = o.newGrace()
	if err := o.grace.startBuild(); err != nil {
		return err
	}
	nb := len(c.batchRows)
	schema := o.n.build.schema()
	for j := range nb {
		cols := make([]arrow.Array, len(c.cols))
		for i := range c.cols {
			cols[i] = c.cols[i][j]
		}
		rec := array.NewRecordBatch(schema, cols, int64(c.batchRows[j]))
		err := o.grace.addBuild(ctx, rec)
		rec.Release()
		for i := range c.cols {
			c.cols[i][j].Release()
			c.cols[i][j] = nil
		}
		o.unhold(c.b, c.batchSize[j])
		if err != nil {
			return err
		}
	}
	c.release()
	c.batchRows, c.batchSize = nil, nil
	o.releaseBuild(c.b)
	c.b = &joinBuild{}
	return nil
}

// recToGrace is toGrace for a build side already gathered into one
// batch (its hash table did not fit), partitioned a slice at a time.
func (c *buildCollector) recToGrace(ctx context.Context) error {
	o, b := c.o, c.b
	o.grace = o.newGrace()
	if err := o.grace.startBuild(); err != nil {
		return err
	}
	rec := b.rec
	rec.Retain()
	defer rec.Release()
	if b.kt != nil {
		b.kt.Release()
		b.kt = nil
	}
	const step = 1 << 16
	for lo := int64(0); lo < rec.NumRows(); lo += step {
		s := rec.NewSlice(lo, min(lo+step, rec.NumRows()))
		err := o.grace.addBuild(ctx, s)
		s.Release()
		if err != nil {
			return err
		}
	}
	o.releaseBuild(b)
	c.b = &joinBuild{}
	return nil
}

// finishFits says whether what finish still needs (a column's copy, the
// hash table, the row order) fits the memory limit with what the build
// side holds: if not, a build side that may spill spills now.
func (c *buildCollector) finishFits() bool {
	mt := c.o.rt.mt
	if mt.limit <= 0 {
		return true
	}
	var copyCol int64
	for i, parts := range c.cols {
		if len(parts) > 1 {
			copyCol = max(copyCol, c.sizes[i])
		}
	}
	need := copyCol + int64(c.b.rows)*int64(graceRowOverhead+16*len(c.o.n.buildKeys))
	for _, k := range c.o.n.buildKeys {
		if c.o.n.build.schema().Field(k).Type.ID() == arrow.STRING {
			need += c.sizes[k]
		}
	}
	return mt.firm()+need <= mt.limit
}

// addBuild partitions a batch of build rows; safe for concurrent use.
func (g *graceJoin) addBuild(ctx context.Context, rec arrow.RecordBatch) error {
	n := int(rec.NumRows())
	if n == 0 {
		return nil
	}
	o := g.o
	keys := make([]arrow.Array, len(o.n.buildKeys))
	for i, k := range o.n.buildKeys {
		keys[i] = rec.Column(k)
	}
	var sc partScratch
	p, err := g.partitioner()
	if err != nil {
		return err
	}
	sc.ids, err = p.Partition(sc.ids[:0], keys, n)
	g.putPartitioner(p)
	if err != nil {
		return &Error{Kind: ErrExec, Msg: o.title() + ": partitioning", Err: err}
	}
	valid := nonNullRows(nil, keys, n)
	g.mu.Lock()
	g.rows += int64(n)
	g.hasNull = g.hasNull || len(valid) < n
	for i, f := range o.n.filters {
		g.ranges[i].add(rec.Column(o.n.buildKeys[f.key]))
	}
	g.mu.Unlock()
	if len(valid) == n {
		return g.build.write(ctx, rec, sc.ids, &sc)
	}
	// Rows with a NULL key match nothing: kept apart when the kind
	// returns them, else dropped.
	nulls := make([]uint16, n) // partition 0 of the NULL-key file
	for _, r := range valid {
		nulls[r] = dropRow // has a key: not in the NULL-key file
	}
	for r, id := range nulls {
		if id == 0 {
			sc.ids[r] = dropRow // a NULL key: in no partition
		}
	}
	if err := g.build.write(ctx, rec, sc.ids, &sc); err != nil {
		return err
	}
	if o.n.kind == joinRight || o.n.kind == joinFull || o.n.kind == joinRightAnti {
		return g.nullBuild.write(ctx, rec, nulls, &sc)
	}
	return nil
}

// finishBuild ends the build side's partitioning and publishes the
// runtime filters' ranges.
func (g *graceJoin) finishBuild() error {
	if err := g.build.finish(); err != nil {
		return err
	}
	if err := g.nullBuild.finish(); err != nil {
		return err
	}
	for i, f := range g.o.n.filters {
		if g.rows == 0 {
			f.empty = true
			f.ready.Store(true)
			continue
		}
		f.set(g.ranges[i])
	}
	return nil
}
