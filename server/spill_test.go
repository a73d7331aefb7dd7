package server

import (
	"context"
	"os"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// TestQueriesSpillPastTheirMemory: an ORDER BY and a GROUP BY that pass
// the per-query memory finish by spilling, leave nothing in the spill
// folder, and fail with ResourceExhausted when spilling is off or over
// quota.
func TestQueriesSpillPastTheirMemory(t *testing.T) {
	dir := t.TempDir()
	ts := startServer(t, Config{QueryMemory: 2 << 20, SpillDir: dir}, numbersTable(200000, 10000))
	cl := ts.client(t)
	ctx := context.Background()
	got, err := fetch(t, cl, ctx, `SELECT id, name FROM nums ORDER BY name DESC, id`)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 200000 || got[0] != "99999|row 99999" || got[len(got)-1] != "0|row 0" {
		t.Fatalf("ORDER BY: %d rows, first %q, last %q", len(got), got[0], got[len(got)-1])
	}
	got, err = fetch(t, cl, ctx, `SELECT id % 50000 AS k, count(*), sum(val) FROM nums GROUP BY id % 50000 ORDER BY k LIMIT 2`)
	if err != nil || len(got) != 2 || got[0] != "0|4|75000" {
		t.Fatalf("GROUP BY: %v %v", got, err)
	}
	if st := ts.spills.Stats(); st.Files != 0 || st.DiskBytes != 0 || st.BytesWritten == 0 {
		t.Errorf("spill stats after the queries: %+v", st)
	}
	entries, _ := os.ReadDir(ts.spills.Dir())
	if len(entries) != 0 {
		t.Errorf("files left in the spill folder: %v", entries)
	}

	off := startServer(t, Config{QueryMemory: 2 << 20, NoSpill: true}, numbersTable(200000, 10000))
	_, err = fetch(t, off.client(t), ctx, `SELECT id, name FROM nums ORDER BY name`)
	if status.Code(err) != codes.ResourceExhausted {
		t.Errorf("without spilling: %v", err)
	}

	small := startServer(t, Config{QueryMemory: 2 << 20, SpillDir: dir, SpillQuota: 64 << 10}, numbersTable(200000, 10000))
	_, err = fetch(t, small.client(t), ctx, `SELECT id, name FROM nums ORDER BY name`)
	if status.Code(err) != codes.ResourceExhausted || !strings.Contains(err.Error(), "quota") {
		t.Errorf("over the spill quota: %v", err)
	}
}
