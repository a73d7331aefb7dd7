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
//	      → [Qualify] → [Window …] → [Having] → [HashAggregate] → [ToEngine]
//	      → [Filter] → [ToEngine] → Scan
//
// Before WHERE is split, an optimizer rule (rule_arith.go) moves
// arithmetic with constants off a column where that is exact
// (l_orderkey + 0 BETWEEN a AND b is l_orderkey BETWEEN a AND b; x*3 < 10
// is x < 4 for integers), and a date's cast to TIMESTAMP off the column
// (rule_cast.go: CAST(d AS TIMESTAMP) >= TIMESTAMP k is d >= DATE k), so
// such conjuncts prune and filter as the bare comparison does; constant
// subtrees are already folded by package expr.
//
// The scan decodes only the table columns the query names (none for a bare
// count(*), which is answered from row counts) and gets the part of WHERE
// that compares columns with constants as a cache.Predicate
// (build_pushdown.go), so batches whose statistics rule it out are never
// decoded. The conjuncts of WHERE that compare an integer, temporal or
// decimal column with constants go further down: the scan evaluates them
// on the stored values and returns only the rows that pass
// (build_rowfilter.go, cache.ScanOptions.Rows); the Filter keeps the rest
// of WHERE, and is left out when nothing is left. Operators (op_*.go) are pulled batch by batch; expressions
// evaluate vectorized over whole batches (package expr) and GROUP BY uses a
// vectorized hash aggregator (package agg): one table per worker, merged
// at the end, or, when the keys' distinct counts promise two million
// groups or more (Options.ExchangeGroups), a hash exchange that sends
// each row to the worker owning its key, so no table is merged
// (plan_exchange.go, op_aggexchange.go). LIMIT stops pulling, and
// closing the scan stops decoding, as soon as it has its rows; ORDER BY …
// LIMIT k keeps O(k) rows, and when it orders by a column the scan skips
// the batches whose statistics put every row past the k-th row so far
// (topk_prune.go).
//
// # Types
//
// A column the query returns unchanged — a bare column in the SELECT list
// or *, through WHERE, ORDER BY, LIMIT and OFFSET — comes out with the
// table's type and nullability (an int32 NOT NULL key stays int32 NOT
// NULL, a decimal64(7,2) stays decimal64) and is never converted: the
// scan hands batches on as the cache decodes them. Expressions compute on
// the engine types of package expr (int64, float64, decimal128, utf8,
// date32, bool, timestamp in microseconds with or without the zone UTC,
// time64 in microseconds, month_day_nano interval and binary), and a
// column is converted to its engine type only where
// an expression, predicate, sort key or aggregate reads it, once per batch
// however many of them do: a ToEngine step (op_convert.go) below the
// filter for the predicate's columns, and above it for the rest, after the
// filter has cut the rows down. The filter gathers only the columns read
// above it (build_layout.go draws the layout of a batch), with copy loops
// of its own (internal/take). So:
//
//   - computed columns have engine types and are nullable: int32 + 1 is
//     int64, CAST(d AS DOUBLE) float64, an aggregate what agg.ResultType
//     says; a uint64 computes as decimal(20,0), so values past 2^63-1
//     compare, sum (to decimal(38,0), as DuckDB sums UBIGINT to HUGEINT)
//     and sort exactly;
//   - a GROUP BY key that is a bare column comes out in the column's type
//     and nullability: the aggregator groups on the engine type and only
//     its result, one value per group, is converted back
//     (expr.FromEngine; a date64 key groups by day, as date32, and comes
//     back at midnight); a computed key keeps its engine type;
//   - ORDER BY sorts a passed-through column in its own type, with the
//     order of its engine type (sort_stored.go);
//   - a column the cache keeps as dictionaries reads as its values (its
//     engine type is its value type's; ToEngine decodes it), is passed
//     through as dictionaries, and comes out of GROUP BY as its values.
//     A WHERE conjunct on it that the scan's row filter takes (=, <>, <,
//     BETWEEN, IN, LIKE 'prefix%', IS [NOT] NULL and NOT of those with
//     no NULL literal) is tested once per dictionary entry and mapped to
//     the rows by their indices (cache/rowfilter_dict.go), so it never
//     decodes the column; other predicates decode it below the Filter.
//     GROUP BY on such a column alone groups by its codes: each value a
//     batch uses is hashed once, and every row takes its code's group
//     (build_dictkey.go, agg/dictkeys.go; EXPLAIN says "dictionary
//     codes"). Beside other keys, or sent through the exchange or the
//     shuffle spill, the key is decoded first.
//
// Timestamps of every unit and zone compute as microseconds, DuckDB's
// TIMESTAMP and TIMESTAMP WITH TIME ZONE (a nanosecond column rounds
// toward minus infinity when an expression reads it; passed through it
// keeps its nanoseconds); a zoned column is an instant, whatever zone
// its Arrow type names. Where an instant meets a wall-clock time — casts
// to and from TIMESTAMP, DATE, TIME and VARCHAR ('2024-01-02
// 03:04:05+01'), comparisons with a TIMESTAMP or DATE, EXTRACT (but
// epoch), date_trunc, date_diff, dayname, monthname, last_day, strftime,
// an INTERVAL (constant or not) with days or months added to an instant
// (months, then days, on the zone's calendar, then the time part on the
// instant, as DuckDB 1.4 does), TIMESTAMPTZ '…' literals, current_date
// and localtimestamp — it is read in the session's time zone (timezone.go,
// build_zone.go): SET TimeZone = 'Europe/Berlin' (or SET TIME ZONE …)
// on a Session passed with WithSession, else Options.TimeZone, else
// UTC; results of the zoned type are labelled with it. Zones come from
// Go's time zone database, compiled in (time/tzdata); an unknown name is
// ErrInvalid naming it. DST: a skipped wall-clock time reads with the
// offset before the change, a repeated one with the offset after it
// (adding days keeps the old offset where it exists), as DuckDB does.
// time32 and time64 columns compute as DuckDB's TIME, microseconds since
// midnight.
//
// Intervals (month_day_nano, month, day_time and duration columns)
// compute as DuckDB's INTERVAL: months, days and nanoseconds (package
// expr's interval.go), compared and grouped normalized ('1 day' = '24
// hours'), sorted by a key of that order (min and max are arg_min and
// arg_max by it, so they return the value as it is, as DuckDB's do; sum
// and avg are refused). binary, large_binary, binary_view and fixed_size_binary
// compute as BLOB (string_view as VARCHAR). decimal256 computes as
// DECIMAL(p,s) up to 38 digits, exactly, and as DOUBLE past them (DuckDB
// has no wider decimal: its Parquet reader reads them as DOUBLE, its
// Arrow scan refuses decimal256); passed through it keeps every digit,
// and a GROUP BY key past 38 digits comes out as the DOUBLE it grouped
// on (package expr's decimal256.go).
//
// Lists (list, large_list, fixed_size_list, list_view,
// large_list_view), structs and maps have no engine type: a query
// returns such a column as it is stored (SELECT l, SELECT *) and reads
// into it (build_nested.go, package expr's nested.go, DuckDB's
// semantics, checked by query/difftest): l[i] (1-based, negative from
// the end, 0 or out of range NULL; list_extract, list_element,
// array_extract), s.f, s['f'] and struct_extract(s, 'f') (a field name
// matches ignoring case when only one does; s.f is a field when no
// table of the FROM clause is named s but one of its cached tables has
// a struct column s; t.s.f and s.f.g too; through a derived table or
// WITH name write d.s.f or s['f']),
// len/length/array_length(l), list_contains/list_has/array_contains/
// array_has(l, x) (NULL for a NULL list or x, NULL elements never
// match), chains of them (l[1].k, nl[2][1]), and IS [NOT] NULL. What
// they read is a value like any other: WHERE l[1] > 3, GROUP BY s.a,
// sum(l[2]), a join ON a.l[1] = b.s.a; a read that gives a list or
// struct is returned or read into again. The grammar has no brackets,
// so x[i] is rewritten to array_extract(x, i) before parsing
// (parse_subscript.go); list literals ([1, 2]) and slices (l[1:2]) are
// refused by name. unnest(l) as a whole item of the SELECT list makes a
// row per element, the other items repeated (a NULL or empty list gives
// none): an Unnest step under the projection (op_unnest.go), one per
// SELECT, not with GROUP BY, aggregates or window functions (unnest in
// a derived table and aggregate over that). A whole list or struct is
// a value too (build_nestedkey.go): compared with another of its shape
// (=, <>, <, <=, >, >=, IS [NOT] DISTINCT FROM; the same field names and
// element types, any list kind with any other), sorted (ORDER BY l, s
// DESC), grouped on (GROUP BY l, DISTINCT, UNION, INTERSECT, EXCEPT),
// joined on (ON a.l = b.l, hashed; l IN (SELECT …)), counted (count,
// count(DISTINCT), approx_count_distinct) and taken by min, max, first,
// last and any_value, in DuckDB's order: element by element and field
// by field, a NULL element after every value and equal to another NULL
// ([1, NULL] = [1, NULL] is TRUE, [1, NULL] > [1, 2]), a list before the
// longer lists it prefixes ([] < [1] < [1, 2]); compared with NULL it is
// NULL (IS [NOT] DISTINCT FROM NULL is IS [NOT] NULL). Each works on the
// value's key, a BLOB whose byte order is that order (package sortkey),
// turned back into the value where a GROUP BY, min or max returns it
// (floats come back canonical: -0.0 as 0.0). A map does all of this as
// DuckDB does, as the list of its {key, value} entries in their stored
// order. Not: lists holding intervals,
// list literals ([1, 2] = l), lists of different element types ([1]
// int32 against int64), min/max/first/last of one as a window function,
// casts, and arithmetic, which fail with the column or value and its
// type.
//
// A run-end encoded column is read as its values: passed through as it
// is stored (SELECT r, *), and everywhere else — filters, functions,
// ORDER BY, GROUP BY, joins, aggregates — decoded where it is read into
// its value type's engine type (package expr's ree.go), so it does what
// that type does, at the cost of the decoding; nothing works on the runs
// themselves. A union (sparse or dense) is passed through as it is
// stored (a filter keeps its rows: package take's union.go) and read
// with DuckDB's union_tag(u), the name of the member a row holds (a
// VARCHAR, where DuckDB's is an ENUM), and union_extract(u, 'name'), that
// member's value or NULL (package expr's union.go); u IS NULL is TRUE
// where the member a row holds is NULL — an Arrow union has no NULL of
// its own, where DuckDB's union holding a NULL member is not NULL.
// Whole unions compare, sort, group and join as DuckDB's: by member (its
// position in the union's type), then by the member's value, a NULL value
// last (package sortkey's union.go). A map is passed through
// and read with DuckDB 1.5's functions (package expr's map.go): m['k']
// and map_extract_value(m, k) are the key's value (NULL when m or k is
// NULL or the key missing), element_at(m, k) and map_extract(m, k) that
// value in a list ([] when missing, as DuckDB 1.5 returns them),
// cardinality(m) the number of entries, map_keys(m) and map_values(m)
// lists of the keys and values; whole maps compare, sort and group as
// above (not map_keys(min(m)): a function of a map an aggregate
// returns is refused). The server's
// TestAllTypesThroughServer lists what each type does.
//
// # Supported SQL
//
// SELECT [DISTINCT] with expressions, aliases and * (or t.*; * EXCLUDE
// (a, b) leaves columns out: parse_star.go) (an alias also names its
// expression in WHERE, HAVING, QUALIFY and the SELECT items after it,
// where FROM has no column of that name, as in DuckDB: build_alias.go); FROM one
// table (optionally qualified by schema main or quiver.main, optionally
// aliased; unquoted table names match ignoring case, quoted ones
// exactly: names.go), several tables joined (comma, [INNER] JOIN … ON /
// USING, NATURAL [LEFT | RIGHT] JOIN (from_bind.go), LEFT and RIGHT [OUTER] JOIN, FULL [OUTER] JOIN … ON
// (parse_fulljoin.go), CROSS JOIN, self-joins under aliases), derived
// tables (an unaliased one is unnamed_subquery, as in DuckDB), VALUES
// lists as tables ((VALUES (1, 'a'), (2, 'b')) AS v(x, y), or a
// statement of its own: parse_values.go), WITH names over a SELECT or a
// set operation (cte_setop.go; one named more than once is computed once and held
// while it fits: cte_held.go; else each use planned on its own), or
// no FROM at all (one row: SELECT 1 + 1); subqueries in WHERE: [NOT]
// EXISTS, [NOT] IN (SELECT …) with SQL's NULL rules, and comparisons with
// a scalar subquery, correlated or not (from_subquery.go; an uncorrelated
// scalar subquery also in SELECT, HAVING and ORDER BY); x op ANY / SOME /
// ALL (SELECT …) (rule_quantified.go: = ANY and <> ALL as IN and NOT IN,
// the other forms over an uncorrelated subquery); a subquery may be a set
// operation (rule_setop_subquery.go); UNION [ALL], INTERSECT, EXCEPT (setop.go);
// GROUP BY ROLLUP (…), CUBE (…), GROUPING SETS (…) and MySQL's WITH
// ROLLUP, with GROUPING(…) (build_groupingsets.go: a UNION ALL of one
// GROUP BY per set, so FROM is read once per set);
// WHERE with comparisons,
// AND/OR/NOT, IN (…), BETWEEN, IS [NOT] NULL, IS [NOT] TRUE / FALSE, IS [NOT] DISTINCT FROM (and
// <=>), LIKE (a prefix pattern also prunes) and ILIKE, arithmetic, ||
// (string concatenation, NULL if either side is; other types are
// converted as CAST to VARCHAR; looser than arithmetic, tighter than
// comparisons: a + b || c is (a + b) || c), CAST, TRY_CAST (NULL where
// a value does not convert) and x::T (parse_cast.go, build_cast.go) to
// DuckDB's and PostgreSQL's type names: BIGINT, INTEGER/INT, SMALLINT,
// TINYINT, HUGEINT, UINTEGER, USMALLINT, UTINYINT (all computed as BIGINT,
// a value outside the named type's range an error), BOOLEAN, DOUBLE
// [PRECISION]/FLOAT/REAL (DOUBLE), DECIMAL/NUMERIC(p,s) (DECIMAL alone
// is DECIMAL(18,3), as DuckDB's), DATE, TIMESTAMP [WITH TIME ZONE]/
// TIMESTAMPTZ (DATETIME), CHAR/VARCHAR/TEXT/STRING (parse_types.go), TIME,
// INTERVAL, BLOB/BYTEA; a DOUBLE cast to an integer rounds half to even,
// a DECIMAL half away from zero (DuckDB's rules); CASE,
// DATE '…', TIMESTAMP '…', TIMESTAMPTZ '…' (TIMESTAMP WITH TIME ZONE '…',
// a cast of the text: parse_tzliteral.go) and TIME '…' literals, x'0AFF' (a BLOB),
// date or timestamp ± INTERVAL n
// MICROSECOND/SECOND/MINUTE/HOUR/DAY/WEEK/MONTH/QUARTER/YEAR (a date plus
// a time unit is a timestamp, plus days or months still a date; also
// INTERVAL '3 days'), INTERVAL values: INTERVAL '1' DAY, INTERVAL 3 HOUR,
// INTERVAL '1 day 2 hours' (any of DuckDB's unit words, a clock
// '02:30:00', 'ago'; the grammar takes INTERVAL only beside + and -, so
// a standalone one is rewritten to a call, parse_types.go), TIMESTAMP -
// TIMESTAMP (an INTERVAL), timestamp or date ± an INTERVAL value (a
// timestamp), INTERVAL ± INTERVAL, INTERVAL × BIGINT, -INTERVAL, age(a,
// b) and age(a), to_years … to_microseconds, EXTRACT(… FROM interval),
// DATE - DATE (days) and DATE ± integer (a date), SET TimeZone (see
// Types), string literals
// without backslash escapes (as in DuckDB); EXTRACT(YEAR|QUARTER|MONTH|WEEK|DAY|HOUR|MINUTE|SECOND|
// MICROSECOND|EPOCH|DOW|DOY|… FROM t) and date_part('dow' | 'epoch' | …,
// t), and the
// functions of package expr's registry (expr.Call; build_funcs.go plans
// the grammar's special spellings — TRIM(LEADING x FROM s), POSITION(a IN
// b) — and suggests the closest names for an unknown one), with DuckDB's
// names and semantics, which query/difftest compares with:
//
//   - strings: length/char_length, octet_length/strlen, lower, upper,
//     trim/ltrim/rtrim, left, right, lpad, rpad, replace, repeat,
//     split_part, strpos/instr/position, starts_with, ends_with, contains,
//     reverse, concat (NULLs skipped), concat_ws, substring/substr,
//     regexp_matches, regexp_full_match, regexp_replace, regexp_extract
//     (RE2 syntax, Go's regexp package; constant patterns);
//   - math: abs, sign, ceil/ceiling, floor, trunc, round(x[, n]), sqrt,
//     cbrt, exp, ln, log, log10, log2, power/pow, mod (as %), greatest,
//     least;
//   - dates and times: date_part and year(d)-style functions, date_trunc,
//     date_diff/datediff, make_date, make_timestamp, to_timestamp,
//     strftime, strptime/try_strptime, dayname, monthname, last_day,
//     epoch_ms/epoch_us/epoch_ns, now()/current_timestamp/current_date/
//     localtimestamp (fixed once per query: build_now.go);
//   - random() (another value per row; never folded);
//   - conditionals: coalesce, ifnull, nullif, if(cond, a, b).
//
// A call whose argument types fit no signature fails with the candidates:
// "no function left(varchar); candidates: left(varchar, bigint)"; errors
// while evaluating name the function and the value ("sqrt: cannot take
// the square root of a negative number (-1)").
//
// GROUP BY expressions, positions or aliases, or ALL (every SELECT item
// without an aggregate or window call, as DuckDB's: parse_byall.go)
// with count(*), count(x), count(DISTINCT x), sum, min, max, avg,
// stddev/stddev_samp, stddev_pop, variance/var_samp, var_pop (stddev and
// variance are the sample ones, as in DuckDB), bool_and, bool_or,
// count_if, any_value (the first non-NULL value in input order, as
// DuckDB's: first over the rows where it is not NULL), arg_min/min_by and
// arg_max/max_by, first and last (the first and last row's value, NULL
// or not, in input order),
// string_agg(x [, sep] [ORDER BY …]) (listagg, group_concat; sep a
// constant, ',' by default), median, quantile_cont(x, q) and
// quantile_disc(x, q) (quantile) over numbers, decimals, dates,
// timestamps and times (quantile_disc and median also over strings;
// percentile_cont(q) and percentile_disc(q) WITHIN GROUP (ORDER BY x
// [DESC]) are these: parse_within.go), approx_quantile (quiver's is quantile_disc, exact), and
// approx_count_distinct (a HyperLogLog sketch per group: package hll,
// 1.6% standard error, within 5% in tests) (build_aggfuncs.go); FILTER
// (WHERE cond) on any aggregate, DISTINCT ones too (parse_aggs.go);
// HAVING. first and last are the rows' of the smallest and largest
// position, each row numbered by its batch's place in the scan and its
// own in the batch (op_aggregate.go's rowPositions), so they run on
// every worker and spill as the others do. string_agg and the quantiles
// keep their groups' values (the quantiles every value, 8 bytes a
// number, charged to the memory limit) and string_agg needs the rows in
// order, so a GROUP BY with one runs on one worker and does not spill:
// past MemoryLimit it fails with ErrMemory naming the aggregate;
// Window functions in the SELECT list and ORDER BY (plan_window.go,
// op_window.go, window_eval.go): row_number, rank, dense_rank,
// percent_rank, cume_dist, ntile(n), lag/lead(x [, offset [, default]]),
// first_value, last_value, nth_value(x, n), and sum, count, avg, min, max
// OVER ([PARTITION BY …] [ORDER BY … [NULLS FIRST/LAST]] [frame]), also
// over a GROUP BY's keys and aggregates (rank() OVER (ORDER BY sum(x)));
// first(x) and last(x) OVER (…) are first_value and last_value; every
// other aggregate above (stddev, arg_min, bool_and, string_agg, median,
// approx_count_distinct, any_value, …) is a window function too, computed
// by a GROUP BY aggregator per block (plan_window_agg.go,
// window_eval_agg.go): keyed by partition over whole partitions — OVER
// without ORDER BY, or BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED
// FOLLOWING — and over any other frame keyed by row, each row's frame
// gathered and aggregated on its own (the frames' rows in all may not
// pass 2^28 a block: past it the call is refused by name, asking for a
// smaller frame); bool_and, bool_or and count_if run as min, max and
// sum. FILTER on a window function is refused by name.
// Frames: ROWS BETWEEN UNBOUNDED/n PRECEDING, CURRENT ROW, n/UNBOUNDED
// FOLLOWING; RANGE, whose CURRENT ROW is the row's peers (equal ORDER
// BY keys) and whose n PRECEDING/FOLLOWING, over one ORDER BY key, reach
// the keys within n (a number, or an INTERVAL over dates and timestamps);
// GROUPS, whose CURRENT ROW is the row's peers and whose n
// PRECEDING/FOLLOWING reach n peer groups back or ahead; any of them
// with EXCLUDE CURRENT ROW, GROUP (the row's peers), TIES (its peers but
// the row) or NO OTHERS, as in DuckDB. The grammar reads GROUPS but cannot
// write it back, and has no EXCLUDE: both become sentinel items of the
// window's ORDER BY (parse_exclude.go). The default frame is RANGE
// BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW, every row of the partition
// without ORDER BY. WINDOW w AS (…) names a window for OVER w and OVER (w
// ORDER BY … / frame). IGNORE NULLS, DISTINCT inside a window call and
// windows under SELECT DISTINCT are refused by name.
// Each distinct (PARTITION BY,
// ORDER BY) is a Window step that sorts its input on the external sort
// (as ORDER BY does, spilling past the memory limit) unless its keys are
// a prefix of the one below it, and then walks the partitions: frames
// whose ends only move forward are never recomputed per row (prefix sums,
// a running float sum or a segment tree, monotone queues for min and
// max; with EXCLUDE, a frame of up to three spans, min and max from a
// segment tree of the best row: window_tree.go). QUALIFY filters by window functions after them (parse_qualify.go;
// not in a SELECT that also has HAVING, nor in a view).
//
// ORDER BY expressions, positions or aliases, or ALL (every SELECT item,
// left to right), ASC/DESC, NULLS FIRST/LAST
// (default NULLS LAST, as DuckDB); LIMIT/OFFSET; EXPLAIN; EXPLAIN ANALYZE
// (explain_analyze.go: runs the query, discards its rows, and prints the
// plan with each operator's rows, batches and time, the scan's batches
// decoded and skipped and bytes decompressed, and what sorts and
// aggregates spilled); EXPLAIN FORMAT = 'logical' (logical_trace.go:
// the logical plan of each SELECT, as bound and after each rule that
// changed it, then the physical plan). SQL NULL
// semantics; / of two integers is a DOUBLE (7 / 2 = 3.5, as DuckDB's;
// a DIV b divides integers); integer overflow and division by zero are errors; decimal
// arithmetic keeps exact scales (package expr).
//
// # Tables made with SQL
//
// Exec (or Query, which returns the count as one row) runs statements
// that change tables through Options.Tables, the cache or a durable
// store (ddl.go): CREATE TABLE with column types (ddl_types.go maps
// DuckDB's type names to Arrow types; a type without one is refused by
// name), NOT NULL, and PRIMARY KEY or UNIQUE of one column, checked on
// INSERT (ddl_keys.go; quiver keeps no index, and a plain CREATE INDEX
// does nothing); CREATE TABLE … AS SELECT; CREATE OR REPLACE TABLE; INSERT INTO t [(cols)]
// VALUES … or SELECT …, each value converted to its column's type as
// CAST would (ddl_insert.go); CREATE [OR REPLACE] VIEW, kept as SQL text
// and planned where a statement names it as a WITH query is (views.go);
// DROP TABLE / VIEW [IF EXISTS]; TRUNCATE. Changes run one at a time and
// are atomic. An INSERT of fewer than 65,536 rows coalesces with the
// table's trailing small batches (cache.TableOptions.Coalesce), so small
// INSERTs do not leave a batch each. SHOW TABLES, DESCRIBE t and
// information_schema.tables / .columns are queries (show.go,
// infoschema.go). Package slt runs SQLite's sqllogictest corpus.
//
// A correlated scalar subquery, EXISTS or IN (subquery) the planner
// cannot turn into a join (in SELECT, under OR or CASE, correlated by
// other comparisons than inner = outer, or with count's value over no
// rows) is evaluated by Apply, once per distinct tuple of the outer
// values it reads (apply.go).
//
// Anything else — FULL JOIN … USING (and NATURAL FULL JOIN), ANY/ALL
// over a correlated subquery except = ANY, LATERAL, WITH RECURSIVE,
// INTERSECT/EXCEPT ALL, other functions (list functions beyond those
// above, …),
// UPDATE and DELETE —
// fails at plan time with ErrUnsupported naming the construct and its
// line and column; errors match ErrSyntax, ErrUnsupported, ErrInvalid,
// ErrNoTable, ErrExec or ErrMemory.
//
// # Planning joins
//
// Every SELECT's operators above FROM (Aggregate, HAVING, Window,
// QUALIFY, Project, Distinct, Sort or TopK, Limit) are bound into logical
// operators and rewritten by their rules (logical_select.go: GROUP BY
// ALL, aliases, ORDER BY ALL, DISTINCT as GROUP BY, HAVING's conjuncts
// over keys into WHERE, arithmetic moved off columns), from which
// build.go plans the physical ones; a set operation is a tree of SetOps over its SELECTs, rewritten into UNION ALL under a
// Distinct or a counting Aggregate (logical_setop.go). A query over one
// table plans its scan directly (build.go). One that joins goes through
// the relational planner (from_*.go, drawn in from_bind.go),
// in layers: FROM and WHERE are bound into a logical plan (logical.go:
// scans, joins as written, a filter), which rules rewrite one pass each
// (factor ORs, decorrelate subqueries, outer joins to inner, infer
// filters through join keys, push down predicates, prune columns;
// logical_test.go tests each on the plan
// before and after it), and lowering turns into operators, choosing the
// join order there:
// names resolve once to (relation, column), with errors that name the
// candidates ("ambiguous: a.id or b.id", "did you mean …"); the conjuncts
// of WHERE and ON over one table go into that table's scan, where they
// prune and filter rows as for a single table; equalities of columns of
// two relations become hash join keys, and so do equalities of an
// expression over each side (a.id = b.qty + 1, an integer = a decimal:
// each side computes its key, join_exprkeys.go), the rest residuals at
// the first join that has their columns; an OR's common conjuncts are
// factored out (TPC-H Q19's key); subqueries become semi, anti,
// null-aware anti or inner joins with a grouped relation
// (decorrelation). The join order of up to 10 connected relations is the
// cheapest by dynamic programming over the estimated rows
// (join_order.go; from_estimate.go: the cache's distinct counts and
// bounds) when it is estimated a tenth cheaper than the greedy order,
// which is used otherwise and beyond 10; every join builds its smaller
// side.
//
// # Memory
//
// What a query's sorts and aggregates hold is tracked against
// Options.MemoryLimit. Without Options.Spill a query that would pass it
// fails with ErrMemory. With it, ORDER BY (op_extsort.go, package
// extsort) spills sorted runs and merges them back, so a query larger
// than memory finishes, and so does GROUP BY: each of its hash tables is
// capped at MemoryLimit/(workers+2), and when one is full its groups'
// partial aggregates are hash-partitioned by key into shuffle map outputs
// and the table starts over (op_aggshuffle.go: a hybrid hash aggregation
// whose map statuses choose the partitions kept in the tables and in
// memory at the end; once the tables stop reducing their rows, the rows
// of the partitions not kept go to disk as they come); at the end each
// partition is aggregated alone, partitioned again if it is still too
// big. A GROUP BY with count(DISTINCT), a global aggregate, or
// Options.GroupBySortSpill writes its tables sorted by key instead and
// merges the runs, combining equal keys (op_aggspill.go, agg.Spiller).
// A window function's sort spills as ORDER
// BY's does; the window then holds one partition at a time, and a
// partition that spans batches counts in the query's memory. One that
// passes half the limit is streamed when every call of its window needs
// only a bounded look-back (window_stream.go: row_number, rank,
// dense_rank, lag and lead with offsets up to 1,024, and count, sum, avg,
// min and max from UNBOUNDED PRECEDING to CURRENT ROW): its rows are
// computed in chunks, each carrying the counts, sums, ranks and last rows
// the next needs. Otherwise (ntile, percent_rank, cume_dist, the *_value
// functions, frames that reach ahead, aggregates over the whole partition)
// the partition is spilled (window_spill.go): a first pass writes it to a
// spill file while it learns what needs the whole partition (its row
// count, whole-partition totals and aggregate states), and a second reads
// it back in chunks and computes each call from those and the rows around
// it. What is left (RANGE or GROUPS offsets that stop short of the
// partition's ends, EXCLUDE GROUP or TIES, first_value, nth_value and
// the aggregates of package agg over frames from a row to the
// partition's end, and min, max, float sums and package agg's aggregates
// over frames from its start to a row ahead) fails
// past the limit with ErrMemory naming the window partition and those
// calls, as does any partition past the limit without Options.Spill. A hash join whose build side passes the
// limit becomes a grace hash join (see Executing joins). A quota or full
// disk fails the query with an error matching spill.ErrQuota or
// spill.ErrNoSpace; its files are removed when it ends, fails or is
// cancelled. Stats.Spill and EXPLAIN ANALYZE report files, bytes, rows and
// time spilled. Streaming operators hold one batch.
//
// What the expressions of one batch allocate (a filter's predicate, a
// projection's columns, an aggregate's keys and arguments) counts in the
// same tracker while the batch is evaluated (eval_memory.go), and a
// constant repeated on every row of a batch is refused with ErrMemory
// before it is allocated when it would pass MemoryLimit. A projection
// right under LIMIT computes only the rows the limit passes on, so
// SELECT '<5 MiB>' FROM t LIMIT 1 builds one row, and a string constant
// beside ORDER BY is computed after the sort (build_constants.go).
//
// # Executing joins
//
// A hash join (plan_join.go documents each kind: inner, left, right,
// full, semi, anti, NOT IN's null-aware anti, IN's mark, a scalar
// subquery's single) drains its build side into memory first
// (op_hashjoin_build.go): its rows, copied into one batch, and its key
// tuples numbered by GROUP BY's hash table (agg.KeyTable), with the rows
// of each tuple side by side — or, for one integer key whose values lie
// densely in their range, by a dense index over that range, without
// hashing (agg/dense.go: DuckDB's perfect hash join). When every key is
// one build row's, a probe row's pair comes straight from its lookup.
// The build side's key range, and its keys themselves when at most half
// the probe column's values can join, go to the probe side's scan as
// runtime filters (runtime_filter.go): batches outside the range are
// skipped, and rows whose key is not among the keys (an exact bitmap, or
// a Bloom filter: cache.KeyFilter) are dropped before the scan decodes
// their other columns. Then Options.Workers goroutines pull probe
// batches (running the filters and projections below the join, as GROUP
// BY's workers do), look their keys up, each with an agg.Prober of its
// own, and expand the matches into pairs of rows, at most 8192 per batch
// however many rows a key matches; a residual condition is evaluated on
// the pairs, with only the columns it reads gathered, and output columns
// are copied with internal/take (op_hashjoin_probe.go). A NULL key
// matches nothing. Batches come out in no particular order. A join
// without keys is a nested loop over every pair, which fails with
// ErrInvalid once it would examine more than Options.MaxJoinPairs pairs
// (default 100 million). The build side counts in the query's memory
// tracker. Without Options.Spill a join whose build side passes
// MemoryLimit fails with ErrMemory naming it. With it, the join becomes a
// grace hash join (op_gracejoin.go): the rows drained so far and the rest
// of the build side, then the probe side, are hash-partitioned by key
// (shuffle.HashPartitioner: a hash of their own seed, not the hash
// table's) into 32 partitions, written as a shuffle's map outputs (package
// shuffle: each writing worker's own file, a new one every quarter of the
// memory limit; held in memory, compressed, while they fit half of it and
// nothing else needs the room: shuffle_held.go), and the partitions are joined one at a time by the same
// build and workers, planned from the map statuses
// (op_gracejoin_plan.go): the smallest build partitions that fit are
// kept in memory while the probe side is partitioned, and their probe
// rows joined then instead of written (a hybrid hash join); partitions
// whose blocks say nothing can come of them are skipped (an inner join's
// probe rows of an empty build partition are not even written); those
// that fit are joined first, a few together while they fit; and one too
// big that is skewed (past 5 times the median partition) is split by map
// ranges of its build side, each joined with the whole probe partition.
// A partition still too big is partitioned again with the next level's
// seed (3 levels at most); one whose build rows share one key, or a join
// without keys, is joined by a nested loop over chunks of its build rows
// that fit, the probe rows read once per chunk (op_gracejoin_loop.go). NOT IN and IN's mark decide by the whole build
// side (empty? a NULL key?), counted while it is partitioned; build rows
// with NULL keys are dropped, or kept in a file of their own for right,
// full and right anti joins, which return each partition's unmatched
// build rows after its probe. Runtime filters get the whole build side's
// key range (not its keys). Options.ForceJoinSpill sends every hash join down this path
// with small partitions, for tests. EXPLAIN ANALYZE shows each join's
// build and probe rows, the bytes it held and the time each side took,
// and what it spilled: partitions, map outputs, bytes, rows, partitions
// kept in memory, empty blocks and partitions skipped, partitions
// coalesced, skewed partitions split, repartition levels and nested-loop
// fallbacks.
//
// # Join strategy: broadcast or partitioned (tuning)
//
// A hash join in memory runs one of two ways (plan_joinx.go has the
// rule, op_joinx.go the partitioned join). Broadcast, as above: one
// table of the whole build side, built on one goroutine, probed by every
// worker. Partitioned: both sides hash-partitioned by the key
// (shuffle.HashPartitioner, rows gathered by shuffle.Repartitioner) into
// one partition per worker (the next power of two), each partition's
// goroutine building a table of its build rows (the tables built in
// parallel) and probing it with the probe rows the workers send it; the
// kinds that return build rows return each partition's after its probe.
// The rule: with more than one worker, a build side holding
// Options.BroadcastJoinBytes or more (default 10 MiB, as Spark's
// spark.sql.autoBroadcastJoinThreshold; negative: every join
// partitioned) is partitioned, a smaller one broadcast. It is decided on
// the build side's actual bytes once drained; EXPLAIN shows the
// planner's estimate of the choice in brackets on the join's line,
// EXPLAIN ANALYZE the choice made, why, and each partition's build and
// probe rows and bytes. A build side that spills is a grace hash join
// whatever the threshold. BENCHMARKS.md §16e has the measurements.
//
// # Limits and cancellation
//
// Planning and evaluation take time linear in the size of a statement's
// expressions: expr builds a node's text once, numbers shared subtrees
// once, and evaluates a left-deep chain (a + b + c …, AND/OR chains, runs
// of minus signs) in a loop; NOT NOT e is e. Before planning, a statement
// whose expressions have more than Options.MaxExprNodes nodes (default
// 10,000) or nest deeper than Options.MaxExprDepth (default 1,000; the
// left operand of a binary operator is at its operator's depth, so a
// chain counts once) fails with ErrInvalid naming the limit (limits.go).
// Cancelling the context stops planning (checked every 256 expression
// nodes built) and evaluation (checked before each node of an expression
// and each step of a chain, not only between batches), and the query
// returns an error matching context.Canceled.
package query
