package tpch

import (
	"embed"
	"fmt"
)

// The 22 TPC-H queries (TPC-H 2.4) with the validation parameters (the
// spec's 2.4.x.3 defaults, which its reference answers are for), one file
// each in queries/, written as DuckDB writes them: dates as date
// '1998-12-01', intervals as interval '90' day, Q15's view revenue0 as a
// WITH clause, the spec's row counts as LIMIT (Q2 100, Q3 10, Q10 20, Q18
// 100, Q21 100). Q13's derived table names its columns in its select list
// instead of a column list after the alias, which the TiDB parser quiver
// uses does not take. Each file opens with a comment naming the query and
// its parameters.

//go:embed queries/*.sql
var queryFiles embed.FS

// NumQueries is the number of TPC-H queries: Query takes 1 to NumQueries.
const NumQueries = 22

// Query returns TPC-H query n, 1 to NumQueries, as SQL text.
func Query(n int) string {
	if n < 1 || n > NumQueries {
		panic(fmt.Sprintf("tpch: no query %d (the queries are 1 to %d)", n, NumQueries))
	}
	b, err := queryFiles.ReadFile(fmt.Sprintf("queries/q%02d.sql", n))
	if err != nil {
		panic(err) // embedded: every file is there
	}
	return string(b)
}

// Queries returns the 22 queries in order: Queries()[0] is Q1.
func Queries() []string {
	qs := make([]string, NumQueries)
	for i := range qs {
		qs[i] = Query(i + 1)
	}
	return qs
}
