package shuffle

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/internal/take"
)

// SplitScratch is one goroutine's reusable scratch for Split.
type SplitScratch struct {
	counts []int32 // per partition, where its rows start in sel
	next   []int32
	sel    []int32
}

// Split cuts rec by partition: ids gives each row's partition, and an id
// outside [0, fanout) drops the row. fn gets each partition that has rows
// with a batch of them (taken, internal/take) in row order; Split
// releases the batch when fn returns (fn retains it to keep it). When
// every row is in one partition fn gets rec itself, copied nowhere. The
// rows are grouped by a counting sort: two passes over ids and one take
// per partition. The engine's grace hash join and MapWriter.WriteRows
// both split with it.
func Split[ID uint16 | int32](ctx context.Context, mem memory.Allocator, rec arrow.RecordBatch, ids []ID, fanout int, sc *SplitScratch,
	fn func(p int, part arrow.RecordBatch) error) error {
	n := len(ids)
	sc.counts = resized(sc.counts, fanout+1)
	clear(sc.counts)
	for _, id := range ids {
		if int(id) >= 0 && int(id) < fanout {
			sc.counts[id+1]++
		}
	}
	only := -1 // every row in one partition: rec as it is
	for p := range fanout {
		if int(sc.counts[p+1]) == n && n > 0 {
			only = p
		}
		sc.counts[p+1] += sc.counts[p]
	}
	if only >= 0 {
		return fn(only, rec)
	}
	sc.sel = resized(sc.sel, int(sc.counts[fanout]))
	sc.next = append(sc.next[:0], sc.counts[:fanout]...)
	for r, id := range ids {
		if int(id) >= 0 && int(id) < fanout {
			sc.sel[sc.next[id]] = int32(r)
			sc.next[id]++
		}
	}
	for p := range fanout {
		rows := sc.sel[sc.counts[p]:sc.counts[p+1]]
		if len(rows) == 0 {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		part, err := take.Record(ctx, mem, rec, rows)
		if err != nil {
			return err
		}
		err = fn(p, part)
		part.Release()
		if err != nil {
			return err
		}
	}
	return nil
}

func resized[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}
