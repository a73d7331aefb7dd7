package store

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/cache"
)

// childDirEnv names the data directory of TestKillChild's process.
const childDirEnv = "QUIVER_STORE_KILL_DIR"

// TestKillChild is the process TestSIGKILL kills: it opens the directory,
// creates table "t" (1000 rows, seed 0) if absent, then appends 100-row
// batches (seeds 1, 2, … continuing from what the table holds), printing
// "acked N" after append N returned. It does nothing in a normal run.
func TestKillChild(t *testing.T) {
	dir := os.Getenv(childDirEnv)
	if dir == "" {
		t.Skip("run by TestSIGKILL")
	}
	c, err := cache.New(cache.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(dir, c, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p := s.Problems(); len(p) != 0 {
		t.Fatal(p)
	}
	mem := memory.DefaultAllocator
	info, err := c.Info("t")
	if err != nil {
		r := batches(mem, 0, 4, 250)
		_, err = s.Put(context.Background(), "t", r, cache.TableOptions{})
		r.Release()
		if err != nil {
			t.Fatal(err)
		}
		info, _ = c.Info("t")
	}
	out := bufio.NewWriter(os.Stdout)
	fmt.Fprintf(out, "ready %d\n", info.Rows)
	out.Flush()
	for n := (info.Rows-1000)/100 + 1; ; n++ {
		r := batches(mem, uint64(n), 1, 100)
		_, err := s.Append(context.Background(), "t", r, cache.TableOptions{})
		r.Release()
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(out, "acked %d\n", n)
		out.Flush()
	}
}

// TestSIGKILL kills a process appending to a table with SIGKILL at random
// moments (a fixed seed, 8 times), restarting it in the same directory
// each time; after each kill the table must hold the initial rows and a
// whole number of appends, at least every one acknowledged, exactly as a
// cache given the same appends holds them.
func TestSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(18, 18))
	mem := checked(t)
	ref := newCache(t, mem) // the same changes, in memory
	r := batches(mem, 0, 4, 250)
	if _, err := ref.Put(t.Context(), "t", r, cache.TableOptions{}); err != nil {
		t.Fatal(err)
	}
	r.Release()
	refAppends := 0
	for run := range 8 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestKillChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), childDirEnv+"="+dir)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := make(chan string, 1024)
		go func() {
			sc := bufio.NewScanner(stdout)
			for sc.Scan() {
				lines <- sc.Text()
			}
			close(lines)
		}()
		if l := <-lines; !strings.HasPrefix(l, "ready") {
			cmd.Process.Kill()
			t.Fatalf("run %d: child said %q", run, l)
		}
		time.Sleep(time.Duration(rng.IntN(40_000)) * time.Microsecond)
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		cmd.Wait()
		acked := 0
		for l := range lines {
			if n, ok := strings.CutPrefix(l, "acked "); ok {
				acked, _ = strconv.Atoi(n)
			}
		}

		s, c := open(t, dir, mem, nil)
		if p := s.Problems(); len(p) != 0 {
			t.Fatalf("run %d: reopen reports %v", run, p)
		}
		got := contentOf(t, c, "t")
		appends := int(got.rows-1000) / 100
		if got.rows < 1000 || (got.rows-1000)%100 != 0 || appends < acked {
			t.Fatalf("run %d: %d rows after %d acknowledged appends", run, got.rows, acked)
		}
		for ; refAppends < appends; refAppends++ {
			r := batches(mem, uint64(refAppends+1), 1, 100)
			if _, err := ref.Append(t.Context(), "t", r, cache.TableOptions{}); err != nil {
				t.Fatal(err)
			}
			r.Release()
		}
		if want := contentOf(t, ref, "t"); !got.sameRows(want) { // the child compacts
			t.Fatalf("run %d: table %v, want %v", run, got, want)
		}
		t.Logf("run %d: killed after append %d was acknowledged; the table holds appends 1..%d", run, acked, appends)
		s.Close()
	}
}
