package server

import (
	"context"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// TestSessionTimeZone: a session sets its time zone with SET TimeZone
// (ExecuteUpdate) or the session option, its queries use it and label
// their instants with it, and other sessions keep the server's.
func TestSessionTimeZone(t *testing.T) {
	ts := startServer(t, Config{})
	ctx := context.Background()
	const q = `SELECT CAST(CAST(TIMESTAMP '2024-03-31 02:30' AS TIMESTAMPTZ) AS VARCHAR)`

	berlin := ts.client(t)
	// a session first: arrow-go's ExecuteUpdate returns before its cookie
	// middleware sees the Set-Cookie of a session made by the update
	setCodec(t, berlin, ctx, "auto")
	if _, err := berlin.ExecuteUpdate(ctx, `SET TimeZone = 'Europe/Berlin'`); err != nil {
		t.Fatalf("SET TimeZone: %v", err)
	}
	ny := ts.client(t)
	if res, err := setOptions(ctx, ny, map[string]any{OptionTimeZone: "America/New_York"}); err != nil || len(res.Errors) != 0 {
		t.Fatalf("SetSessionOptions: %v %v", res, err)
	}
	utc := ts.client(t)
	for _, tc := range []struct {
		name string
		cl   *flightsql.Client
		want string
	}{{"berlin", berlin, "2024-03-31 03:30:00+02"}, {"new york", ny, "2024-03-31 02:30:00-04"}, {"no session", utc, "2024-03-31 02:30:00+00"}} {
		got, err := fetch(t, tc.cl, ctx, q)
		if err != nil || strings.Join(got, " ") != tc.want {
			t.Errorf("%s: %v %v, want %s", tc.name, got, err, tc.want)
		}
	}

	// the session's instants come labelled with its zone
	info, err := berlin.Execute(ctx, `SELECT now()`)
	if err != nil {
		t.Fatal(err)
	}
	r, err := berlin.DoGet(ctx, info.Endpoint[0].Ticket)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Schema().Field(0).Type.String(); got != "timestamp[us, tz=Europe/Berlin]" {
		t.Errorf("now() in Berlin: %s", got)
	}
	for r.Next() {
	}
	r.Release()

	// GetSessionOptions says which zone
	var opts flight.GetSessionOptionsResult
	if err := doAction(ctx, ny, flight.GetSessionOptionsActionType, &flight.GetSessionOptionsRequest{}, &opts); err != nil {
		t.Fatal(err)
	}
	if v := opts.SessionOptions[OptionTimeZone]; v == nil || v.GetStringValue() != "America/New_York" {
		t.Errorf("GetSessionOptions: TimeZone %v", v)
	}

	// an unknown zone is refused by name
	res, err := setOptions(ctx, ny, map[string]any{OptionTimeZone: "Mars/Olympus"})
	if err != nil || res.Errors[OptionTimeZone] == nil {
		t.Errorf("SetSessionOptions(Mars/Olympus): %v %v, want an invalid value", res, err)
	}
	_, err = berlin.ExecuteUpdate(ctx, `SET TimeZone = 'Mars/Olympus'`)
	if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), `unknown time zone "Mars/Olympus"`) {
		t.Errorf("SET TimeZone = 'Mars/Olympus': %v", err)
	}
	// and the session keeps the zone it had
	if got, err := fetch(t, berlin, ctx, q); err != nil || strings.Join(got, " ") != "2024-03-31 03:30:00+02" {
		t.Errorf("after a refused SET: %v %v", got, err)
	}
}
