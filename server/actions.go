package server

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// actions are the DoAction types quiver answers. arrow-go's dispatch
// knows more (transactions, savepoints, Substrait plans), which quiver
// answers Unimplemented with the reason.
var actions = []string{
	flight.CancelFlightInfoActionType,
	flightsql.CancelQueryActionType,
	flightsql.CreatePreparedStatementActionType,
	flightsql.ClosePreparedStatementActionType,
	flight.SetSessionOptionsActionType,
	flight.GetSessionOptionsActionType,
	flight.CloseSessionActionType,
}

// knownActions are the types arrow-go's dispatch handles.
var knownActions = map[string]bool{
	flight.RenewFlightEndpointActionType:            true,
	flightsql.BeginSavepointActionType:              true,
	flightsql.BeginTransactionActionType:            true,
	flightsql.EndSavepointActionType:                true,
	flightsql.EndTransactionActionType:              true,
	flightsql.CreatePreparedSubstraitPlanActionType: true,
}

// DoAction refuses an action type nobody handles by name, listing the
// ones quiver answers (arrow-go says only "the defined request is
// invalid"), and passes the rest to arrow-go's dispatch.
func (f *flightService) DoAction(cmd *flight.Action, stream flight.FlightService_DoActionServer) error {
	known := knownActions[cmd.GetType()]
	for _, a := range actions {
		known = known || a == cmd.GetType()
	}
	if !known {
		return status.Errorf(codes.InvalidArgument, "unknown action %q: quiver answers %s", cmd.GetType(), strings.Join(actions, ", "))
	}
	return f.FlightServer.DoAction(cmd, stream)
}

// ListActions lists the actions quiver answers.
func (f *flightService) ListActions(_ *flight.Empty, stream flight.FlightService_ListActionsServer) error {
	for _, a := range actions {
		if err := stream.Send(&flight.ActionType{Type: a}); err != nil {
			return err
		}
	}
	return nil
}
