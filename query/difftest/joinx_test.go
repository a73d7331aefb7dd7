//go:build duckdb

package difftest

import (
	"context"
	"flag"
	"runtime"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/query"
)

// partitionJoin runs every hash join with keys of the TPC-H and join
// workloads partitioned (query.Options.BroadcastJoinBytes < 0), on at
// least 2 workers: both sides hash-partitioned by the key, each worker
// building and probing its own table.
//
//	go test -tags duckdb -run 'TestJoins|TestTPCH' ./query/difftest/ -args -partitionjoin
var partitionJoin = flag.Bool("partitionjoin", false, "partition every hash join (query.Options.BroadcastJoinBytes < 0)")

// withPartitionJoin sets opts to partition every join under -partitionjoin.
func withPartitionJoin(opts query.Options) query.Options {
	if *partitionJoin {
		opts.BroadcastJoinBytes = -1
		opts.Workers = max(runtime.GOMAXPROCS(0), 2)
	}
	return opts
}

// TestJoinsPartitioned: with -partitionjoin, the join workload's joins
// did run partitioned (so TestJoins compared the partitioned join).
func TestJoinsPartitioned(t *testing.T) {
	if !*partitionJoin {
		t.Skip("without -partitionjoin")
	}
	q := joinEngine(t)
	text, err := q.Explain(context.Background(), "EXPLAIN ANALYZE SELECT count(*) FROM ja JOIN jb ON ja.k = jb.k LEFT JOIN jc ON jb.s = jc.s")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(text, "partitioned to ") != 2 {
		t.Errorf("want both joins partitioned:\n%s", text)
	}
}
