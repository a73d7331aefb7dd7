package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/quiverdb/quiver/spill"
)

// lockedBuffer is a log sink safe for the server's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestMemoryAndSpillMessagesNameTheServersSettings (issue 14 item 10):
// an ORDER BY past --query-memory with --no-spill names both flags (it
// said "give the engine a spill Manager"); a spill past its quota tells
// the client the sizes, and only the server's log the spill file's path.
func TestMemoryAndSpillMessagesNameTheServersSettings(t *testing.T) {
	ctx := context.Background()
	off := startServer(t, Config{QueryMemory: 2 << 20, NoSpill: true}, numbersTable(200000, 10000))
	_, err := fetch(t, off.client(t), ctx, `SELECT id, name FROM nums ORDER BY name`)
	if status.Code(err) != codes.ResourceExhausted {
		t.Errorf("without spilling: %v", err)
	}
	for _, want := range []string{"ORDER BY needs ", " more bytes beyond --query-memory (2097152 bytes;", "spilling is off (--no-spill)"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("without spilling: %v; want it to say %q", err, want)
		}
	}
	if err != nil && strings.Contains(err.Error(), "Manager") {
		t.Errorf("without spilling: %v names the engine's internals", err)
	}

	dir := t.TempDir()
	var log lockedBuffer
	small := startServer(t, Config{QueryMemory: 2 << 20, SpillDir: dir, SpillQuota: 64 << 10,
		Logger: slog.New(slog.NewTextHandler(&log, nil))}, numbersTable(200000, 10000))
	_, err = fetch(t, small.client(t), ctx, `SELECT id, name FROM nums ORDER BY name`)
	if status.Code(err) != codes.ResourceExhausted || !strings.Contains(err.Error(), "quota 65536 bytes") {
		t.Errorf("over the spill quota: %v", err)
	}
	if err != nil && strings.Contains(err.Error(), dir) {
		t.Errorf("the client is told the server's spill folder: %v", err)
	}
	if !strings.Contains(log.String(), "spill failed") || !strings.Contains(log.String(), dir) {
		t.Errorf("the server's log does not name the spill file:\n%s", log.String())
	}
}

// TestQueryStatusHidesTheSpillFolder: any query error naming a file in the
// spill folder (a damaged spill file, say) reaches the client with the
// folder cut out, its code kept, and the whole message in the log.
func TestQueryStatusHidesTheSpillFolder(t *testing.T) {
	var log lockedBuffer
	ts := startServer(t, Config{SpillDir: t.TempDir(), Logger: slog.New(slog.NewTextHandler(&log, nil))})
	dir := ts.spills.Dir()
	err := ts.queryStatus("SELECT 1", fmt.Errorf("ORDER BY: %w: file %s/orderby-1.arrows batch 3: checksum mismatch", spill.ErrCorrupt, dir))
	if status.Code(err) != codes.DataLoss || strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), "<spill folder>/orderby-1.arrows batch 3") {
		t.Errorf("client sees %v", err)
	}
	if !strings.Contains(log.String(), dir+"/orderby-1.arrows") {
		t.Errorf("log:\n%s", log.String())
	}
	if err := ts.queryStatus("SELECT 1", errors.New("other")); status.Code(err) != codes.Internal || err.Error() != "rpc error: code = Internal desc = other" {
		t.Errorf("an error not about spilling: %v", err)
	}
}
