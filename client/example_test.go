package client_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/client"
	"github.com/quiverdb/quiver/convert/input"
	"github.com/quiverdb/quiver/server"
)

// Example loads a CSV file into a quiver server, queries it with
// zstd-compressed results, runs a prepared statement with a parameter
// and lists the tables. The server runs in-process on a loopback port.
func Example() {
	uri, stop := exampleServer()
	defer stop()
	ctx := context.Background()

	c, err := client.Dial(uri, client.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	if err := c.SetResultCodec(ctx, "zstd:1"); err != nil {
		log.Fatal(err)
	}

	dir, _ := os.MkdirTemp("", "quiver-example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "trips.csv")
	os.WriteFile(path, []byte("city,km\nOslo,12.5\nLima,3\nOslo,40\nLima,7.25\nKyiv,1\n"), 0o644)
	n, err := c.IngestFile(ctx, "trips", path, input.Options{}, client.IngestOptions{Mode: client.Create})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(n, "rows loaded")

	rs, err := c.Query(ctx, "SELECT city, count(*) AS n, sum(km) AS km FROM trips GROUP BY city ORDER BY city")
	if err != nil {
		log.Fatal(err)
	}
	for rs.Next() {
		rec := rs.RecordBatch()
		for i := range int(rec.NumRows()) {
			fmt.Println(rec.Column(0).ValueStr(i), rec.Column(1).ValueStr(i), rec.Column(2).ValueStr(i))
		}
	}
	if err := rs.Err(); err != nil {
		log.Fatal(err)
	}
	// zstd was asked for, but a batch this small would come out bigger
	// compressed, so the server sent it as it is.
	fmt.Println("codec:", rs.Stats().Codec)
	rs.Release()

	stmt, err := c.Prepare(ctx, "SELECT count(*) FROM trips WHERE km > ?")
	if err != nil {
		log.Fatal(err)
	}
	defer stmt.Close(ctx)
	for _, over := range []float64{5, 20} {
		params := oneFloat(over)
		rs, err := stmt.Query(ctx, params)
		params.Release()
		if err != nil {
			log.Fatal(err)
		}
		for rs.Next() {
			fmt.Printf("over %v km: %s\n", over, rs.RecordBatch().Column(0).ValueStr(0))
		}
		rs.Release()
	}

	tables, err := c.Tables(ctx, client.TablesOptions{Columns: true})
	if err != nil {
		log.Fatal(err)
	}
	for _, t := range tables {
		fmt.Println(t.Name, t.Columns.Field(0).Name, t.Columns.Field(1).Type)
	}
	// Output:
	// 5 rows loaded
	// Kyiv 1 1
	// Lima 2 10.25
	// Oslo 2 52.5
	// codec: none
	// over 5 km: 3
	// over 20 km: 1
	// trips city float64
}

// oneFloat is a parameter batch: one row, one float64 column.
func oneFloat(v float64) arrow.RecordBatch {
	b := array.NewFloat64Builder(memory.DefaultAllocator)
	defer b.Release()
	b.Append(v)
	col := b.NewArray()
	defer col.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "p1", Type: arrow.PrimitiveTypes.Float64}}, nil)
	return array.NewRecordBatch(schema, []arrow.Array{col}, 1)
}

// exampleServer starts a quiver server over an empty cache on a
// loopback port, as `quiver serve` would.
func exampleServer() (uri string, stop func()) {
	c, err := cache.New(cache.Options{Budget: 64 << 20})
	if err != nil {
		log.Fatal(err)
	}
	s, err := server.New(server.Config{Listen: "127.0.0.1:0", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, c)
	if err != nil {
		log.Fatal(err)
	}
	if err := s.Listen(); err != nil {
		log.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve() }()
	return s.URI(), func() {
		s.Shutdown(context.Background())
		<-done
	}
}
