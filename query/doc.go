// Package query is quiver's SQL engine: SQL text in, a stream of Arrow
// record batches out, over the tables of a cache.Cache.
//
//	e := query.New(c, query.Options{MemoryLimit: 1 << 30})
//	r, err := e.Query(ctx, `SELECT l_returnflag, sum(l_quantity) FROM lineitem
//	                        WHERE l_shipdate <= DATE '1998-12-01' - INTERVAL '90' DAY
//	                        GROUP BY l_returnflag ORDER BY l_returnflag`)
//	defer r.Release()
//	for r.Next() { use(r.RecordBatch()) }
//	err = r.Err()
//
// # Pipeline
//
// parse.go: the TiDB parser (see there for why) in ANSI mode, plus NULLS
// FIRST/LAST. build*.go: the AST becomes a plan of nodes (plan.go):
//
//	Limit → [Project (drops hidden sort keys)] → Sort/TopK → Project
//	      → [Having] → [HashAggregate] → [Filter] → Scan
//
// The scan decodes only the table columns the query names (none for a bare
// count(*), which is answered from row counts) and gets the part of WHERE
// that compares columns with constants as a cache.Predicate
// (build_pushdown.go), so batches whose statistics rule it out are never
// decoded. Operators (op_*.go) are pulled batch by batch; expressions
// evaluate vectorized over whole batches (package expr) and GROUP BY uses a
// vectorized hash aggregator (package agg). LIMIT stops pulling, and
// closing the scan stops decoding, as soon as it has its rows; ORDER BY …
// LIMIT k keeps O(k) rows.
//
// # Supported SQL
//
// SELECT with expressions, aliases and *; FROM one table (optionally
// schema-qualified, optionally aliased); WHERE with comparisons,
// AND/OR/NOT, IN (…), BETWEEN, IS [NOT] NULL, LIKE (a prefix pattern also
// prunes), arithmetic, CAST (to SIGNED/INTEGER, DOUBLE, DECIMAL(p,s), DATE,
// CHAR), CASE, COALESCE, DATE '…' literals and date ± INTERVAL n
// DAY/WEEK/MONTH/QUARTER/YEAR; GROUP BY expressions, positions or aliases
// with count(*), count(x), count(DISTINCT x), sum, min, max, avg; HAVING;
// ORDER BY expressions, positions or aliases, ASC/DESC, NULLS FIRST/LAST
// (default NULLS LAST, as DuckDB); LIMIT/OFFSET; EXPLAIN. SQL NULL
// semantics; integer overflow and division by zero are errors; decimal
// arithmetic keeps exact scales (package expr).
//
// Anything else — joins, subqueries, set operations, window functions,
// DISTINCT, other functions, DML — fails at plan time with ErrUnsupported
// naming the construct and its line and column; errors match ErrSyntax,
// ErrUnsupported, ErrInvalid, ErrNoTable, ErrExec or ErrMemory.
//
// # Memory
//
// What a query's sorts and aggregates hold is tracked against
// Options.MemoryLimit; a query that would pass it fails with ErrMemory
// (spilling comes with issue 7). Streaming operators hold one batch.
package query
