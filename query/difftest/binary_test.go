//go:build duckdb

package difftest

import "testing"

// blobQueries check BLOB against DuckDB's: the bytes of fx's strings
// (non-ASCII among them) compared, sorted, grouped, measured and cast
// back to text with DuckDB's escapes.
// (DuckDB casts only ASCII text to BLOB: the queries keep fx's ASCII
// strings, octet_length(s) = length(s), strlen in DuckDB.)
var blobQueries = []testQuery{
	{name: "select and text", ordered: true, sql: `
SELECT id, CAST(s AS BLOB), CAST(CAST(s AS BLOB) AS VARCHAR), octet_length(CAST(s AS BLOB)), CAST(CAST(CAST(s AS BLOB) AS VARCHAR) AS BLOB) = CAST(s AS BLOB)
FROM fx WHERE octet_length(s) = length(s) ORDER BY id`, duck: `
SELECT id, CAST(s AS BLOB), CAST(CAST(s AS BLOB) AS VARCHAR), octet_length(CAST(s AS BLOB)), CAST(CAST(CAST(s AS BLOB) AS VARCHAR) AS BLOB) = CAST(s AS BLOB)
FROM fx WHERE strlen(s) = length(s) ORDER BY id`},
	{name: "compare", ordered: true, sql: `
SELECT id, CAST(s AS BLOB) < CAST(p AS BLOB), CAST(s AS BLOB) = CAST(p AS BLOB), CAST(s AS BLOB) >= CAST('hello' AS BLOB) FROM fx
WHERE octet_length(s) = length(s) AND octet_length(p) = length(p) ORDER BY id`, duck: `
SELECT id, CAST(s AS BLOB) < CAST(p AS BLOB), CAST(s AS BLOB) = CAST(p AS BLOB), CAST(s AS BLOB) >= CAST('hello' AS BLOB) FROM fx
WHERE strlen(s) = length(s) AND strlen(p) = length(p) ORDER BY id`},
	{name: "order by", ordered: true, sql: `SELECT CAST(s AS BLOB) AS b, id FROM fx WHERE octet_length(s) = length(s) OR s IS NULL ORDER BY b NULLS FIRST, id`,
		duck: `SELECT CAST(s AS BLOB) AS b, id FROM fx WHERE strlen(s) = length(s) OR s IS NULL ORDER BY b NULLS FIRST, id`},
	{name: "group by", ordered: true, sql: `SELECT CAST(p AS BLOB) AS b, count(*) FROM fx WHERE octet_length(p) = length(p) OR p IS NULL GROUP BY b ORDER BY b NULLS FIRST`,
		duck: `SELECT CAST(p AS BLOB) AS b, count(*) FROM fx WHERE strlen(p) = length(p) OR p IS NULL GROUP BY b ORDER BY b NULLS FIRST`},
	{name: "min max", ordered: true, sql: `
SELECT n, min(CAST(p AS BLOB)), max(CAST(s AS BLOB)), count(CAST(p AS BLOB)) FROM fx
WHERE octet_length(s) = length(s) AND octet_length(p) = length(p) GROUP BY n ORDER BY n NULLS FIRST`, duck: `
SELECT n, min(CAST(p AS BLOB)), max(CAST(s AS BLOB)), count(CAST(p AS BLOB)) FROM fx
WHERE strlen(s) = length(s) AND strlen(p) = length(p) GROUP BY n ORDER BY n NULLS FIRST`},
	{name: "escapes", sql: `SELECT CAST(CAST('\xAA\x00ab' AS BLOB) AS VARCHAR), octet_length(CAST('\xAA\x00ab' AS BLOB)), CAST('\x41\x7F\x5C' AS BLOB)`},
	{name: "hex literals", sql: `SELECT x'0AFF', octet_length(x'0AFF41')`, duck: `SELECT '\x0A\xFF'::BLOB, octet_length('\x0A\xFFA'::BLOB)`},
}

func TestBlobs(t *testing.T) { runQueries(t, blobQueries) }
