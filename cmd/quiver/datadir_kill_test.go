package main

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// serveChildEnv holds the --data-dir of TestServeChild's process.
const serveChildEnv = "QUIVER_SERVE_KILL_DIR"

// TestServeChild is the server TestServeSIGKILL kills: quiver serve
// --data-dir in its own process. It does nothing in a normal run.
func TestServeChild(t *testing.T) {
	dir := os.Getenv(serveChildEnv)
	if dir == "" {
		t.Skip("run by TestServeSIGKILL")
	}
	os.Exit(run(context.Background(), []string{"serve", "--listen", "127.0.0.1:0", "--metrics", "", "--data-dir", dir}, os.Stdout, os.Stderr))
}

// TestServeSIGKILL: a client appends 100-row batches to a table over
// Flight SQL while the server, in its own process, is killed with SIGKILL
// at random moments (a fixed seed, 5 times) and restarted on the same
// --data-dir; every append the server acknowledged is there after the
// restart, and the table holds whole appends only.
func TestServeSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(18, 5))
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	schema := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64}}, nil)
	batch := func(n int64) array.RecordReader {
		b := array.NewInt64Builder(mem)
		defer b.Release()
		for i := range int64(100) {
			b.Append(n*100 + i)
		}
		col := b.NewArray()
		defer col.Release()
		rec := array.NewRecordBatch(schema, []arrow.Array{col}, 100)
		defer rec.Release()
		r, _ := array.NewRecordReader(schema, []arrow.RecordBatch{rec})
		return r
	}
	var acked int64 // appends acknowledged, in all runs
	connect := regexp.MustCompile(`connect: grpc://(\S+)`)
	const kills = 5
	for run := range kills + 1 { // the last run only checks
		cmd := exec.Command(os.Args[0], "-test.run=^TestServeChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), serveChildEnv+"="+dir)
		stdout, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(stdout)
		addr := ""
		for addr == "" && sc.Scan() {
			if m := connect.FindStringSubmatch(sc.Text()); m != nil {
				addr = m[1]
			}
		}
		go func() {
			for sc.Scan() {
			}
		}()
		if addr == "" {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("run %d: the server did not start", run)
		}
		cl := flightClient(t, addr)
		// What the restart must hold: every acknowledged append, and at
		// most one more (in flight when the last run was killed).
		if run > 0 {
			got, err := firstRow(t, cl, "SELECT count(*), sum(k) FROM t")
			if err == nil && len(got) != 2 {
				err = fmt.Errorf("no row")
			}
			var n int64
			if err == nil {
				n = parseInt(got[0])
			}
			if err != nil || n < acked*100 || n > (acked+1)*100 || n%100 != 0 || got[1] != strconv.FormatInt(n*(n-1)/2, 10) {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("run %d: count and sum %v after %d acknowledged appends (%v)", run, got, acked, err)
			}
			acked = n / 100
		}
		if run == kills {
			cmd.Process.Kill()
			cmd.Wait()
			break
		}
		kill := time.AfterFunc(time.Duration(20+rng.IntN(200))*time.Millisecond, func() { cmd.Process.Signal(syscall.SIGKILL) })
		for {
			r := batch(acked)
			opts := &flightsql.ExecuteIngestOpts{Table: "t", TableDefinitionOptions: &flightsql.TableDefinitionOptions{
				IfNotExist: flightsql.TableDefinitionOptionsTableNotExistOptionCreate, IfExists: flightsql.TableDefinitionOptionsTableExistsOptionAppend}}
			_, err := cl.ExecuteIngest(context.Background(), r, opts)
			r.Release()
			if err != nil {
				break // killed
			}
			acked++
		}
		kill.Stop()
		cmd.Wait()
		t.Logf("run %d: killed after %d acknowledged appends in all", run, acked)
	}
	if acked == 0 {
		t.Fatalf("no append was acknowledged")
	}
}

// firstRow runs sql and returns its first row's values as text.
func firstRow(t *testing.T, cl *flightsql.Client, sql string) ([]string, error) {
	t.Helper()
	ctx := context.Background()
	info, err := cl.Execute(ctx, sql)
	if err != nil {
		return nil, err
	}
	r, err := cl.DoGet(ctx, info.Endpoint[0].Ticket)
	if err != nil {
		return nil, err
	}
	defer r.Release()
	for r.Next() {
		rec := r.RecordBatch()
		if rec.NumRows() == 0 {
			continue
		}
		row := make([]string, rec.NumCols())
		for i, col := range rec.Columns() {
			row[i] = col.ValueStr(0)
		}
		return row, nil
	}
	return nil, r.Err()
}

func parseInt(s string) int64 {
	n, _ := strconv.ParseInt(s, 10, 64)
	return n
}
