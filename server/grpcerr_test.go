package server

import (
	"testing"

	"google.golang.org/grpc/codes"

	"github.com/quiverdb/quiver/query"
	"github.com/quiverdb/quiver/spill"
)

// TestSpillErrorCodes: a query whose spill passed its quota or filled the
// disk is ResourceExhausted, one whose spill file was damaged DataLoss,
// though the query reports both as execution errors.
func TestSpillErrorCodes(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want codes.Code
	}{
		{&query.Error{Kind: query.ErrExec, Msg: "GROUP BY spilling", Err: &spill.SpaceError{Kind: spill.ErrQuota}}, codes.ResourceExhausted},
		{&query.Error{Kind: query.ErrExec, Msg: "ORDER BY", Err: &spill.SpaceError{Kind: spill.ErrNoSpace}}, codes.ResourceExhausted},
		{&query.Error{Kind: query.ErrExec, Err: spill.ErrCorrupt}, codes.DataLoss},
		{&query.Error{Kind: query.ErrExec, Msg: "overflow"}, codes.InvalidArgument},
	} {
		if got := codeOf(tc.err); got != tc.want {
			t.Errorf("%v: %v, want %v", tc.err, got, tc.want)
		}
	}
}
