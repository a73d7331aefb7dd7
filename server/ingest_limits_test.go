package server

import (
	"context"
	"errors"
	"io"
	"math"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	pb "github.com/apache/arrow-go/v18/arrow/flight/gen/flight"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/quiverdb/quiver/batch"
	"github.com/quiverdb/quiver/codec"
)

// zeroMessages encodes rows zero int64s (column z) as a zstd IPC schema
// message and one record batch message: 8×rows bytes decoded, a few KB
// sent, the shape of a decompression bomb.
func zeroMessages(t *testing.T, rows int) (schema, rec batch.Message) {
	t.Helper()
	mem := memory.NewGoAllocator()
	s := arrow.NewSchema([]arrow.Field{{Name: "z", Type: arrow.PrimitiveTypes.Int64}}, nil)
	b := array.NewInt64Builder(mem)
	b.AppendValues(make([]int64, rows), nil)
	col := b.NewArray()
	b.Release()
	r := array.NewRecordBatch(s, []arrow.Array{col}, int64(rows))
	col.Release()
	defer r.Release()
	enc, err := batch.NewEncoder(s, batch.WriteOptions{Codec: codec.SettingZstd})
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Release()
	msgs, err := enc.Encode(r)
	if err != nil || len(msgs) != 1 {
		t.Fatalf("%d messages, %v", len(msgs), err)
	}
	sm := enc.SchemaMessage()
	copyMsg := func(m batch.Message) batch.Message {
		return batch.Message{Meta: append([]byte(nil), m.Meta...), Body: append([]byte(nil), m.Body...)}
	}
	return copyMsg(sm), copyMsg(msgs[0])
}

// ingestCmd is a descriptor for bulk ingest into table: create it, or
// append to it.
func ingestCmd(t *testing.T, table string) *flight.FlightDescriptor {
	t.Helper()
	cmd, err := anypb.New(&pb.CommandStatementIngest{Table: table, TableDefinitionOptions: &pb.CommandStatementIngest_TableDefinitionOptions{
		IfNotExist: pb.CommandStatementIngest_TableDefinitionOptions_TABLE_NOT_EXIST_OPTION_CREATE,
		IfExists:   pb.CommandStatementIngest_TableDefinitionOptions_TABLE_EXISTS_OPTION_APPEND,
	}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := proto.Marshal(cmd)
	if err != nil {
		t.Fatal(err)
	}
	return &flight.FlightDescriptor{Type: flight.DescriptorCMD, Cmd: b}
}

// openUpload starts a DoPut into table and sends the schema message.
func openUpload(t *testing.T, ctx context.Context, cl *flightsql.Client, table string, schema batch.Message) flight.FlightService_DoPutClient {
	t.Helper()
	st, err := cl.Client.DoPut(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Send(&flight.FlightData{FlightDescriptor: ingestCmd(t, table), DataHeader: schema.Meta}); err != nil {
		t.Fatal(err)
	}
	return st
}

// finishUpload ends the upload and returns the server's verdict.
func finishUpload(st flight.FlightService_DoPutClient) error {
	st.CloseSend()
	for {
		if _, err := st.Recv(); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// sendUpload sends rec n times into table.
func sendUpload(t *testing.T, cl *flightsql.Client, table string, schema, rec batch.Message, n int) error {
	t.Helper()
	st := openUpload(t, context.Background(), cl, table, schema)
	for range n {
		if err := st.Send(&flight.FlightData{DataHeader: rec.Meta, DataBody: rec.Body}); err != nil {
			break // the server refused; Recv says why
		}
	}
	return finishUpload(st)
}

// heapPeak samples the heap until stop is called and returns the most it
// held above what it held at the start, after a collection.
func heapPeak() (stop func() uint64) {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	var peak atomic.Uint64
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		for {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > base && ms.HeapAlloc-base > peak.Load() {
				peak.Store(ms.HeapAlloc - base)
			}
			select {
			case <-done:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	return func() uint64 {
		close(done)
		<-finished
		return peak.Load()
	}
}

// TestIngestBombIsRefused: 20 zstd messages of a few KB that each decode
// to 64 MiB of zeros are refused at the first, before it is decoded; the
// server's heap stays far below one such batch, and no table is made.
func TestIngestBombIsRefused(t *testing.T) {
	ts := startServerBudget(t, Config{}, 32<<20)
	cl := ts.client(t)
	schema, bomb := zeroMessages(t, 8<<20)
	if len(bomb.Body) > 64<<10 {
		t.Fatalf("the bomb is %d bytes", len(bomb.Body))
	}
	stop := heapPeak()
	err := sendUpload(t, cl, "bomb", schema, bomb, 20)
	peak := stop()
	if status.Code(err) != codes.ResourceExhausted || !strings.Contains(err.Error(), `table "bomb"`) || !strings.Contains(err.Error(), "67108864 decoded bytes") || !strings.Contains(err.Error(), "send smaller batches") {
		t.Errorf("got %v", err)
	}
	t.Logf("the heap grew by at most %d KiB during the refused upload", peak>>10)
	if peak > 24<<20 {
		t.Errorf("the heap grew by %d MiB during the refused upload", peak>>20)
	}
	if len(ts.cache.Tables()) != 0 {
		t.Errorf("tables after a refused upload: %v", ts.cache.Tables())
	}
}

// TestIngestCountsAgainstTheBudget: what an upload decodes counts
// against the cache budget as it arrives, though it would compress to
// almost nothing: a 12 MiB batch (within the per-batch limits) does not
// go into an 8 MiB budget, and the table it appends to is unchanged.
func TestIngestCountsAgainstTheBudget(t *testing.T) {
	ts := startServerBudget(t, Config{}, 8<<20)
	cl := ts.client(t)
	schema, small := zeroMessages(t, 10)
	if err := sendUpload(t, cl, "t", schema, small, 1); err != nil {
		t.Fatal(err)
	}
	_, big := zeroMessages(t, 3<<19)
	err := sendUpload(t, cl, "t", schema, big, 1)
	if status.Code(err) != codes.ResourceExhausted || !strings.Contains(err.Error(), `table "t"`) || !strings.Contains(err.Error(), "12582912 decoded bytes") ||
		!strings.Contains(err.Error(), "cache budget of 8388608 bytes (--budget)") {
		t.Errorf("got %v", err)
	}
	if info, err := ts.cache.Info("t"); err != nil || info.Rows != 10 {
		t.Errorf("the table after a refused append: %+v, %v", info, err)
	}
	if n, r := ts.ingestMem.held.Load(), ts.ingestMem.reserved.Load(); n != 0 || r != 0 {
		t.Errorf("uploads hold %d bytes and reserve %d after they ended", n, r)
	}
}

// TestIngestMaxIngestBytes: one upload decodes at most MaxIngestBytes,
// all its batches together.
func TestIngestMaxIngestBytes(t *testing.T) {
	ts := startServerBudget(t, Config{MaxIngestBytes: 20 << 20}, 256<<20)
	cl := ts.client(t)
	schema, rec := zeroMessages(t, 1<<20) // 8 MiB decoded
	err := sendUpload(t, cl, "t", schema, rec, 4)
	if status.Code(err) != codes.ResourceExhausted || !strings.Contains(err.Error(), `table "t"`) ||
		!strings.Contains(err.Error(), "25165824 decoded bytes with this batch, past the limit of 20971520 for one upload (--max-ingest-bytes)") {
		t.Errorf("got %v", err)
	}
	if len(ts.cache.Tables()) != 0 {
		t.Errorf("tables after a refused upload: %v", ts.cache.Tables())
	}
	if err := sendUpload(t, cl, "t", schema, rec, 2); err != nil {
		t.Errorf("16 MiB in a 20 MiB limit: %v", err)
	}
}

// TestIngestMaxIngests: uploads past MaxIngests wait for a slot, then
// fail naming the flag; queries do not wait for uploads.
func TestIngestMaxIngests(t *testing.T) {
	ts := startServer(t, Config{MaxIngests: 1, QueueTimeout: 300 * time.Millisecond}, numbersTable(10, 10))
	cl := ts.client(t)
	schema, rec := zeroMessages(t, 10)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	held := openUpload(t, ctx, cl, "a", schema) // sends nothing more: holds the slot
	waitFor(t, "the first upload to take the slot", func() bool { return len(ts.ingestSlots) == 1 })
	// From another client: the first client's own second upload would
	// meet its per-client limit first (TestIngestSlotsPerClient).
	err := sendUpload(t, ts.clientFrom(t, "127.0.0.2", false), "b", schema, rec, 1)
	if status.Code(err) != codes.ResourceExhausted || !strings.Contains(err.Error(), "1 uploads in progress") || !strings.Contains(err.Error(), "(--max-ingests)") {
		t.Errorf("second upload: %v", err)
	}
	if _, err := fetch(t, cl, context.Background(), `SELECT count(*) FROM nums`); err != nil {
		t.Errorf("a query while an upload holds the slot: %v", err)
	}
	if err := held.Send(&flight.FlightData{DataHeader: rec.Meta, DataBody: rec.Body}); err != nil {
		t.Fatal(err)
	}
	if err := finishUpload(held); err != nil {
		t.Errorf("first upload: %v", err)
	}
	if err := sendUpload(t, cl, "b", schema, rec, 1); err != nil {
		t.Errorf("after the first upload ended: %v", err)
	}
}

// TestIngestSlotsPerClient: one client cannot take every upload slot: its
// second upload at once waits for its own first, then fails naming the
// limit, while another client's upload takes the free slot.
func TestIngestSlotsPerClient(t *testing.T) {
	ts := startServer(t, Config{MaxIngests: 2, QueueTimeout: 300 * time.Millisecond})
	cl := ts.client(t)
	schema, rec := zeroMessages(t, 10)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	held := openUpload(t, ctx, cl, "a", schema)
	waitFor(t, "the first upload to take a slot", func() bool { return len(ts.ingestSlots) == 1 })
	err := sendUpload(t, cl, "a2", schema, rec, 1)
	if status.Code(err) != codes.ResourceExhausted || !strings.Contains(err.Error(), "1 uploads in progress from this client (127.0.0.1)") ||
		!strings.Contains(err.Error(), "--max-ingests-per-client") {
		t.Errorf("the client's second upload at once: %v", err)
	}
	if err := sendUpload(t, ts.clientFrom(t, "127.0.0.2", false), "b", schema, rec, 1); err != nil {
		t.Errorf("another client's upload: %v", err)
	}
	if err := held.Send(&flight.FlightData{DataHeader: rec.Meta, DataBody: rec.Body}); err != nil {
		t.Fatal(err)
	}
	if err := finishUpload(held); err != nil {
		t.Errorf("first upload: %v", err)
	}
	if got := ts.cache.Tables(); len(got) != 2 {
		t.Errorf("tables %v, want a and b", got)
	}
	ts.ingestPer.mu.Lock()
	if n := len(ts.ingestPer.m); n != 0 {
		t.Errorf("%d clients still counted after their uploads ended", n)
	}
	ts.ingestPer.mu.Unlock()
}

// TestUploadIdleFreesSlot: an upload whose client stops sending fails
// after Config.UploadIdle, naming it, leaves its table as it was and
// frees its slot, which another client's upload waiting for it then
// takes. Without the timeout the stalled upload held the only slot for
// as long as its connection lived.
func TestUploadIdleFreesSlot(t *testing.T) {
	const idle = 300 * time.Millisecond
	ts := startServer(t, Config{MaxIngests: 1, UploadIdle: idle, QueueTimeout: 10 * time.Second})
	cl := ts.client(t)
	schema, rec := zeroMessages(t, 10)
	if err := sendUpload(t, cl, "a", schema, rec, 1); err != nil {
		t.Fatal(err)
	}
	stalled := openUpload(t, context.Background(), cl, "a", schema)
	if err := stalled.Send(&flight.FlightData{DataHeader: rec.Meta, DataBody: rec.Body}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the stalled upload to take the slot", func() bool { return len(ts.ingestSlots) == 1 })
	start := time.Now()
	if err := sendUpload(t, ts.clientFrom(t, "127.0.0.2", false), "b", schema, rec, 1); err != nil {
		t.Errorf("another client's upload waiting for the slot: %v", err)
	}
	if waited := time.Since(start); waited > 5*time.Second {
		t.Errorf("the other upload waited %v for the slot; the idle timeout is %v", waited, idle)
	}
	err := finishUpload(stalled)
	if status.Code(err) != codes.DeadlineExceeded || !strings.Contains(err.Error(), "sent nothing for 300ms (--upload-idle)") {
		t.Errorf("the stalled upload: %v", err)
	}
	if info, err := ts.cache.Info("a"); err != nil || info.Rows != 10 {
		t.Errorf("the table after a stalled append: %+v, %v", info, err)
	}
	if info, err := ts.cache.Info("b"); err != nil || info.Rows != 10 {
		t.Errorf("the other client's table: %+v, %v", info, err)
	}
	waitFor(t, "the slots to be free", func() bool { return len(ts.ingestSlots) == 0 })
	if n, r := ts.ingestMem.held.Load(), ts.ingestMem.reserved.Load(); n != 0 || r != 0 {
		t.Errorf("uploads hold %d bytes and reserve %d after they ended", n, r)
	}
}

// TestUploadIdleParameters: parameters uploaded for a prepared statement
// are awaited at most UploadIdle too, and the error says so rather than
// calling the stream cut off.
func TestUploadIdleParameters(t *testing.T) {
	ts := startServer(t, Config{UploadIdle: 200 * time.Millisecond}, numbersTable(10, 10))
	cl := ts.client(t)
	ctx := context.Background()
	stmt, err := cl.Prepare(ctx, `SELECT count(*) FROM nums WHERE id > ?`)
	if err != nil {
		t.Fatal(err)
	}
	defer stmt.Close(ctx)
	desc, err := commandDescriptor(&pb.CommandPreparedStatementQuery{PreparedStatementHandle: stmt.Handle()})
	if err != nil {
		t.Fatal(err)
	}
	schema, _ := zeroMessages(t, 1)
	st, err := cl.Client.DoPut(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Send(&flight.FlightData{FlightDescriptor: desc, DataHeader: schema.Meta}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Recv(); status.Code(err) != codes.DeadlineExceeded || !strings.Contains(err.Error(), "(--upload-idle)") {
		t.Errorf("stalled parameters: %v", err)
	}
}

// TestMemoryLimitSaturates: --query-memory at the int64 maximum (how a
// user says "unlimited") times the query slots wrapped around to a limit
// smaller than the cache budget, and the collector then ran all the time.
func TestMemoryLimitSaturates(t *testing.T) {
	ts := startServer(t, Config{QueryMemory: math.MaxInt64, MaxQueries: 4})
	if got := ts.MemoryLimit(); got != math.MaxInt64 {
		t.Errorf("MemoryLimit = %d, want the maximum", got)
	}
	ts2 := startServer(t, Config{QueryMemory: 1 << 20, MaxQueries: 4})
	if got, want := ts2.MemoryLimit(), ts2.cache.Budget()+4<<20+memoryHeadroom; got != want {
		t.Errorf("MemoryLimit = %d, want %d", got, want)
	}
}
