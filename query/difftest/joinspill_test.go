//go:build duckdb

package difftest

import (
	"context"
	"flag"
	"os"
	"sync"
	"testing"

	"github.com/quiverdb/quiver/query"
	"github.com/quiverdb/quiver/spill"
)

// forceJoinSpill runs every hash join of the TPC-H and join workloads
// through the grace hash join (query.Options.ForceJoinSpill): partitioned
// to spill files, repartitioned, and joined by the nested loop where a
// partition's rows share one key.
//
//	go test -tags duckdb -run 'TestTPCH22|TestJoins' ./query/difftest/ -args -forcejoinspill
var forceJoinSpill = flag.Bool("forcejoinspill", false, "spill every hash join (query.Options.ForceJoinSpill)")

var exchange = flag.Bool("exchange", false, "GROUP BY through a hash exchange (query.Options.Exchange)")

// sortWorkers sorts every ORDER BY on that many workers, gathered by a
// merge (query.Options.SortWorkers): ties between workers in no fixed
// order, so only queries whose order is total compare row for row.
//
//	go test -tags duckdb -run 'TestTPCH22' ./query/difftest/ -args -sortworkers 2 [-memlimit 1048576]
var sortWorkers = flag.Int("sortworkers", 0, "ORDER BY on this many workers (query.Options.SortWorkers; 0: serial)")

// sortByRanges makes the -sortworkers sorts range-partition their rows,
// each worker sorting a key range (query.Options.SortByRanges):
//
//	go test -tags duckdb -run 'TestTPCH22' ./query/difftest/ -args -sortworkers 2 -sortbyranges
var sortByRanges = flag.Bool("sortbyranges", false, "with -sortworkers: sort by key ranges, not merged (query.Options.SortByRanges)")

// memLimit runs every query within a memory limit, with a spill Manager,
// so that GROUP BYs spill (through the shuffle, or with -groupbysortspill
// as sorted runs), and sorts and joins too:
//
//	go test -tags duckdb -run 'TestTPCH22$|TestGenerated' ./query/difftest/ -args -memlimit 1048576
var (
	memLimit         = flag.Int64("memlimit", 0, "bytes: run within query.Options.MemoryLimit, spilling (0: the default limit, no spill)")
	groupBySortSpill = flag.Bool("groupbysortspill", false, "with -memlimit: GROUP BY spills sorted runs (query.Options.GroupBySortSpill)")
)

var (
	spillOnce sync.Once
	spillMgr  *spill.Manager
	spillErr  error
)

// engineOptions are the options of the engines compared with DuckDB:
// the defaults, or with -forcejoinspill or -memlimit a spill Manager under the
// temporary folder (removed when the process ends; NewManager removes
// the folders of processes that are gone) and ForceJoinSpill.
func engineOptions() query.Options {
	return withPartitionJoin(spillOptions()) // joinx_test.go
}

func spillOptions() query.Options {
	if !*forceJoinSpill && *memLimit <= 0 {
		return query.Options{Exchange: *exchange, SortWorkers: *sortWorkers, SortByRanges: *sortByRanges}
	}
	spillOnce.Do(func() { spillMgr, spillErr = spill.NewManager(spill.Config{Dir: os.TempDir()}) })
	if spillErr != nil {
		panic("difftest: a spill Manager for -forcejoinspill or -memlimit: " + spillErr.Error())
	}
	if *memLimit > 0 {
		return query.Options{Spill: spillMgr, MemoryLimit: *memLimit, ForceJoinSpill: *forceJoinSpill, GroupBySortSpill: *groupBySortSpill, SortWorkers: *sortWorkers, SortByRanges: *sortByRanges}
	}
	return query.Options{Spill: spillMgr, ForceJoinSpill: true, SortWorkers: *sortWorkers, SortByRanges: *sortByRanges}
}

// TestJoinsSpilled: with -forcejoinspill, the join workload's joins did
// go through spill files (so TestJoins compared the grace hash join).
func TestJoinsSpilled(t *testing.T) {
	if !*forceJoinSpill {
		t.Skip("without -forcejoinspill")
	}
	q := joinEngine(t)
	before := spillMgr.Stats().FilesCreated
	r, err := q.Query(context.Background(), "SELECT count(*) FROM ja JOIN jb ON ja.k = jb.k LEFT JOIN jc ON jb.s = jc.s")
	if err != nil {
		t.Fatal(err)
	}
	for r.Next() {
	}
	err = r.Err()
	st := r.Stats()
	r.Release()
	if err != nil {
		t.Fatal(err)
	}
	if files := spillMgr.Stats().FilesCreated - before; files == 0 || st.Spill.Files == 0 {
		t.Errorf("the joins wrote %d spill files (Stats.Spill %v)", files, st.Spill)
	}
	if left := spillMgr.Stats().Files; left != 0 {
		t.Errorf("%d spill files left", left)
	}
}
