package server

import (
	"context"
	"fmt"
	"unicode/utf8"

	pb "github.com/apache/arrow-go/v18/arrow/flight/gen/flight"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/internal/flightipc"
	"github.com/quiverdb/quiver/internal/pull"
	"github.com/quiverdb/quiver/query"
)

// maxTableName bounds the length of a table name.
const maxTableName = 128

// ingest stores the batches a client uploads as table c.Table: created,
// appended to or replaced as its table definition options say, and with
// Config.Store on disk before it returns. It returns the rows stored (0
// when it failed: the cache's puts and the store's changes are atomic).
func (s *Server) ingest(ctx context.Context, c *pb.CommandStatementIngest, rd *flightipc.Reader) (int64, error) {
	name := c.GetTable()
	if err := checkTableName(name); err != nil {
		return 0, err
	}
	switch {
	case c.GetTemporary():
		return 0, status.Error(codes.InvalidArgument, "quiver has no temporary tables")
	case len(c.GetTransactionId()) != 0:
		return 0, status.Error(codes.InvalidArgument, "quiver has no transactions")
	case c.Catalog != nil && *c.Catalog != "" && *c.Catalog != catalogName:
		return 0, status.Errorf(codes.NotFound, "no catalog %q (quiver has one: %q)", *c.Catalog, catalogName)
	case c.Schema != nil && *c.Schema != "" && *c.Schema != schemaName:
		return 0, status.Errorf(codes.NotFound, "no schema %q (quiver has one: %q)", *c.Schema, schemaName)
	}
	opts := c.GetTableDefinitionOptions()
	ifNotExist, ifExists := opts.GetIfNotExist(), opts.GetIfExists()
	if ifNotExist == pb.CommandStatementIngest_TableDefinitionOptions_TABLE_NOT_EXIST_OPTION_UNSPECIFIED ||
		ifExists == pb.CommandStatementIngest_TableDefinitionOptions_TABLE_EXISTS_OPTION_UNSPECIFIED {
		return 0, status.Error(codes.InvalidArgument, "bulk ingest needs table definition options: what to do if the table does not exist (create, fail) and if it does (fail, append, replace)")
	}
	if s.views.Has(name) {
		return 0, status.Errorf(codes.AlreadyExists, "%q is a view (made by CREATE VIEW; DROP VIEW it, or ingest under another name)", name)
	}
	if held, ok := s.cache.Resolve(name); ok && held != name {
		// Refused before reading the upload; cache.Put checks again.
		return 0, status.Errorf(codes.AlreadyExists, "table %q would clash with table %q: table names are unique ignoring case, since unquoted names in SQL match ignoring case (ingest as %q, or pick another name)", name, held, held)
	}
	release, err := s.admitIngest(ctx)
	if err != nil {
		return 0, err
	}
	defer release()
	up := &upload{s: s, what: fmt.Sprintf("table %q", name)}
	defer func() { returnMemory(up.decoded) }() // after the batches are released below
	defer up.settle()
	sr, err := s.uploadReader(rd, up)
	if err != nil {
		return 0, uploadError(up.what, fmt.Errorf("reading the uploaded stream: %w", err))
	}
	defer sr.Release()
	r := pull.Records(sr.Schema(), up.next(sr))
	defer r.Release()

	_, err = s.cache.Info(name)
	exists := err == nil
	var info cache.TableInfo
	switch {
	case exists && ifExists == pb.CommandStatementIngest_TableDefinitionOptions_TABLE_EXISTS_OPTION_FAIL:
		return 0, status.Errorf(codes.AlreadyExists, "table %q exists (ingest with append or replace)", name)
	case exists && ifExists == pb.CommandStatementIngest_TableDefinitionOptions_TABLE_EXISTS_OPTION_APPEND:
		// A small upload coalesces with the table's trailing small
		// batches, as a small INSERT does.
		info, err = s.tables().Append(ctx, name, r, cache.TableOptions{Coalesce: query.SmallAppendRows})
	case !exists && ifNotExist == pb.CommandStatementIngest_TableDefinitionOptions_TABLE_NOT_EXIST_OPTION_FAIL:
		return 0, status.Errorf(codes.NotFound, "no table %q (ingest with create)", name)
	default: // create, or replace
		info, err = s.tables().Put(ctx, name, r, cache.TableOptions{})
	}
	if err != nil {
		return 0, uploadError(up.what, err)
	}
	n := r.Rows()
	s.metrics.ingestRows.Add(n)
	s.log.Info("ingest", "table", name, "rows", n, "table_rows", info.Rows, "compressed_bytes", info.Compressed)
	return n, nil
}

func checkTableName(name string) error {
	switch {
	case name == "":
		return status.Error(codes.InvalidArgument, "bulk ingest without a table name")
	case len(name) > maxTableName:
		return status.Errorf(codes.InvalidArgument, "table name of %d bytes; at most %d", len(name), maxTableName)
	case !utf8.ValidString(name):
		return status.Error(codes.InvalidArgument, "table name is not UTF-8")
	}
	return nil
}
