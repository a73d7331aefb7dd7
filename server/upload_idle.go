package server

import (
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// idleRecv is a DoPut stream's Recv that gives up when the client sends
// nothing for idle (Config.UploadIdle). An upload holds a slot of
// MaxIngests (and of its client's MaxIngestsPerClient) while it waits
// for its next message; without this a client that sends one message and
// stops would hold the slot for as long as its connection lives.
//
// gRPC's Recv cannot be interrupted but by the call ending, so each Recv
// runs on a goroutine of its own: on the timeout the handler returns, the
// call ends, and that Recv returns with the stream's end. Only the time
// spent waiting for the client counts, not the time the server takes
// over a message.
type idleRecv struct {
	recv func() (*flight.FlightData, error)
	idle time.Duration
	err  error // set at the timeout: no Recv may run beside the pending one
}

type recvResult struct {
	fd  *flight.FlightData
	err error
}

func (r *idleRecv) Recv() (*flight.FlightData, error) {
	if r.err != nil {
		return nil, r.err
	}
	done := make(chan recvResult, 1) // the Recv left behind at a timeout never blocks
	go func() {
		fd, err := r.recv()
		done <- recvResult{fd, err}
	}()
	t := time.NewTimer(r.idle)
	defer t.Stop()
	select {
	case res := <-done:
		return res.fd, res.err
	case <-t.C:
		r.err = status.Errorf(codes.DeadlineExceeded,
			"upload abandoned: the client sent nothing for %s (--upload-idle); nothing of it is stored", r.idle)
		return nil, r.err
	}
}
