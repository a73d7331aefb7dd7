package bench

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
)

// The peer of `bench serve`: a plain arrow-go Flight server (not Flight
// SQL) on loopback whose DoGet streams records already in memory with
// flight.NewRecordWriter, uncompressed or with ipc.WithZstd() (arrow-go's
// zstd has no level: it is klauspost's default, about level 3). This is
// what a Go service serving Arrow over Flight writes today.

// peerMaxMessage raises gRPC's message limits on both ends of the peer.
// arrow-go's writer sends each batch as one message however large: an
// uncompressed 10,000-row catalog_sales batch is 3.3 MB, and a 20,000-row
// one is past gRPC's default 4 MiB receive limit. quiver's server must not
// need this (it cuts messages to fit), so its client keeps the default.
const peerMaxMessage = 1 << 30

// peerResult is one result the peer serves.
type peerResult struct {
	schema *arrow.Schema
	recs   []arrow.RecordBatch
}

// peerTicket names a result and a compression: "numeric/zstd".
func peerTicket(result, compression string) *flight.Ticket {
	return &flight.Ticket{Ticket: []byte(result + "/" + compression)}
}

type flightPeer struct {
	flight.BaseFlightServer
	mem     memory.Allocator
	results map[string]peerResult
}

func (p *flightPeer) DoGet(t *flight.Ticket, stream flight.FlightService_DoGetServer) error {
	name, compression, _ := strings.Cut(string(t.GetTicket()), "/")
	res, ok := p.results[name]
	if !ok {
		return status.Errorf(codes.NotFound, "peer: no result %q", name)
	}
	opts := []ipc.Option{ipc.WithSchema(res.schema), ipc.WithAllocator(p.mem)}
	switch compression {
	case "none":
	case "zstd":
		opts = append(opts, ipc.WithZstd())
	default:
		return status.Errorf(codes.InvalidArgument, "peer: compression %q (want none or zstd)", compression)
	}
	w := flight.NewRecordWriter(stream, opts...)
	for _, rec := range res.recs {
		if err := w.Write(rec); err != nil {
			w.Close()
			return err
		}
	}
	return w.Close()
}

// peerServer is the running peer.
type peerServer struct {
	srv  flight.Server
	done chan error
}

func startPeer(mem memory.Allocator, results map[string]peerResult) (*peerServer, error) {
	srv := flight.NewServerWithMiddleware(nil, grpc.MaxSendMsgSize(peerMaxMessage))
	if err := srv.Init("127.0.0.1:0"); err != nil {
		return nil, fmt.Errorf("bench: peer: %w", err)
	}
	srv.RegisterFlightService(&flightPeer{mem: mem, results: results})
	p := &peerServer{srv: srv, done: make(chan error, 1)}
	go func() { p.done <- srv.Serve() }()
	return p, nil
}

func (p *peerServer) addr() string { return p.srv.Addr().String() }

// stop waits for running streams, so close the clients first.
func (p *peerServer) stop() error {
	p.srv.Shutdown()
	return <-p.done
}

// dialPeer connects arrow-go's Flight client to the peer at addr.
func dialPeer(addr string) (flight.Client, error) {
	c, err := flight.NewClientWithMiddleware(addr, nil, nil,
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(peerMaxMessage)))
	if err != nil {
		return nil, fmt.Errorf("bench: peer client: %w", err)
	}
	return c, nil
}

// peerOpen returns how to fetch result with compression from the peer.
func peerOpen(c flight.Client, result, compression string) openFunc {
	t := peerTicket(result, compression)
	return func(ctx context.Context) (flight.FlightService_DoGetClient, error) {
		return c.DoGet(ctx, t)
	}
}
