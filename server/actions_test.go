package server

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// TestUnknownActionIsNamed: an unknown DoAction names the action and the
// ones quiver answers (arrow-go said "the defined request is invalid").
func TestUnknownActionIsNamed(t *testing.T) {
	ts := startServer(t, Config{})
	cl := ts.client(t)
	ctx := context.Background()
	stream, err := cl.Client.DoAction(ctx, &flight.Action{Type: "DropEverything"})
	if err == nil {
		_, err = stream.Recv()
	}
	if status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), `"DropEverything"`) ||
		!strings.Contains(err.Error(), "CreatePreparedStatement") || !strings.Contains(err.Error(), "SetSessionOptions") {
		t.Errorf("unknown action: %v", err)
	}
	list, err := cl.Client.ListActions(ctx, &flight.Empty{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for {
		a, err := list.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, a.GetType())
	}
	if strings.Join(got, ",") != strings.Join(actions, ",") {
		t.Errorf("ListActions: %v", got)
	}
}
