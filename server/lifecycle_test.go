package server

import (
	"context"
	"crypto/tls"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/quiverdb/quiver/internal/testcert"
)

const testToken = "s3cret-token-0123456789"

func TestBearerTokens(t *testing.T) {
	ts := startServer(t, Config{Tokens: []string{"another-token-abcdefgh", testToken}}, numbersTable(10, 10))
	cl := ts.client(t)
	for _, tc := range []struct {
		name, header string
		code         codes.Code
	}{
		{"no token", "", codes.Unauthenticated},
		{"wrong token", "Bearer wrong-token-0123456789", codes.Unauthenticated},
		{"not bearer", "Basic " + testToken, codes.Unauthenticated},
		{"right token", "Bearer " + testToken, codes.OK},
		{"scheme in lower case", "bearer " + testToken, codes.OK},
	} {
		ctx := context.Background()
		if tc.header != "" {
			ctx = metadata.AppendToOutgoingContext(ctx, "authorization", tc.header)
		}
		got, err := fetch(t, cl, ctx, `SELECT count(*) FROM nums`)
		if status.Code(err) != tc.code {
			t.Errorf("%s: got %v, want %v", tc.name, err, tc.code)
		}
		if tc.code == codes.OK && (len(got) != 1 || got[0] != "10") {
			t.Errorf("%s: %v", tc.name, got)
		}
	}
}

func TestConfigRefusesShortTokensAndHalfTLS(t *testing.T) {
	for name, cfg := range map[string]Config{
		"short token": {Tokens: []string{"short"}},
		"cert only":   {TLSCert: "c.pem"},
		"bad codec":   {ResultCodec: "gzip"},
		"tiny cap":    {MaxMessageBytes: 1000},
		"bad listen":  {Listen: "nope"},
		"ticket TTL":  {TicketTTL: -time.Second},
		"SQL bytes":   {MaxSQLBytes: -1},
		"per client":  {MaxSessionsPerClient: -1},
	} {
		if err := cfg.Validate(); err == nil {
			t.Errorf("%s: valid", name)
		}
	}
}

// TestListenRefusesTheNetworkWithoutTLSAndTokens: a server reachable from
// other machines needs both, or an explicit Insecure.
func TestListenRefusesTheNetworkWithoutTLSAndTokens(t *testing.T) {
	c := startServer(t, Config{}).cache
	s, err := New(Config{Listen: "0.0.0.0:0", Tokens: []string{testToken}}, c)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown(context.Background()) // removes its spill folder
	if err := s.Listen(); err == nil || !strings.Contains(err.Error(), "--insecure") {
		t.Fatalf("0.0.0.0 without TLS: %v", err)
	}
	s, err = New(Config{Listen: "0.0.0.0:0", Insecure: true}, c)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown(context.Background())
	if err := s.Listen(); err != nil {
		t.Fatalf("with Insecure: %v", err)
	}
	s.lis.Close()
}

func TestTLS(t *testing.T) {
	certFile, keyFile, pool := testcert.Write(t)
	ts := startServer(t, Config{Listen: "127.0.0.1:0", TLSCert: certFile, TLSKey: keyFile, Tokens: []string{testToken}}, numbersTable(10, 10))
	if !strings.HasPrefix(ts.URI(), "grpc+tls://") {
		t.Errorf("URI %s", ts.URI())
	}
	creds := credentials.NewTLS(&tls.Config{RootCAs: pool, ServerName: "localhost"})
	cl, err := flightsql.NewClient(ts.Addr().String(), nil, []flight.ClientMiddleware{flight.NewClientCookieMiddleware()}, grpc.WithTransportCredentials(creds))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx := metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer "+testToken)
	got, err := fetch(t, cl, ctx, `SELECT count(*) FROM nums`)
	if err != nil || len(got) != 1 || got[0] != "10" {
		t.Fatalf("over TLS: %v %v", got, err)
	}
	// A plaintext client gets nowhere.
	plain := ts.client(t)
	shortCtx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if _, err := fetch(t, plain, shortCtx, `SELECT count(*) FROM nums`); err == nil {
		t.Error("plaintext client answered by a TLS server")
	}
}

// TestClientDisconnectsMidStream: the server stops the query, frees what
// it held (the leak check at cleanup), and answers the next client.
func TestClientDisconnectsMidStream(t *testing.T) {
	ts := startServer(t, Config{MaxBatchRows: 1000}, numbersTable(200000, 10000))
	cl := ts.client(t)
	ctx, cancel := context.WithCancel(context.Background())
	info, err := cl.Execute(ctx, `SELECT id, name, val FROM nums`)
	if err != nil {
		t.Fatal(err)
	}
	r, err := cl.DoGet(ctx, info.Endpoint[0].Ticket)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Next() {
		t.Fatal(r.Err())
	}
	cancel()
	r.Release()
	waitFor(t, "the query to stop", func() bool { return ts.running.count() == 0 })
	got, err := fetch(t, cl, context.Background(), `SELECT count(*) FROM nums`)
	if err != nil || got[0] != "200000" {
		t.Fatalf("after a disconnect: %v %v", got, err)
	}
}

func TestCancelFlightInfo(t *testing.T) {
	ts := startServer(t, Config{MaxBatchRows: 100}, numbersTable(200000, 10000))
	cl := ts.client(t)
	ctx := context.Background()
	info, err := cl.Execute(ctx, `SELECT id, name FROM nums`)
	if err != nil {
		t.Fatal(err)
	}
	r, err := cl.DoGet(ctx, info.Endpoint[0].Ticket)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	if !r.Next() {
		t.Fatal(r.Err())
	}
	res, err := cl.CancelFlightInfo(ctx, &flight.CancelFlightInfoRequest{Info: info})
	if err != nil || res.Status != flight.CancelStatusCancelled {
		t.Fatalf("cancel: %v %v", res, err)
	}
	for r.Next() {
	}
	if status.Code(r.Err()) != codes.Canceled {
		t.Errorf("the stream ended with %v, want Canceled", r.Err())
	}
	res, err = cl.CancelFlightInfo(ctx, &flight.CancelFlightInfoRequest{Info: info})
	if err != nil || res.Status != flight.CancelStatusNotCancellable {
		t.Errorf("second cancel: %v %v", res, err)
	}
}

// TestGracefulShutdown lets a stream in flight finish and refuses new
// calls.
func TestGracefulShutdown(t *testing.T) {
	ts := startServer(t, Config{MaxBatchRows: 100}, numbersTable(50000, 10000))
	cl := ts.client(t)
	ctx := context.Background()
	info, err := cl.Execute(ctx, `SELECT id FROM nums`)
	if err != nil {
		t.Fatal(err)
	}
	r, err := cl.DoGet(ctx, info.Endpoint[0].Ticket)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	if !r.Next() {
		t.Fatal(r.Err())
	}
	rows := r.RecordBatch().NumRows()
	stopped := make(chan struct{})
	go func() {
		ts.Shutdown(context.Background())
		close(stopped)
	}()
	waitFor(t, "shutdown to begin", ts.closing.Load)
	for r.Next() {
		rows += r.RecordBatch().NumRows()
	}
	if r.Err() != nil || rows != 50000 {
		t.Fatalf("the stream in flight: %d rows, %v", rows, r.Err())
	}
	<-stopped
	if _, err := cl.Execute(ctx, `SELECT 1 FROM nums`); err == nil {
		t.Error("a call after shutdown succeeded")
	}
}

func TestShutdownCutsStreamsAfterTheGrace(t *testing.T) {
	ts := startServer(t, Config{MaxBatchRows: 100, ShutdownGrace: 200 * time.Millisecond}, numbersTable(200000, 10000))
	cl := ts.client(t)
	ctx := context.Background()
	info, _ := cl.Execute(ctx, `SELECT id, name FROM nums`)
	r, err := cl.DoGet(ctx, info.Endpoint[0].Ticket)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	r.Next() // then stall: the stream cannot finish
	start := time.Now()
	ts.Shutdown(context.Background())
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("shutdown took %v with a 200ms grace", d)
	}
}

func TestMetricsEndpoint(t *testing.T) {
	ts := startServer(t, Config{}, numbersTable(1000, 100))
	cl := ts.client(t)
	ctx := context.Background()
	setCodec(t, cl, ctx, "zstd:1")
	if _, err := fetch(t, cl, ctx, `SELECT id, name FROM nums`); err != nil {
		t.Fatal(err)
	}
	fetch(t, cl, ctx, `SELECT id / 0 FROM nums`)
	rec := httptest.NewRecorder()
	ts.Metrics().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body, _ := io.ReadAll(rec.Body)
	text := string(body)
	for _, want := range []string{
		"quiver_queries_total 2\n", "quiver_result_rows_total 1000\n", "quiver_query_errors_total 1\n",
		`quiver_query_errors_by_code_total{code="InvalidArgument"} 1`, "quiver_cache_tables 1\n", "# TYPE quiver_result_sent_bytes_total counter",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("metrics lack %q:\n%s", want, text)
		}
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestHandshake: clients that handshake before their first call get one
// empty reply (with a valid token), not a hang.
func TestHandshake(t *testing.T) {
	ts := startServer(t, Config{Tokens: []string{testToken}})
	cl := ts.client(t)
	for _, tc := range []struct {
		header string
		code   codes.Code
	}{{"Bearer " + testToken, codes.OK}, {"", codes.Unauthenticated}} {
		ctx := context.Background()
		if tc.header != "" {
			ctx = metadata.AppendToOutgoingContext(ctx, "authorization", tc.header)
		}
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		hs, err := cl.Client.Handshake(ctx)
		if err != nil {
			t.Fatal(err)
		}
		hs.Send(&flight.HandshakeRequest{})
		hs.CloseSend()
		_, err = hs.Recv()
		cancel()
		if status.Code(err) != tc.code {
			t.Errorf("handshake with %q: %v, want %v", tc.header, err, tc.code)
		}
	}
}
