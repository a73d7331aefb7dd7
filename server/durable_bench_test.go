package server

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/internal/arrowsize"
	"github.com/quiverdb/quiver/store"
)

// BenchmarkIngest answers: what does --data-dir cost a client's bulk
// ingest (replace of a 16 × 8192-row table over loopback Flight SQL)?
// MB/s are of the Arrow bytes uploaded; the target is at least 0.8 of
// the in-memory rate.
func BenchmarkIngest(b *testing.B) {
	mem := memory.NewGoAllocator()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "k", Type: arrow.PrimitiveTypes.Int64},
		{Name: "label", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	var recs []arrow.RecordBatch
	var size int64
	for batch := range 16 {
		bld := array.NewRecordBuilder(mem, schema)
		for i := batch * 8192; i < (batch+1)*8192; i++ {
			bld.Field(0).(*array.Int64Builder).Append(int64(i))
			bld.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("label %d", i%977))
		}
		rec := bld.NewRecordBatch()
		bld.Release()
		recs = append(recs, rec)
		size += arrowsize.Record(rec)
	}
	for _, durable := range []bool{false, true} {
		name := "to=memory"
		if durable {
			name = "to=disk"
		}
		b.Run(name, func(b *testing.B) {
			c, _ := cache.New(cache.Options{})
			cfg := Config{Listen: "127.0.0.1:0", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
			if durable {
				st, err := store.Open(b.TempDir(), c, store.Options{})
				if err != nil {
					b.Fatal(err)
				}
				defer st.Close()
				cfg.Store = st
			}
			s, err := New(cfg, c)
			if err != nil {
				b.Fatal(err)
			}
			if err := s.Listen(); err != nil {
				b.Fatal(err)
			}
			go s.Serve()
			defer s.Shutdown(context.Background())
			cl, err := flightsql.NewClient(s.Addr().String(), nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
			if err != nil {
				b.Fatal(err)
			}
			defer cl.Close()
			opts := ingestOpts("points", flightsql.TableDefinitionOptionsTableNotExistOptionCreate, flightsql.TableDefinitionOptionsTableExistsOptionReplace)
			b.SetBytes(size)
			for b.Loop() {
				rr, _ := array.NewRecordReader(schema, recs)
				if _, err := cl.ExecuteIngest(context.Background(), rr, opts); err != nil {
					b.Fatal(err)
				}
				rr.Release()
			}
		})
	}
}
