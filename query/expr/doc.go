// Package expr evaluates typed scalar expressions over Arrow record
// batches, vectorized, with SQL semantics. The planner builds trees with
// the constructors (Column, Literal, Arith, Compare, And, In, Like, Cast,
// Case, ...), each of which checks and coerces its operand types at plan
// time; operators then call Eval once per batch and get one array of
// batch.NumRows() rows back.
//
// # Types
//
// An expression has one of the engine types: Boolean, Int64, Float64,
// Decimal128(p ≤ 38, s), String (utf8), Date32, Timestamp in
// microseconds, without a zone (TIMESTAMP) or with UTC (TIMESTAMP WITH
// TIME ZONE), Time64 in microseconds (TIME), month_day_nano interval
// (INTERVAL: interval.go), Binary (BLOB: binary.go), or arrow.Null for
// an untyped NULL literal not yet coerced. Columns enter as engine types:
// EngineType maps a stored type to its engine type and ToEngine converts
// a column (small integers to Int64, uint64 to Decimal128(20, 0), which
// holds every uint64 up to 2^64-1, float32 to Float64, decimal32/64 to
// Decimal128, large_utf8 to String, date64 to Date32, timestamps of any
// unit to microseconds and of any zone to UTC: timestamp.go; time32 and
// time64 to microseconds: time.go; month, day_time and duration to
// INTERVAL; large_binary, binary_view, fixed_size_binary to BLOB and
// string_view to String; decimal256 to Decimal128 up to 38 digits, to
// Float64 past them: decimal256.go).
// Lists and structs have no engine type: ListElement, StructField,
// ListLength, ListContains and IsNull read them (nested.go), returning
// an engine type, or a list or struct to be returned or read into
// again; every other constructor refuses them with ErrType.
// The planner converts only the columns expressions read; FromEngine and
// AsStored go back to a stored type for output (a GROUP BY key), and a
// Column may name a stored type when it is only passed through. Neither
// is an operand of another expression.
//
// Operands meet in their common type (Coerce): two decimals widen to a
// scale and integer part that hold both, Int64 with a decimal becomes a
// decimal (Int64 as decimal(19,0), an Int64 literal as decimal(its digits,
// 0)), Int64 or a decimal with Float64 becomes Float64, a Date32 with a
// timestamp becomes the timestamp (midnight), TIMESTAMP with TIMESTAMP WITH
// TIME ZONE the latter. String and Boolean only meet themselves, except
// that a String literal compared with (or IN, BETWEEN, CASE next to) a
// Date32 or a timestamp is read as one at plan time.
// Anything else is ErrType, naming both types and the expression:
// "cannot compare date32 with int64 (l_shipdate < 5)". Literals are
// converted when the tree is built (a bad constant fails then); other
// operands get an implicit CAST that Inspect reports as such.
//
// # Semantics
//
//   - NULL: arithmetic, comparisons, LIKE, casts and IN with a NULL operand
//     give NULL. AND and OR are Kleene (FALSE AND NULL is FALSE, TRUE OR
//     NULL is TRUE). x IN (list) is NULL when nothing matches and x or an
//     item is NULL. CASE takes the first arm whose condition is TRUE (NULL
//     is not). IS [NOT] NULL is never NULL; NaN is not NULL.
//   - Int64: +, -, * and / overflow is ErrOverflow ("integer overflow in
//     l_quantity * 1000000000000"); / truncates toward zero; the sign of %
//     follows the dividend; MinInt64 % -1 is 0.
//   - Division and modulo by zero are ErrDivisionByZero for every type,
//     Float64 included (Postgres errs; DuckDB returns IEEE ±Infinity or NaN
//     for floats: we err, the answer that cannot be mistaken for data).
//     Other Float64 arithmetic is IEEE 754 (overflow gives ±Infinity, as in
//     DuckDB).
//   - Decimals: see decimalArithType for the result precision and scale of
//     each operator (+, -, * as DuckDB and Postgres; / as SQL Server and
//     Spark, at least 6 fractional digits, since DuckDB's / returns DOUBLE
//     and Postgres chooses the scale per value). A result that does not fit
//     its precision (at most 38 digits) is ErrOverflow. Rounding is always
//     half away from zero.
//   - Float64 comparisons order NaN above every number and equal to itself,
//     as DuckDB and Postgres do; strings compare bytewise.
//   - Casts: numeric to numeric rounds half away from zero (Float64 or
//     decimal to Int64 as DuckDB does, to a smaller scale) and fails with
//     ErrOverflow when out of range; strings parse after trimming spaces and
//     fail with ErrInvalidCast naming the value; every type casts to String
//     (dates as YYYY-MM-DD, decimals with all their scale digits).
//   - Dates and timestamps: AddInterval adds months (clamping the day to
//     the month's end: 2024-01-31 + 1 month = 2024-02-29), then days, then
//     (AddIntervalTime) microseconds. DATE - DATE is the BIGINT days
//     between, DATE ± BIGINT a DATE (Arith, as DuckDB). Arith also takes
//     INTERVALs (interval_arith.go: TIMESTAMP - TIMESTAMP, timestamp ±
//     INTERVAL, INTERVAL ± INTERVAL, INTERVAL × BIGINT), and intervals
//     compare normalized, as DuckDB's ('1 day' = '24 hours'). Instants
//     meet wall-clock times in the zone the planner passes (zone.go:
//     CastIn, LocalTime, AtZone, AddIntervalIn); Cast alone is UTC's.
//   - Functions by name: Call resolves name(args) in the registry
//     (registry.go) by the argument types of each signature and builds
//     the node; funcs_*.go and strftime.go document each function's
//     result type, NULL rule and errors (DuckDB's semantics, checked by
//     query/difftest). TRY_CAST gives NULL where CAST would fail.
//   - LIKE: % any run, _ one character (UTF-8), \ escapes; case-sensitive.
//   - Extract takes a DatePart of a date as an Int64, with DuckDB's
//     values: dow counts from Sunday 0, week is the ISO week.
//   - Substring counts characters (UTF-8 code points), 1-based; a start ≤ 0
//     and a negative length follow DuckDB (see substringExpr); it slices
//     bytes directly when a batch's strings are all ASCII.
//
// # Evaluation
//
// Eval works on whole arrays. Literals are not materialized for kernels
// that take constants (x < 24 compares against a scalar). Every operand of
// an operator is evaluated on every row, so an error anywhere in the batch
// fails Eval, except in CASE and COALESCE, which evaluate each operand only
// on the rows that reach it (CASE WHEN x <> 0 THEN 10 / x END never divides
// by zero): the batch is cut down to those rows and the pieces are merged
// back in row order. Operands that cannot fail are evaluated on every row
// instead, which is cheaper. A left-deep chain of arithmetic or of AND/OR
// (a + b + c …, as SQL parses it) and a run of minus signs evaluate in a
// loop from the innermost node up, in the order recursion would take but
// with one stack frame, and every step checks the context, so a long
// expression over a large batch stops soon after it is cancelled; NOT NOT
// e is built as e. Before materializing a constant for every row, Eval
// asks an allocator that implements Reserver for the bytes (budget.go)
// and fails with its error instead of allocating when it says no. Node
// text (String) is written into one builder from the root, and Share
// numbers subtrees bottom up, so both are linear in the tree's size.
// Constant subtrees are folded at plan time
// (DATE '1998-12-01' - INTERVAL '90 days' becomes a date literal) unless
// folding fails, in which case the error waits for Eval. Eval handles
// sliced inputs (non-zero offsets), never keeps an array it did not return,
// and releases every intermediate array on success and on error. Whatever
// bytes sit under a NULL slot never raise an error (the fast loops that run
// over them hand any suspect batch to the careful kernel, which skips NULL
// rows). Expressions are immutable: one tree may be evaluated by several
// goroutines at once.
//
// # Kernels: arrow-go's and ours
//
// From arrow-go v18.8's compute package:
//
//   - Float64 +, -, *, / (add, subtract, multiply, divide: IEEE results,
//     and divide's zero check skips NULLs);
//   - comparisons of Int64, String, Date32, and = / <> of Boolean (equal,
//     less, ..., with scalar operands);
//   - IN over a list of Int64, String or Date32 literals (is_in with
//     NullMatchingInconclusive, SQL's rule);
//   - filter (except Boolean arrays) to cut a batch down to the rows a CASE
//     or COALESCE operand must see;
//   - cast for ToEngine's widening conversions (int8..uint32, float32,
//     large_utf8).
//
// Ours, each because arrow-go's is missing or wrong for SQL (the tests
// that found each are in this package):
//
//   - all Int64 arithmetic: v18.8's checked add and subtract miss overflows
//     toward minus infinity (MinInt64 + -1 passes, the carry test is the
//     unsigned one), multiply reports overflow for garbage under NULL slots,
//     and divide returns MinInt64 for MinInt64 / -1; % has no kernel;
//   - decimal arithmetic: arrow-go types a product p1+p2+1 and refuses any
//     operation whose result type would pass 38 digits (decimal(38,0) +
//     decimal(38,0) fails however small the values) where SQL caps the
//     precision at 38 and checks the values;
//   - Float64 comparisons (NaN ordering) and %; Boolean ordering (< on bool
//     has no kernel); decimal comparisons (arrow-go's are correct, ours about
//     twice as fast: BenchmarkKernels);
//   - AND, OR (and_kleene and or_kleene are correct, ours work a byte at a
//     time and are about 4 times faster: BenchmarkKernels) and NOT (v18.8's
//     not misreads the validity of sliced arrays);
//   - IS [NOT] NULL: is_not_null misreads sliced arrays and is_null panics
//     on decimals;
//   - IN over decimal or Boolean lists: is_in misreads sliced decimal and
//     Boolean arrays;
//   - filter of Boolean arrays: v18.8 loses which values are NULL;
//   - every CAST: arrow-go's casts to string leak their buffers, int64 to
//     float64 refuses values above 2^53, float to int refuses fractions
//     instead of rounding, decimal32/64 and decimal-to-string casts are
//     missing, and date64 to date32 refuses instants inside a day;
//   - merging CASE and COALESCE results (gather: one pass, where take
//     would need the pieces concatenated first);
//   - LIKE (no match_like kernel), dates, timestamps and intervals,
//     EXTRACT and substring (v18.8 has no field extraction or string
//     slicing kernel), and the registry's functions (funcs_*.go: arrow-go
//     has some of them, with semantics other than DuckDB's and without
//     the query's memory budget).
//
// The hot paths (+, -, * on Int64 and on decimals that fit 64 bits, see
// fast.go) run branch-free loops and fall back to the careful per-row
// kernel only when a row may have failed.
//
// # Errors
//
// Every error is an *Error whose Kind is one of ErrType (construction),
// ErrOverflow, ErrDivisionByZero, ErrInvalidCast or ErrInvalid (Eval), for
// errors.Is, and whose message names the expression.
//
// # For planners
//
// Inspect takes a node apart (kind, operands, column, literal value,
// operator, LIKE pattern), Columns lists the batch columns a tree reads,
// and LikePrefix extracts the prefix a LIKE pattern prunes with.
package expr
