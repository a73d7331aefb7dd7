//go:build duckdb

package difftest

import (
	"flag"
	"os"
	"sync"

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

var (
	spillOnce sync.Once
	spillMgr  *spill.Manager
	spillErr  error
)

// engineOptions are the options of the engines compared with DuckDB:
// the defaults, or with -forcejoinspill a spill Manager under the
// temporary folder (removed when the process ends; NewManager removes
// the folders of processes that are gone) and ForceJoinSpill.
func engineOptions() query.Options {
	if !*forceJoinSpill {
		return query.Options{}
	}
	spillOnce.Do(func() { spillMgr, spillErr = spill.NewManager(spill.Config{Dir: os.TempDir()}) })
	if spillErr != nil {
		panic("difftest: a spill Manager for -forcejoinspill: " + spillErr.Error())
	}
	return query.Options{Spill: spillMgr, ForceJoinSpill: true}
}
