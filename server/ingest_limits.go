package server

import (
	"context"
	"errors"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/quiverdb/quiver/batch"
	"github.com/quiverdb/quiver/internal/flightipc"
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
//   - one upload: Config.MaxIngestBytes, all its batches together; the
//     parameters bound to a prepared statement, which the statement
//     keeps, at most paramBytes(Config.MaxSQLBytes), as part of its SQL;
//   - ingests at once: Config.MaxIngests (the rest wait QueueTimeout),
//     of them at most Config.MaxIngestsPerClient from one client
//     (clientGroup), so that one client cannot hold every slot;
//     parameters, bounded as above, take no slot;
//   - all uploads together: what they hold decoded now (batches queued
//     in the cache's encoders, its codec sample, dictionaries: counted by
//     ingestMemory as buffers are allocated and freed), plus what the
//     cache holds, stays within the cache's budget.
//
// A refused upload fails with ResourceExhausted and stores nothing (the
// cache's puts are atomic). An upload whose client sends nothing for
// Config.UploadIdle fails too (upload_idle.go), freeing its slots.

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
	// max and maxName, when set, replace Config.MaxIngestBytes and its
	// flag as the bound of the whole upload (parameters: --max-sql-bytes).
	max     int64
	maxName string
}

// admit takes n more decoded bytes for the upload, or says which limit
// they would pass. The bytes are reserved until the batch is decoded
// (settle), when ingestMemory counts them, so uploads admitted at the
// same moment see each other's batches.
func (u *upload) admit(n int64) error {
	u.settle() // the previous batch is decoded by now
	s := u.s
	limit, name := s.cfg.MaxIngestBytes, "--max-ingest-bytes"
	if u.max > 0 {
		limit, name = u.max, u.maxName
	}
	if u.decoded+n > limit {
		return status.Errorf(codes.ResourceExhausted, "upload into %s: %d decoded bytes with this batch, past the limit of %d for one upload (%s)",
			u.what, u.decoded+n, limit, name)
	}
	for {
		reserved := s.ingestMem.reserved.Load()
		held, used, budget := s.ingestMem.held.Load()+reserved, s.cache.Used(), s.cache.Budget()
		if held+n+used > budget && s.cache.MakeRoom(held+n) {
			continue // restored or stored batches gave way (--data-dir)
		}
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

// admitIngest waits for an upload slot of the caller's own (at most
// MaxIngestsPerClient), then for one of the server's (MaxIngests), each
// at most QueueTimeout.
func (s *Server) admitIngest(ctx context.Context) (func(), error) {
	own, err := s.ingestPer.acquire(ctx, s, clientGroup(s.clientKey(ctx)))
	if err != nil {
		return nil, err
	}
	release, err := s.acquire(ctx, s.ingestSlots, "uploads in progress", "--max-ingests")
	if err != nil {
		own()
		return nil, err
	}
	return func() { release(); own() }, nil
}

// clientSlots are the upload slots of each client: n each.
type clientSlots struct {
	n  int
	mu sync.Mutex
	m  map[string]*clientSlot // by clientGroup; gone when no one holds or waits
}

type clientSlot struct {
	slots chan struct{}
	users int // holding or waiting
}

// acquire waits for one of client's slots, at most QueueTimeout.
func (cs *clientSlots) acquire(ctx context.Context, s *Server, client string) (func(), error) {
	cs.mu.Lock()
	c := cs.m[client]
	if c == nil {
		c = &clientSlot{slots: make(chan struct{}, cs.n)}
		cs.m[client] = c
	}
	c.users++
	cs.mu.Unlock()
	done := func() {
		cs.mu.Lock()
		if c.users--; c.users == 0 {
			delete(cs.m, client)
		}
		cs.mu.Unlock()
	}
	release, err := s.acquire(ctx, c.slots, "uploads in progress from this client ("+clientIP(client)+")",
		"--max-ingests-per-client, by default half of --max-ingests")
	if err != nil {
		done()
		return nil, err
	}
	return func() { release(); done() }, nil
}
