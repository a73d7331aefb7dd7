package server

import (
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
)

// Version is reported to clients in GetSqlInfo; the CLI sets it.
var Version = "dev"

func (q *sqlServer) registerSQLInfo() error {
	for id, v := range map[flightsql.SqlInfo]any{
		flightsql.SqlInfoFlightSqlServerName:                        "quiver",
		flightsql.SqlInfoFlightSqlServerVersion:                     Version,
		flightsql.SqlInfoFlightSqlServerArrowVersion:                "18.8.0",
		flightsql.SqlInfoFlightSqlServerReadOnly:                    false,
		flightsql.SqlInfoFlightSqlServerSql:                         true,
		flightsql.SqlInfoFlightSqlServerSubstrait:                   false,
		flightsql.SqlInfoFlightSqlServerTransaction:                 int32(0), // none
		flightsql.SqlInfoFlightSqlServerCancel:                      true,
		flightsql.SqlInfoFlightSqlServerBulkIngestion:               true,
		flightsql.SqlInfoFlightSqlServerIngestTransactionsSupported: false,
		flightsql.SqlInfoDDLCatalog:                                 false,
		flightsql.SqlInfoDDLSchema:                                  false,
		flightsql.SqlInfoDDLTable:                                   false,
		flightsql.SqlInfoIdentifierCase:                             int64(0),
		flightsql.SqlInfoQuotedIdentifierCase:                       int64(0),
		flightsql.SqlInfoIdentifierQuoteChar:                        `"`,
	} {
		if err := q.RegisterSqlInfo(id, v); err != nil {
			return err
		}
	}
	return nil
}
