package server

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// longSQL is a query of about n bytes (most of it a comment).
func longSQL(n int) string {
	const q = "SELECT count(*) FROM nums /*"
	return q + strings.Repeat("x", n-len(q)-2) + "*/"
}

// TestLongSQLFitsTheClientsLimit: a FlightInfo carries the SQL once, so
// 2.5 MiB of SQL reaches a client with gRPC's default 4 MiB receive limit
// (it carried it twice, in the descriptor and the ticket, and failed).
func TestLongSQLFitsTheClientsLimit(t *testing.T) {
	ts := startServer(t, Config{MaxSQLBytes: 4 << 20}, numbersTable(10, 10))
	cl := ts.client(t)
	got, err := fetch(t, cl, context.Background(), longSQL(5<<19))
	if err != nil || fmt.Sprint(got) != "[10]" {
		t.Fatalf("2.5 MiB of SQL: %v %v", got, err)
	}
}

// TestOverlongSQLIsRefused: SQL past Config.MaxSQLBytes fails with an
// error naming the limit and the flag, whichever call carries it.
func TestOverlongSQLIsRefused(t *testing.T) {
	ts := startServer(t, Config{}, numbersTable(10, 10))
	cl := ts.client(t)
	ctx := context.Background()
	sql := longSQL(DefaultMaxSQLBytes + 1)
	check := func(what string, err error) {
		t.Helper()
		if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "--max-sql-bytes") ||
			!strings.Contains(err.Error(), fmt.Sprint(DefaultMaxSQLBytes)) {
			t.Errorf("%s: %v", what, err)
		}
	}
	_, err := cl.Execute(ctx, sql)
	check("Execute", err)
	_, err = cl.Prepare(ctx, sql)
	check("Prepare", err)
	_, err = cl.GetExecuteSchema(ctx, sql)
	check("GetSchema", err)
	if got, err := fetch(t, cl, ctx, longSQL(DefaultMaxSQLBytes)); err != nil || fmt.Sprint(got) != "[10]" {
		t.Errorf("SQL at the limit: %v %v", got, err)
	}
}
