package cache

import (
	"context"
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/quiverdb/quiver/internal/datagen"
)

// TestAppendAddsBatchesWithTheTablesDecisions appends batches of every
// type under each setting and reads back the put batches then the
// appended ones, unchanged.
func TestAppendAddsBatchesWithTheTablesDecisions(t *testing.T) {
	for _, s := range settings {
		t.Run(s.name, func(t *testing.T) {
			mem := checked(t)
			c := newCache(t, mem, 0)
			first := allTypesInput(mem)
			defer release(first)
			more := []arrow.RecordBatch{datagen.Record(mem, 100, 7), datagen.Record(mem, 33, 8)}
			defer release(more)
			schema := first[0].Schema()
			before := put(t, c, "t", schema, first, s.opts)
			used := c.Used()

			r, _ := array.NewRecordReader(schema, more)
			info, err := c.Append(context.Background(), "t", r, TableOptions{})
			r.Release()
			if err != nil {
				t.Fatal(err)
			}
			if info.Batches != len(first)+len(more) || info.Rows != before.Rows+133 {
				t.Fatalf("after append: %d batches, %d rows (before %d, %d)", info.Batches, info.Rows, before.Batches, before.Rows)
			}
			if got := c.Used(); got != info.Compressed || got <= used {
				t.Fatalf("used %d, table %d, before %d", got, info.Compressed, used)
			}
			for i := range info.Columns {
				if info.Columns[i].Codec != before.Columns[i].Codec || info.Columns[i].Dictionary != before.Columns[i].Dictionary {
					t.Fatalf("column %d: decisions changed: %+v -> %+v", i, before.Columns[i], info.Columns[i])
				}
			}
			got, _ := scanAll(t, c, "t", ScanOptions{})
			defer release(got)
			want := append(append([]arrow.RecordBatch{}, first...), more...)
			for b := range want {
				for i := range int(want[b].NumCols()) {
					w := wantColumn(t, mem, info, want[b], i)
					if !array.Equal(w, got[b].Column(i)) {
						t.Errorf("batch %d column %d differs", b, i)
					}
					w.Release()
				}
			}
		})
	}
}

func TestAppendErrors(t *testing.T) {
	mem := checked(t)
	c := newCache(t, mem, 0)
	recs := allTypesInput(mem)
	defer release(recs)
	put(t, c, "t", recs[0].Schema(), recs, TableOptions{})
	ctx := context.Background()

	r, _ := array.NewRecordReader(recs[0].Schema(), recs)
	defer r.Release()
	if _, err := c.Append(ctx, "missing", r, TableOptions{}); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing table: %v", err)
	}
	other := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil)
	r2, _ := array.NewRecordReader(other, nil)
	defer r2.Release()
	if _, err := c.Append(ctx, "t", r2, TableOptions{}); !errors.Is(err, ErrSchema) {
		t.Error("other schema: no error")
	}
	before, _ := c.Info("t")
	small := newCache(t, mem, before.Compressed+10)
	put(t, small, "t", recs[0].Schema(), recs, TableOptions{})
	r3, _ := array.NewRecordReader(recs[0].Schema(), recs)
	defer r3.Release()
	if _, err := small.Append(ctx, "t", r3, TableOptions{}); !errors.Is(err, ErrBudget) {
		t.Errorf("over budget: %v", err)
	}
	if info, _ := small.Info("t"); info.Batches != len(recs) || small.Used() != info.Compressed {
		t.Errorf("failed append changed the table: %d batches, used %d of %d", info.Batches, small.Used(), info.Compressed)
	}
}

// dropOnNext drops a table when the append reading it asks for its first
// batch: a concurrent change, made deterministic.
type dropOnNext struct {
	array.RecordReader
	t    *testing.T
	c    *Cache
	done bool
}

func (d *dropOnNext) Next() bool {
	if !d.done {
		d.done = true
		d.c.Drop("t")
		put(d.t, d.c, "t", d.Schema(), nil, TableOptions{})
	}
	return d.RecordReader.Next()
}

func TestAppendConflict(t *testing.T) {
	mem := checked(t)
	c := newCache(t, mem, 0)
	recs := allTypesInput(mem)
	defer release(recs)
	put(t, c, "t", recs[0].Schema(), recs, TableOptions{})
	r, _ := array.NewRecordReader(recs[0].Schema(), recs)
	defer r.Release()
	_, err := c.Append(context.Background(), "t", &dropOnNext{RecordReader: r, t: t, c: c}, TableOptions{})
	if !errors.Is(err, ErrConflict) {
		t.Fatalf("got %v, want ErrConflict", err)
	}
	if info, _ := c.Info("t"); info.Batches != 0 || c.Used() != info.Compressed {
		t.Errorf("the replacing table was changed: %d batches, used %d", info.Batches, c.Used())
	}
}
