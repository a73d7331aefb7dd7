package bench

// Lead's local harness, never committed. ZZSF=1 go test ./bench -run TestZZ -v -timeout 60m
// env: ZZSFV scale (default 1), ZZQ "8,5" queries, ZZRUNS n, ZZPROF file (cpu profile over the timed runs),
// ZZSQL arbitrary SQL instead, ZZAN=1 print EXPLAIN ANALYZE.

import (
	"runtime/metrics"
	"syscall"
	"runtime"
	"context"
	"fmt"
	"os"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/quiverdb/quiver/datagen/tpch"
	engine "github.com/quiverdb/quiver/query"
)

func TestZZ(t *testing.T) {
	if os.Getenv("ZZSF") == "" {
		t.Skip()
	}
	sf := 1.0
	if v := os.Getenv("ZZSFV"); v != "" {
		sf, _ = strconv.ParseFloat(v, 64)
	}
	ctx := context.Background()
	c, _, err := loadTPCH(ctx, sf, 2, t.Logf, tpch.Tables...)
	if err != nil {
		t.Fatal(err)
	}
	e := engine.New(c, engine.Options{ScanConcurrency: 2})
	runs := 5
	if v := os.Getenv("ZZRUNS"); v != "" {
		runs, _ = strconv.Atoi(v)
	}
	var sqls []string
	var names []string
	if s := os.Getenv("ZZSQL"); s != "" {
		sqls, names = []string{s}, []string{"sql"}
	} else {
		for _, q := range strings.Split(os.Getenv("ZZQ"), ",") {
			n, _ := strconv.Atoi(q)
			sqls = append(sqls, tpch.Query(n))
			names = append(names, "Q"+q)
		}
	}
	run := func(sql string) {
		r, err := e.Query(ctx, sql)
		if err != nil {
			t.Fatal(err)
		}
		for r.Next() {
		}
		if r.Err() != nil {
			t.Fatal(r.Err())
		}
		r.Release()
	}
	for i, sql := range sqls {
		run(sql)
		if os.Getenv("ZZAN") != "" {
			r, err := e.Query(ctx, "EXPLAIN ANALYZE "+sql)
			if err != nil {
				t.Fatal(err)
			}
			var sb strings.Builder
			for r.Next() {
				rec := r.RecordBatch()
				for j := 0; j < int(rec.NumRows()); j++ {
					sb.WriteString(rec.Column(0).ValueStr(j) + "\n")
				}
			}
			r.Release()
			fmt.Println(sb.String())
		}
		if p := os.Getenv("ZZMPROF"); p != "" {
			runtime.GC()
			f, _ := os.Create(p + ".base." + names[i])
			pprof.Lookup("allocs").WriteTo(f, 0)
			f.Close()
			defer func(n string) {
				runtime.GC()
				f, _ := os.Create(p + "." + n)
				pprof.Lookup("allocs").WriteTo(f, 0)
				f.Close()
			}(names[i])
		}
		if p := os.Getenv("ZZPROF"); p != "" {
			f, _ := os.Create(p + "." + names[i])
			pprof.StartCPUProfile(f)
		}
		var ms []float64
		for range runs {
			if os.Getenv("ZZGC") != "" {
				runtime.GC()
			}
			if os.Getenv("ZZRU") != "" {
				fmt.Printf("  before: %s\n", memLine())
			}
			var ru0, ru1 syscall.Rusage
			syscall.Getrusage(0, &ru0)
			st := time.Now()
			run(sql)
			ms = append(ms, float64(time.Since(st).Microseconds())/1000)
			syscall.Getrusage(0, &ru1)
			if os.Getenv("ZZRU") != "" {
				fmt.Printf("  %.1f ms: minflt %d utime %d ms stime %d ms\n", ms[len(ms)-1], ru1.Minflt-ru0.Minflt, (ru1.Utime.Nano()-ru0.Utime.Nano())/1e6, (ru1.Stime.Nano()-ru0.Stime.Nano())/1e6)
			}
		}
		if os.Getenv("ZZPROF") != "" {
			pprof.StopCPUProfile()
		}
		fmt.Printf("%s: order %v\n", names[i], ms)
		sort.Float64s(ms)
		fmt.Printf("%s: min %.1f median %.1f ms %v\n", names[i], ms[0], ms[len(ms)/2], ms)
	}
}

func memLine() string {
	b, _ := os.ReadFile("/proc/self/status")
	rss := ""
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmRSS") || strings.HasPrefix(l, "VmHWM") {
			rss += strings.Join(strings.Fields(l), " ") + " "
		}
	}
	ss := []metrics.Sample{{Name: "/memory/classes/heap/released:bytes"}, {Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/free:bytes"}, {Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(ss)
	return fmt.Sprintf("%s released %d MB mapped %d MB free %d MB objects %d MB", rss, ss[0].Value.Uint64()>>20, ss[1].Value.Uint64()>>20, ss[2].Value.Uint64()>>20, ss[3].Value.Uint64()>>20)
}
