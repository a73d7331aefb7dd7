package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	pb "github.com/apache/arrow-go/v18/arrow/flight/gen/flight"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/quiverdb/quiver/internal/flightipc"
	"github.com/quiverdb/quiver/query"
)

// bindParameters reads the parameter batch a client uploads for a
// prepared statement: one row, a column per ? in order. The values are
// kept with the statement for its next executions.
func (s *Server) bindParameters(ctx context.Context, c *pb.CommandPreparedStatementQuery, rd *flightipc.Reader) error {
	o, _, err := s.caller(ctx)
	if err != nil {
		return err
	}
	p, err := s.prepared.get(c.GetPreparedStatementHandle(), o)
	if err != nil {
		return err
	}
	// The statement keeps the values as long as it lives: they are bound
	// as part of its SQL, not as a table.
	up := &upload{s: s, what: "parameters", max: paramBytes(s.cfg.MaxSQLBytes), maxName: "--max-sql-bytes"}
	defer up.settle()
	sr, err := s.uploadReader(rd, up)
	if err != nil {
		return fmt.Errorf("reading parameters: %w", err)
	}
	defer sr.Release()
	var params []any
	rows := 0
	for {
		rec, err := sr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("reading parameters: %w", err)
		}
		if rows += int(rec.NumRows()); rows > 1 {
			rec.Release()
			return status.Errorf(codes.InvalidArgument, "%d rows of parameters: quiver runs a statement with one row of parameters at a time", rows)
		}
		if rec.NumRows() == 1 {
			params, err = rowParams(rec)
		}
		rec.Release()
		if err != nil {
			return err
		}
	}
	if len(params) != p.numParams {
		return status.Errorf(codes.InvalidArgument, "the statement has %d parameters, %d were bound", p.numParams, len(params))
	}
	p.mu.Lock()
	p.params, p.lastUsed = params, time.Now()
	p.mu.Unlock()
	return nil
}

// paramBytes bounds what one row of parameters may decode to: the SQL
// limit, and room for the Arrow buffers of a few dozen columns besides.
func paramBytes(maxSQL int) int64 { return int64(maxSQL) + 64<<10 }

// rowParams converts row 0 of rec to the engine's parameter values.
func rowParams(rec arrow.RecordBatch) ([]any, error) {
	params := make([]any, rec.NumCols())
	for i, col := range rec.Columns() {
		v, err := paramValue(col)
		if err != nil {
			return nil, status.Errorf(codes.InvalidArgument, "parameter %d (%s): %v", i+1, col.DataType(), err)
		}
		params[i] = v
	}
	return params, nil
}

const dayMillis = 24 * 60 * 60 * 1000

func paramValue(col arrow.Array) (any, error) {
	if col.IsNull(0) {
		return nil, nil
	}
	switch a := col.(type) {
	case *array.Boolean:
		return a.Value(0), nil
	case *array.Int8:
		return int64(a.Value(0)), nil
	case *array.Int16:
		return int64(a.Value(0)), nil
	case *array.Int32:
		return int64(a.Value(0)), nil
	case *array.Int64:
		return a.Value(0), nil
	case *array.Uint8:
		return int64(a.Value(0)), nil
	case *array.Uint16:
		return int64(a.Value(0)), nil
	case *array.Uint32:
		return int64(a.Value(0)), nil
	case *array.Uint64:
		return a.Value(0), nil // the engine refuses values past BIGINT
	case *array.Float32:
		return float64(a.Value(0)), nil
	case *array.Float64:
		return a.Value(0), nil
	case *array.String: // Value aliases the batch's buffer, freed after binding
		return strings.Clone(a.Value(0)), nil
	case *array.LargeString:
		return strings.Clone(a.Value(0)), nil
	case *array.Binary:
		return string(a.Value(0)), nil
	case *array.Date32:
		return a.Value(0), nil
	case *array.Date64:
		ms := int64(a.Value(0))
		if ms%dayMillis != 0 {
			return nil, errors.New("a date64 that is not a whole day")
		}
		return arrow.Date32(ms / dayMillis), nil
	case *array.Timestamp:
		// database/sql sends time.Time as a timestamp: a date at midnight
		// UTC binds as that DATE.
		unit := a.DataType().(*arrow.TimestampType).Unit
		t := a.Value(0).ToTime(unit)
		if t.Hour() != 0 || t.Minute() != 0 || t.Second() != 0 || t.Nanosecond() != 0 {
			return nil, errors.New("quiver has DATE but no TIMESTAMP: bind a time at midnight UTC, or a date")
		}
		return arrow.Date32FromTime(t), nil
	case *array.Decimal128:
		dt := a.DataType().(*arrow.Decimal128Type)
		return query.Decimal{Unscaled: a.Value(0), Precision: dt.Precision, Scale: dt.Scale}, nil
	}
	return nil, fmt.Errorf("cannot bind values of type %s", col.DataType())
}
