package store

import (
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/quiverdb/quiver/cache"
)

// gatedReader closes reached, then waits for gate, before its first
// batch.
type gatedReader struct {
	array.RecordReader
	reached chan<- struct{}
	gate    <-chan struct{}
	once    sync.Once
}

func (r *gatedReader) Next() bool {
	r.once.Do(func() {
		close(r.reached)
		<-r.gate
	})
	return r.RecordReader.Next()
}

// TestPutRacingACreate: two Puts create the same table at once; the one
// that commits second began streaming its chunk file under an id the
// table did not get, so it writes it again under the table's: both
// succeed, the second's rows are the table's, no file is left behind,
// and a reopen agrees.
func TestPutRacingACreate(t *testing.T) {
	mem := checked(t)
	dir := t.TempDir()
	s, c := open(t, dir, mem, nil)
	gate, reached := make(chan struct{}), make(chan struct{})
	inner := batches(mem, 2, 3, 100)
	defer inner.Release()
	done := make(chan error, 1)
	go func() {
		_, err := s.Put(t.Context(), "n", &gatedReader{RecordReader: inner, reached: reached, gate: gate}, cache.TableOptions{})
		done <- err
	}()
	// The gated Put has reserved its id and opened its stream when its
	// reader is first read; this one creates the table meanwhile.
	<-reached
	put(t, s, "n", batches(mem, 1, 1, 10))
	close(gate)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	want := contentOf(t, c, "n")
	if want.rows != 300 {
		t.Fatalf("table %v, want the second Put's 300 rows", want)
	}
	if n := chunkFiles(t, dir); n != 1 {
		t.Fatalf("%d chunk files, want 1: %v", n, files(t, dir))
	}
	s.Close()
	_, c2 := open(t, dir, mem, nil)
	if got := contentOf(t, c2, "n"); got != want {
		t.Fatalf("after reopen %v, want %v", got, want)
	}
}
