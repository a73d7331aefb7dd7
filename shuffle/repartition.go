package shuffle

import (
	"context"
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// DefaultBatchRows is the rows of a batch a Repartitioner emits when
// RepartitionConfig.BatchRows is 0: the engine's batch size.
const DefaultBatchRows = 8192

// RepartitionConfig configures a Repartitioner.
type RepartitionConfig struct {
	// Fanout: partitions, 1 to 65,536.
	Fanout int
	// BatchRows: rows of each batch emitted while rows come (Flush emits
	// the rest). 0 means DefaultBatchRows.
	BatchRows int
	// MaxBytes bounds the bytes held, about: when fanout × BatchRows rows
	// of the schema's fixed-width columns would take more, BatchRows is
	// lowered to fit (not below 64), and a partition's string and binary
	// bytes are emitted past MaxBytes ÷ fanout. 0: no bound but BatchRows.
	MaxBytes int64
}

// Validate reports a field outside its documented range.
func (c RepartitionConfig) Validate() error {
	if c.Fanout < 1 || c.Fanout > 1<<16 || c.BatchRows < 0 || c.MaxBytes < 0 {
		return fmt.Errorf("shuffle: RepartitionConfig Fanout %d (1 to 65536), BatchRows %d, MaxBytes %d", c.Fanout, c.BatchRows, c.MaxBytes)
	}
	return nil
}

// Repartitioner gathers the rows of a stream of batches by partition and
// emits full batches of each partition: the hash repartition of an
// exchange. Each row's values are appended to its partition's buffers,
// which become the emitted batch's buffers (no copy at the end), so the
// work per row is one store per column whatever the fanout, and the
// Arrow objects made are per emitted batch, not per partition of every
// batch in (Split's take per column per piece costs an allocation per
// 128 rows at fanout 64 on 8,192-row batches, which is most of its time).
//
// Columns of fixed width 1, 2, 4, 8 or 16 bytes, booleans, and utf8 and
// binary (large or not) are gathered, NULLs included. A schema with any
// other column (nested, dictionary, views…) is cut by Split instead: a
// batch per partition of every batch in.
//
// The buffers come from the allocator given, so a query's tracker counts
// what is held (Buffered) until it is emitted. Not safe for concurrent
// use: one per goroutine. Release frees what was not emitted.
type Repartitioner struct {
	mem    memory.Allocator
	schema *arrow.Schema
	cfg    RepartitionConfig
	kinds  []colKind // nil: the schema is cut by Split
	// varLimit: a partition's bytes of each string column before it is
	// emitted (within int32 offsets, and MaxBytes ÷ fanout).
	varLimit int64

	parts []partBuf
	held  int64 // bytes of the partitions' buffers
	over  bool  // MaxBytes is less than fanout × 64 rows

	// scratch
	fill    []int32 // per partition: rows after the chunk
	vfill   []int64 // per partition: string bytes after the chunk
	blocked int     // the partition whose string bytes ended the chunk, or -1
	at      []int32 // order's: where each partition's rows start in sel
	sel     []int32
	pos     []int32
	split   SplitScratch
	ids     []uint16 // AddBy's
}

// partBuf is one partition's batch being gathered.
type partBuf struct {
	rows int32
	cols []colBuf // nil until the partition's first row
	vlen int64    // the largest string column's bytes
}

// NewRepartitioner returns a Repartitioner of batches of schema.
func NewRepartitioner(mem memory.Allocator, schema *arrow.Schema, cfg RepartitionConfig) (*Repartitioner, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.BatchRows == 0 {
		cfg.BatchRows = DefaultBatchRows
	}
	cfg.BatchRows = min(cfg.BatchRows, math.MaxInt32-1)
	r := &Repartitioner{mem: mem, schema: schema, cfg: cfg, varLimit: math.MaxInt32}
	width := 0
	for _, f := range schema.Fields() {
		k := kindOf(f.Type)
		if k == kindOther {
			r.kinds = nil
			break
		}
		r.kinds = append(r.kinds, k)
		width += k.width()
	}
	if cfg.MaxBytes > 0 {
		per := cfg.MaxBytes / int64(cfg.Fanout)
		if width > 0 {
			r.cfg.BatchRows = int(max(64, min(int64(cfg.BatchRows), per/int64(width))))
			r.over = r.kinds != nil && int64(r.cfg.BatchRows)*int64(width) > per
		}
		r.varLimit = max(1, min(r.varLimit, per))
	}
	if r.kinds != nil {
		r.parts = make([]partBuf, cfg.Fanout)
	}
	return r, nil
}

// BatchRows returns the rows of the batches emitted while rows come.
func (r *Repartitioner) BatchRows() int { return r.cfg.BatchRows }

// Gathers reports whether the schema's columns are gathered into full
// batches; false: Add cuts each batch by Split, a batch per partition of
// every batch in, and the caller gathers them if it wants full ones.
func (r *Repartitioner) Gathers() bool { return r.kinds != nil }

// Bounded reports whether what is held stays within MaxBytes (about):
// false when the fixed-width columns of 64 rows (the fewest BatchRows
// goes to) of every partition pass it, since a partition's buffers are
// sized for BatchRows rows at its first. A caller with a bound that
// tight cuts batches with Split, whose pieces hold only their rows.
func (r *Repartitioner) Bounded() bool { return !r.over }

// Buffered returns the bytes held in partitions not yet emitted.
func (r *Repartitioner) Buffered() int64 { return r.held }

// Add appends each row of rec to the partition ids gives it (an id past
// the fanout drops the row) and calls emit with every partition's batch
// that fills (BatchRows rows, or its string bytes reach their bound).
// Add releases the batch when emit returns: emit retains it to keep it.
// The caller keeps rec. After an error the rows of rec not yet emitted
// may be held or dropped: the caller ends the stream (Release).
func (r *Repartitioner) Add(ctx context.Context, rec arrow.RecordBatch, ids []uint16, emit func(p int, b arrow.RecordBatch) error) error {
	if int64(len(ids)) != rec.NumRows() {
		return fmt.Errorf("shuffle: repartition: %d partition ids for %d rows", len(ids), rec.NumRows())
	}
	if !rec.Schema().Equal(r.schema) {
		return fmt.Errorf("shuffle: repartition: batch of schema %s, want %s", rec.Schema(), r.schema)
	}
	if r.kinds == nil {
		return Split(ctx, r.mem, rec, ids, r.cfg.Fanout, &r.split, emit)
	}
	cols := rec.Columns()
	for start := 0; start < len(ids); {
		if err := ctx.Err(); err != nil {
			return err
		}
		end := r.chunk(cols, ids, start)
		r.order(ids[start:end])
		for c, k := range r.kinds {
			r.gather(c, k, cols[c], ids[start:end], start)
		}
		full := r.blocked >= 0
		for p := range r.parts {
			pb := &r.parts[p]
			pb.rows, pb.vlen = r.fill[p], r.vfill[p]
			full = full || r.isFull(pb)
		}
		if full {
			for p := range r.parts {
				if r.isFull(&r.parts[p]) || p == r.blocked {
					if err := r.emit(p, emit); err != nil {
						return err
					}
				}
			}
		}
		start = end
	}
	return nil
}

// AddBy is Add with the partitions p gives the rows of rec by their
// keys (key columns of rec's rows): a HashPartitioner's or a
// RangePartitioner's, whose fanout must not exceed the Repartitioner's
// (a row past it is dropped, as by Add).
func (r *Repartitioner) AddBy(ctx context.Context, rec arrow.RecordBatch, p Partitioner, keys []arrow.Array, emit func(p int, b arrow.RecordBatch) error) error {
	ids, err := p.Partition(r.ids[:0], keys, int(rec.NumRows()))
	r.ids = ids
	if err != nil {
		return err
	}
	return r.Add(ctx, rec, ids, emit)
}

func (r *Repartitioner) isFull(pb *partBuf) bool {
	return int(pb.rows) >= r.cfg.BatchRows || (pb.vlen >= r.varLimit && pb.rows > 0)
}

// chunk returns the end of the rows from start that fit their partitions
// (at least one row: a partition is emitted as soon as it is full, so a
// row fits an empty one), leaving in r.fill and r.vfill each partition's
// rows and string bytes after them.
func (r *Repartitioner) chunk(cols []arrow.Array, ids []uint16, start int) int {
	fanout := r.cfg.Fanout
	r.fill = resized(r.fill, fanout)
	r.vfill = resized(r.vfill, fanout)
	for p := range r.parts {
		r.fill[p], r.vfill[p] = r.parts[p].rows, r.parts[p].vlen
	}
	limit := int32(r.cfg.BatchRows)
	r.blocked = -1
	var vars []varOffsets
	for c, k := range r.kinds {
		if k == kindVar32 || k == kindVar64 {
			vars = append(vars, offsetsOf(cols[c], k))
		}
	}
	end := start
	if vars == nil {
		for end < len(ids) {
			p := ids[end]
			if int(p) < fanout {
				if r.fill[p] == limit {
					break
				}
				r.fill[p]++
			}
			end++
		}
		return end
	}
	for end < len(ids) {
		p := ids[end]
		if int(p) < fanout {
			var n int64
			for _, v := range vars {
				n = max(n, v.len(end))
			}
			if r.fill[p] == limit {
				break
			}
			if r.fill[p] > 0 && r.vfill[p]+n > r.varLimit {
				r.blocked = int(p) // emitted before its next row
				break
			}
			r.fill[p]++
			r.vfill[p] += n
		}
		end++
	}
	return end
}

// emit hands partition p's batch to fn and starts it again.
func (r *Repartitioner) emit(p int, fn func(p int, b arrow.RecordBatch) error) error {
	pb := &r.parts[p]
	n := int(pb.rows)
	cols := make([]arrow.Array, len(pb.cols))
	for c := range pb.cols {
		cols[c] = pb.cols[c].finish(r.schema.Field(c).Type, r.kinds[c], n)
		r.held -= pb.cols[c].bytes
		pb.cols[c] = colBuf{}
	}
	pb.rows, pb.vlen = 0, 0
	b := array.NewRecordBatch(r.schema, cols, int64(n))
	for _, c := range cols {
		c.Release()
	}
	err := fn(p, b)
	b.Release()
	return err
}

// Flush emits every partition holding rows, in partition order.
func (r *Repartitioner) Flush(emit func(p int, b arrow.RecordBatch) error) error {
	for p := range r.parts {
		if r.parts[p].rows > 0 {
			if err := r.emit(p, emit); err != nil {
				return err
			}
		}
	}
	return nil
}

// Release frees the rows held and not emitted.
func (r *Repartitioner) Release() {
	for p := range r.parts {
		for c := range r.parts[p].cols {
			r.parts[p].cols[c].release()
		}
		r.parts[p] = partBuf{}
	}
	r.held = 0
}
