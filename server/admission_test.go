package server

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// TestPlanningWaitsForASlot: with --max-queries 1 and a query streaming,
// planning another (GetFlightInfo, Prepare, GetSchema) waits for the slot
// like running it: plans ran past the limit when only DoGet was admitted.
func TestPlanningWaitsForASlot(t *testing.T) {
	ts := startServer(t, Config{MaxQueries: 1, QueueTimeout: 200 * time.Millisecond, MaxBatchRows: 100}, numbersTable(200000, 10000))
	ctx := context.Background()
	holder := ts.client(t)
	hctx, cancel := context.WithCancel(ctx)
	info, err := holder.Execute(hctx, `SELECT id, name FROM nums`)
	if err != nil {
		t.Fatal(err)
	}
	r, err := holder.DoGet(hctx, info.Endpoint[0].Ticket)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Next() { // then stall: the stream holds the one slot
		t.Fatal(r.Err())
	}

	cl := ts.client(t)
	busy := func(what string, err error) {
		t.Helper()
		if status.Code(err) != codes.ResourceExhausted || !strings.Contains(err.Error(), "busy") {
			t.Errorf("%s while the slot is held: %v, want ResourceExhausted (busy)", what, err)
		}
	}
	_, err = cl.Execute(ctx, `SELECT count(*) FROM nums`)
	busy("GetFlightInfo", err)
	_, err = cl.Prepare(ctx, `SELECT count(*) FROM nums`)
	busy("Prepare", err)
	_, err = cl.GetExecuteSchema(ctx, `SELECT count(*) FROM nums`)
	busy("GetSchema", err)

	cancel()
	r.Release()
	waitFor(t, "the stream to free its slot", func() bool { return ts.running.count() == 0 && len(ts.slots) == 0 })
	if got, err := fetch(t, cl, ctx, `SELECT count(*) FROM nums`); err != nil || fmt.Sprint(got) != "[200000]" {
		t.Fatalf("after the slot is free: %v %v", got, err)
	}
}
