//go:build flightsqljs

package flightsql

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"

	"github.com/quiverdb/quiver/batch"
	"github.com/quiverdb/quiver/codec"
)

// wire is what a result stream looked like on the wire, as arrow-go's
// Flight SQL client received it and quiver's inspector describes it. It
// proves the foreign clients were handed compressed batches (a server that
// ignored its codec setting would otherwise pass), and gives the batch
// boundaries they should report.
type wire struct {
	codecs    []codec.Kind // per record batch
	batchRows []int64
	bodyBytes int64 // record batch bodies, summed
}

func fetchWire(t *testing.T, addr, token, sql string) wire {
	t.Helper()
	ctx := context.Background()
	cl, err := flightsql.NewClient(addr, nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if token != "" {
		ctx = metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+token)
	}
	info, err := cl.Execute(ctx, sql)
	if err != nil {
		t.Fatalf("arrow-go Execute: %v", err)
	}
	st, err := cl.Client.DoGet(ctx, info.Endpoint[0].Ticket)
	if err != nil {
		t.Fatalf("arrow-go DoGet: %v", err)
	}
	var stream bytes.Buffer
	for {
		fd, err := st.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("arrow-go DoGet: %v", err)
		}
		encapsulate(&stream, fd)
	}
	stream.Write([]byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0})
	var w wire
	_, _, err = batch.Inspect(bytes.NewReader(stream.Bytes()), int64(stream.Len()), batch.ReadOptions{}, true, func(m *batch.MessageInfo) error {
		if !m.Dictionary {
			w.codecs = append(w.codecs, m.Codec)
			w.batchRows = append(w.batchRows, m.Rows)
			w.bodyBytes += m.BodyBytes
		}
		return nil
	})
	if err != nil {
		t.Fatalf("inspecting the stream: %v", err)
	}
	return w
}

// encapsulate appends one FlightData to an Arrow IPC stream: FFFFFFFF,
// the metadata length padded to 8, the metadata, padding, the body.
func encapsulate(dst *bytes.Buffer, fd *flight.FlightData) {
	if len(fd.DataHeader) == 0 {
		return
	}
	padded := (len(fd.DataHeader) + 7) &^ 7
	dst.Write(binary.LittleEndian.AppendUint32(nil, 0xffffffff))
	dst.Write(binary.LittleEndian.AppendUint32(nil, uint32(padded)))
	dst.Write(fd.DataHeader)
	dst.Write(make([]byte, padded-len(fd.DataHeader)))
	dst.Write(fd.DataBody)
}
