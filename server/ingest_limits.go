package server

import (
	"context"
	"errors"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/quiverdb/quiver/batch"
	"github.com/quiverdb/quiver/internal/flightipc"
	"github.com/quiverdb/quiver/query"
)

// Uploads (bulk ingest, prepared-statement parameters) are where a
// client makes the server decode bytes of its choosing, and compressed
// bytes can claim far more than they weigh: one 28 KB zstd message is
// 256 MiB of zero int64s. What uploads decode is bounded four ways, each
// checked from the lengths a batch claims before anything is allocated
// for it (batch.ReadOptions.Admit):
//
//   - one batch: uploadLimits, at most uploadRatio times its body or
//     uploadFloor, whichever is more, and 1 GiB;
//   - one upload: Config.MaxIngestBytes, all its batches together;
//   - uploads at once: Config.MaxIngests (the rest wait QueueTimeout);
//   - all uploads together: what they hold decoded now (batches queued
//     in the cache's encoders, its codec sample, dictionaries: counted by
//     ingestMemory as buffers are allocated and freed), plus what the
//     cache holds, stays within the cache's budget.
//
// A refused upload fails with ResourceExhausted and stores nothing (the
// cache's puts are atomic).

// Per-batch upload limits. A batch of real data compresses a few times,
// rarely past 64×; 16 MiB decoded is always allowed, so small batches of
// very compressible data (sorted keys, constants) still load.
const (
	uploadRatio = 64
	uploadFloor = 16 << 20
	uploadMax   = 1 << 30
)

var uploadLimits = batch.Limits{MaxUncompressed: uploadMax, MaxRatio: uploadRatio, RatioFloor: uploadFloor}

// uploadReader opens the IPC stream a client sends, decoding into the
// counted ingest memory, every batch admitted by up.
func (s *Server) uploadReader(rd *flightipc.Reader, up *upload) (*batch.StreamReader, error) {
	return batch.NewStreamReader(rd, batch.ReadOptions{Alloc: s.ingestMem, Limits: uploadLimits, Admit: up.admit})
}

// upload is one upload's account.
type upload struct {
	s       *Server
	what    string // `table "t"`, "parameters"
	decoded int64  // bytes its batches claimed, admitted so far
	pending int64  // admitted, reserved until the batch is decoded
}

// admit takes n more decoded bytes for the upload, or says which limit
// they would pass. The bytes are reserved until the batch is decoded
// (settle), when ingestMemory counts them, so uploads admitted at the
// same moment see each other's batches.
func (u *upload) admit(n int64) error {
	u.settle() // the previous batch is decoded by now
	s := u.s
	if u.decoded+n > s.cfg.MaxIngestBytes {
		return status.Errorf(codes.ResourceExhausted, "upload into %s: %d decoded bytes with this batch, past the limit of %d for one upload (--max-ingest-bytes)",
			u.what, u.decoded+n, s.cfg.MaxIngestBytes)
	}
	for {
		reserved := s.ingestMem.reserved.Load()
		held, used, budget := s.ingestMem.held.Load()+reserved, s.cache.Used(), s.cache.Budget()
		if held+n+used > budget {
			return status.Errorf(codes.ResourceExhausted, "upload into %s: a batch of %d decoded bytes does not fit: uploads in progress hold %d decoded bytes and the cache %d, of the cache budget of %d bytes (--budget)",
				u.what, n, held, used, budget)
		}
		if s.ingestMem.reserved.CompareAndSwap(reserved, reserved+n) {
			break
		}
	}
	u.pending += n
	u.decoded += n
	return nil
}

// settle gives back the reservation of a batch now decoded (or failed).
func (u *upload) settle() {
	if u.pending != 0 {
		u.s.ingestMem.reserved.Add(-u.pending)
		u.pending = 0
	}
}

// next is sr.Next, settling the upload's reservation after each batch.
func (u *upload) next(sr *batch.StreamReader) func() (arrow.RecordBatch, error) {
	return func() (arrow.RecordBatch, error) {
		rec, err := sr.Next()
		u.settle()
		return rec, err
	}
}

// uploadError adds to an error of the per-batch limits what they are.
func uploadError(what string, err error) error {
	if errors.Is(err, batch.ErrLimit) {
		return status.Errorf(codes.ResourceExhausted, "upload into %s: %v (an uploaded batch may decode to %d× its body or %d MiB, whichever is more, and at most %d MiB: send smaller batches)",
			what, err, uploadRatio, uploadFloor>>20, uploadMax>>20)
	}
	return err
}

// admitIngest waits for an upload slot, at most QueueTimeout.
func (s *Server) admitIngest(ctx context.Context) (func(), error) {
	return s.acquire(ctx, s.ingestSlots, "uploads in progress", "--max-ingests")
}

// ingestMemory is the allocator uploads decode into: the server's,
// counting the bytes uploads hold now. Buffers are known by their first
// byte, so a Free of memory it did not hand out changes nothing.
type ingestMemory struct {
	memory.Allocator
	held     atomic.Int64
	reserved atomic.Int64 // admitted batches not yet decoded (upload.admit)
	live     sync.Map     // *byte (first byte) -> int (size)
}

func (m *ingestMemory) Allocate(size int) []byte {
	b := m.Allocator.Allocate(size)
	m.track(b)
	return b
}

func (m *ingestMemory) Reallocate(size int, b []byte) []byte {
	m.untrack(b)
	nb := m.Allocator.Reallocate(size, b)
	m.track(nb)
	return nb
}

func (m *ingestMemory) Free(b []byte) {
	m.untrack(b)
	m.Allocator.Free(b)
}

func (m *ingestMemory) track(b []byte) {
	if cap(b) == 0 {
		return
	}
	m.live.Store(&b[:1][0], len(b))
	m.held.Add(int64(len(b)))
}

func (m *ingestMemory) untrack(b []byte) {
	if cap(b) == 0 {
		return
	}
	if n, ok := m.live.LoadAndDelete(&b[:1][0]); ok {
		m.held.Add(-int64(n.(int)))
	}
}

// returnAfter is the decoded size of an upload after which the server
// hands freed memory back to the OS: the Go runtime keeps freed heap for
// reuse, and RSS stayed at 4.3 GB with a 311 MB live heap after a
// bomb's batches were dropped.
const returnAfter = 64 << 20

var returningMemory atomic.Bool

// returnMemory runs debug.FreeOSMemory after an upload that decoded at
// least returnAfter bytes (it had ended, stored or refused): off the
// caller's goroutine, one at a time.
func returnMemory(decoded int64) {
	if decoded < returnAfter || !returningMemory.CompareAndSwap(false, true) {
		return
	}
	go func() {
		defer returningMemory.Store(false)
		debug.FreeOSMemory()
	}()
}

// memoryHeadroom is what the soft memory limit allows past the budgets
// it adds up: gRPC buffers, result encoding, sessions, the runtime.
const memoryHeadroom = 512 << 20

// MemoryLimit is the soft memory limit the server's budgets add up to:
// the cache budget (which uploads in progress count against too),
// QueryMemory for each of MaxQueries, and headroom. quiver serve gives it
// to debug.SetMemoryLimit unless GOMEMLIMIT is set, so the garbage
// collector works harder, and returns memory to the OS, as the process
// nears what its settings allow rather than at twice the live heap.
func (s *Server) MemoryLimit() int64 {
	qm := s.cfg.QueryMemory
	if qm == 0 {
		qm = query.DefaultMemoryLimit
	}
	return s.cache.Budget() + qm*int64(s.cfg.MaxQueries) + memoryHeadroom
}
