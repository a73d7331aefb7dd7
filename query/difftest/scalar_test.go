//go:build duckdb

package difftest

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// fx is the table the scalar-function and timestamp queries read, in both
// engines:
//
//	id int64; ts timestamp[us] (NULL every 7th); tz timestamp[ns, UTC];
//	tms timestamp[ms]; d date32; s utf8 (NULL, '', spaces, non-ASCII);
//	p utf8 (short patterns); x float64 (negatives, 0, extremes); i int64
//	(negatives, extremes); n int64 (-3..10); dm decimal(12,3); tm
//	time64[us] and t32 time32[ms], the times of day of ts
//
// The timestamps include instants around the DST changes of 2024 in
// Europe and the US, leap days (2000, 2024, and 1900's Feb 28), instants
// before 1970 and fractions of a second; the rest are random in
// 1960-2040.
var fxOnce struct {
	sync.Once
	err error
}

const fxRows = 600

var fxStrings = []string{
	"", " ", "  padded  ", "hello", "Hello World", "héllo wörld", "日本語テキスト", "a,b,,c", "xxaxx", "ÄÖÜ straße",
	"UPPER lower", "ab", "abcabc", "tab\there", "😀 emoji", "1,2,3", "forest green", "special requests",
}

var fxPatterns = []string{"", "a", "l", "ab", ",", "x", "é", "o w", "xyz", "ss"}

var fxInstants = []string{
	"2024-02-29 12:00:00", "2024-03-10 02:30:00", "2024-03-10 07:00:00.5", "2024-03-31 00:59:59.999999",
	"2024-03-31 01:00:00", "2024-10-27 00:30:00", "2024-10-27 01:30:00", "2024-11-03 06:00:00",
	"2000-02-29 23:59:59", "1900-02-28 23:00:00", "1969-12-31 23:59:59.5", "1970-01-01 00:00:00",
	"2023-12-31 23:59:59.999", "2024-01-01 00:00:00", "1999-12-31 12:34:56.789012",
}

func fxTable(t *testing.T) {
	t.Helper()
	fxOnce.Do(func() { fxOnce.err = loadFx(context.Background()) })
	if fxOnce.err != nil {
		t.Fatal(fxOnce.err)
	}
}

func loadFx(ctx context.Context) error {
	if _, err := env.db.ExecContext(ctx, "SET GLOBAL TimeZone = 'UTC'"); err != nil {
		return fmt.Errorf("DuckDB: %w", err)
	}
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond}, Nullable: true},
		{Name: "tz", Type: &arrow.TimestampType{Unit: arrow.Nanosecond, TimeZone: "UTC"}, Nullable: true},
		{Name: "tms", Type: &arrow.TimestampType{Unit: arrow.Millisecond}, Nullable: true},
		{Name: "d", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "p", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "x", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
		{Name: "i", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "n", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "dm", Type: &arrow.Decimal128Type{Precision: 12, Scale: 3}, Nullable: true},
		{Name: "tm", Type: arrow.FixedWidthTypes.Time64us, Nullable: true},
		{Name: "t32", Type: arrow.FixedWidthTypes.Time32ms, Nullable: true},
	}, nil)
	mem := memory.DefaultAllocator
	rng := rand.New(rand.NewPCG(3, 5))
	b := array.NewRecordBuilder(mem, schema)
	defer b.Release()
	floats := []float64{0, -0.5, 0.5, 1.5, -2.5, 2.5, 1e300, -1e300, 123.456, -7, 1e-9, 100}
	ints := []int64{0, -1, 1, math.MaxInt64, math.MinInt64 + 1, 42, -42, 1000000007}
	for id := range fxRows {
		var tm time.Time
		if id < len(fxInstants) {
			var err error
			if tm, err = time.Parse("2006-01-02 15:04:05.999999", fxInstants[id]); err != nil {
				return err
			}
		} else {
			tm = time.Date(1960, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(rng.Int64N(80*365*24*3600)) * time.Second).
				Add(time.Duration(rng.IntN(1_000_000)) * time.Microsecond)
		}
		null := func(k int) bool { return id%k == k-1 }
		b.Field(0).(*array.Int64Builder).Append(int64(id))
		appendOr(b.Field(1), null(7), func(f array.Builder) { f.(*array.TimestampBuilder).Append(arrow.Timestamp(tm.UnixMicro())) })
		appendOr(b.Field(2), null(11), func(f array.Builder) {
			f.(*array.TimestampBuilder).Append(arrow.Timestamp(tm.Add(time.Duration(id)*time.Hour).UnixMicro() * 1000))
		})
		appendOr(b.Field(3), null(13), func(f array.Builder) { f.(*array.TimestampBuilder).Append(arrow.Timestamp(tm.UnixMilli())) })
		appendOr(b.Field(4), null(9), func(f array.Builder) { f.(*array.Date32Builder).Append(arrow.Date32FromTime(tm)) })
		appendOr(b.Field(5), null(8), func(f array.Builder) { f.(*array.StringBuilder).Append(fxStrings[rng.IntN(len(fxStrings))]) })
		appendOr(b.Field(6), null(10), func(f array.Builder) { f.(*array.StringBuilder).Append(fxPatterns[rng.IntN(len(fxPatterns))]) })
		appendOr(b.Field(7), null(6), func(f array.Builder) {
			v := floats[rng.IntN(len(floats))]
			if rng.IntN(2) == 0 {
				v = float64(rng.IntN(20001)-10000) / 64
			}
			f.(*array.Float64Builder).Append(v)
		})
		appendOr(b.Field(8), null(5), func(f array.Builder) {
			v := ints[rng.IntN(len(ints))]
			if rng.IntN(2) == 0 {
				v = rng.Int64N(2001) - 1000
			}
			f.(*array.Int64Builder).Append(v)
		})
		appendOr(b.Field(9), null(12), func(f array.Builder) { f.(*array.Int64Builder).Append(rng.Int64N(14) - 3) })
		appendOr(b.Field(10), null(4), func(f array.Builder) {
			f.(*array.Decimal128Builder).Append(decimal128.FromI64(rng.Int64N(2_000_001) - 1_000_000))
		})
		tod := tm.Sub(tm.Truncate(24 * time.Hour))
		appendOr(b.Field(11), null(7), func(f array.Builder) { f.(*array.Time64Builder).Append(arrow.Time64(tod.Microseconds())) })
		appendOr(b.Field(12), null(9), func(f array.Builder) { f.(*array.Time32Builder).Append(arrow.Time32(tod.Milliseconds())) })
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	recs := []arrow.RecordBatch{rec}
	if err := putRecords(ctx, env.c, "fx", recs); err != nil {
		return err
	}
	return duckTable(ctx, env.db, "fx", "*", recs)
}

// timestampQueries check timestamps of three units, with and without a
// zone, against DuckDB's TIMESTAMP and TIMESTAMPTZ (its session zone UTC).
var timestampQueries = []testQuery{
	{name: "select", ordered: true, sql: `SELECT id, ts, tz, tms, d FROM fx ORDER BY id`},
	{name: "filter literal", ordered: true, sql: `SELECT id FROM fx WHERE ts >= TIMESTAMP '2000-02-29 23:59:59' AND tz < TIMESTAMP '2030-01-01 00:00:00' ORDER BY id`},
	{name: "filter string", sql: `SELECT count(*) FROM fx WHERE ts < '1990-06-01 12:00:00'`},
	{name: "compare units", sql: `SELECT count(*), count(CASE WHEN ts = tms THEN 1 END), count(CASE WHEN ts > tz THEN 1 END) FROM fx`},
	{name: "compare with date", sql: `SELECT count(*) FROM fx WHERE ts >= d AND tms < d + INTERVAL 1 DAY AND ts <> DATE '2024-01-01'`},
	{name: "sort", ordered: true, sql: `SELECT id, tms FROM fx ORDER BY tms DESC NULLS LAST, id LIMIT 50`},
	{name: "group", ordered: true, sql: `SELECT tms, count(*) FROM fx GROUP BY tms ORDER BY tms NULLS FIRST LIMIT 40`},
	{name: "min max count", sql: `SELECT min(ts), max(ts), min(tz), max(tz), count(tms), count(DISTINCT d) FROM fx`},
	{name: "join", ordered: true, sql: `SELECT a.id, b.id FROM fx a JOIN fx b ON a.ts = b.tz WHERE a.id < 100 ORDER BY a.id, b.id`},
	{name: "fields", ordered: true, sql: `
SELECT id, extract(year FROM ts), extract(month FROM ts), extract(day FROM ts), extract(hour FROM ts), extract(minute FROM ts),
       extract(second FROM ts), date_part('millisecond', ts), extract(microsecond FROM ts), date_part('epoch', ts),
       date_part('dow', tz), date_part('doy', tz), date_part('week', tz), hour(tz), minute(tms), second(tms), date_part('epoch', d)
FROM fx ORDER BY id`},
	{name: "intervals", ordered: true, sql: `
SELECT id, ts + INTERVAL 3 HOUR, ts - INTERVAL '90' MINUTE, tz + INTERVAL 45 SECOND, tms + INTERVAL 1 MONTH, ts - INTERVAL 1 YEAR,
       d + INTERVAL 5 HOUR
FROM fx ORDER BY id`},
	{name: "date arithmetic", ordered: true, sql: `SELECT id, d - DATE '2000-01-01', d + n, d - n, n + d, CAST(ts AS DATE) - d FROM fx ORDER BY id`,
		duck: `SELECT id, d - DATE '2000-01-01', d + CAST(n AS INTEGER), d - CAST(n AS INTEGER), CAST(n AS INTEGER) + d, CAST(ts AS DATE) - d FROM fx ORDER BY id`},
	{name: "postgres spellings", ordered: true, sql: `
SELECT id, ts + INTERVAL '3 hours', tz - INTERVAL '1 day', d + INTERVAL '-2 months', tms + interval '90 seconds',
       EXTRACT(EPOCH FROM ts), extract(dow FROM d), EXTRACT(doy FROM tz), extract(isodow FROM ts), EXTRACT(millisecond FROM tms)
FROM fx ORDER BY id`},
	{name: "casts", ordered: true, sql: `
SELECT id, CAST(ts AS DATE), CAST(d AS TIMESTAMP), CAST(ts AS VARCHAR), CAST(tz AS VARCHAR), CAST(tms AS TIMESTAMPTZ),
       CAST(CAST(ts AS VARCHAR) AS TIMESTAMP) = ts
FROM fx ORDER BY id`,
		duck: `
SELECT id, CAST(ts AS DATE), CAST(d AS TIMESTAMP), CAST(ts AS VARCHAR), CAST(tz AS VARCHAR), CAST(tms AS TIMESTAMPTZ),
       CAST(CAST(ts AS VARCHAR) AS TIMESTAMP) = ts
FROM fx ORDER BY id`},
	{name: "try_cast", ordered: true, sql: `SELECT id, TRY_CAST(s AS TIMESTAMP), TRY_CAST(p AS SIGNED), TRY_CAST(s AS DATE) FROM fx ORDER BY id`,
		duck: `SELECT id, TRY_CAST(s AS TIMESTAMP), TRY_CAST(p AS BIGINT), TRY_CAST(s AS DATE) FROM fx ORDER BY id`},
	{name: "times", ordered: true, sql: `
SELECT id, tm, t32, tm = t32, tm < TIME '12:00:00', t32 >= '06:30', CAST(ts AS TIME) = tm, CAST(tm AS VARCHAR), CAST(t32 AS VARCHAR),
       hour(tm), minute(t32), second(tm), date_part('millisecond', tm), extract(microsecond FROM t32), date_part('epoch', tm),
       CAST(CAST(tm AS VARCHAR) AS TIME) = tm
FROM fx ORDER BY id`},
	{name: "times grouped and sorted", ordered: true, sql: `SELECT t32, count(*), min(tm), max(tm), arg_max(id, tm) FROM fx GROUP BY t32 ORDER BY t32 NULLS FIRST LIMIT 50`},
	{name: "time literals", sql: `SELECT TIME '01:02:03.5', CAST('1:2:3' AS TIME), CAST(TIME '23:59:59.123456' AS VARCHAR), TIME '00:00:00' < TIME '00:00:00.000001'`},
	{name: "literals", sql: `
SELECT TIMESTAMP '2024-02-29 23:59:59.123456', CAST('2024-03-31 03:30:00+02:00' AS TIMESTAMP WITH TIME ZONE),
       CAST('2024-03-31 03:30:00 Europe/Paris' AS TIMESTAMPTZ), TIMESTAMP '1900-03-01 00:00:00' - INTERVAL 1 DAY,
       TIMESTAMP '2024-01-31 10:00:00' + INTERVAL 1 MONTH, CAST(TIMESTAMP '2024-01-02 03:04:05.5' AS VARCHAR)`},
}

func TestTimestamps(t *testing.T) { runQueries(t, timestampQueries) }

// runQueries compares each query with DuckDB; a query both engines
// refuse passes (an error both give is an answer too).
func runQueries(t *testing.T, qs []testQuery) { compareQueries(t, qs) }

// runQueriesMeantToRun is runQueries for queries that must all run: a
// query both engines refuse fails.
func runQueriesMeantToRun(t *testing.T, qs []testQuery) {
	n := compareQueries(t, qs)
	for _, r := range n.refusals {
		t.Errorf("both engines refused %s", r)
	}
}

func compareQueries(t *testing.T, qs []testQuery) *tally {
	fxTable(t)
	ctx := context.Background()
	var n tally
	for _, q := range qs {
		t.Run(q.name, func(t *testing.T) {
			if d := env.mismatch(ctx, q, &n); d != "" {
				t.Error(d)
			}
		})
	}
	t.Log(n.String())
	return &n
}

// stringQueries check the string functions over fx.s (NULLs, ”, spaces,
// non-ASCII) and fx.p, with column and constant arguments.
var stringQueries = []testQuery{
	{name: "lengths and case", ordered: true, sql: `SELECT id, s, length(s), char_length(s), octet_length(s), lower(s), upper(s), reverse(s) FROM fx ORDER BY id`,
		duck: `SELECT id, s, length(s), char_length(s), strlen(s), lower(s), upper(s), reverse(s) FROM fx ORDER BY id`},
	{name: "trim", ordered: true, sql: `SELECT id, trim(s), ltrim(s), rtrim(s), TRIM('xa ' FROM s), ltrim(s, p), rtrim(s, 'd'), TRIM(LEADING 'x' FROM s), TRIM(BOTH FROM s) FROM fx ORDER BY id`,
		duck: `SELECT id, trim(s), ltrim(s), rtrim(s), trim(s, 'xa '), ltrim(s, p), rtrim(s, 'd'), ltrim(s, 'x'), trim(s) FROM fx ORDER BY id`},
	{name: "left right", ordered: true, sql: `SELECT id, left(s, n), right(s, n), left(s, 3), right(s, -2), left('héllo', n) FROM fx ORDER BY id`},
	{name: "pad", ordered: true, sql: `SELECT id, lpad(s, n + 3, 'xy'), rpad(s, 8, 'é'), lpad(s, n, '-') FROM fx ORDER BY id`,
		duck: `SELECT id, lpad(s, CAST(n + 3 AS INTEGER), 'xy'), rpad(s, 8, 'é'), lpad(s, CAST(n AS INTEGER), '-') FROM fx ORDER BY id`},
	{name: "replace repeat", ordered: true, sql: `SELECT id, replace(s, 'l', 'LL'), replace(s, p, '#'), repeat(s, n), repeat(p, 3) FROM fx ORDER BY id`},
	{name: "positions", ordered: true, sql: `SELECT id, strpos(s, p), position(p IN s), instr(s, 'o'), starts_with(s, p), ends_with(s, p), contains(s, p) FROM fx ORDER BY id`},
	{name: "split_part", ordered: true, sql: `SELECT id, split_part(s, ',', n), split_part(s, p, 2), split_part(s, ' ', -1), split_part(s, '', 2) FROM fx ORDER BY id`},
	{name: "concat", ordered: true, sql: `SELECT id, concat(s, '-', p), concat(s, n, d), concat_ws('|', s, p, n), concat_ws(p, s, s), concat(NULL, s) FROM fx ORDER BY id`},
	{name: "filter on functions", sql: `SELECT count(*), count(s) FROM fx WHERE length(s) > 4 AND lower(s) LIKE '%o%' OR upper(p) = 'A'`},
	{name: "group by function", ordered: true, sql: `SELECT lower(trim(s)) AS k, count(*) FROM fx GROUP BY k ORDER BY k NULLS FIRST`},
	{name: "constants", sql: `
SELECT length('a\nb'), upper('straße'), lpad('7', 3, '0'), repeat('ab', 3), split_part('a,b,c', ',', -1), concat('a', NULL, 1, DATE '2024-01-01'),
       concat_ws(', ', 'x', NULL, 'y'), strpos('héllo', 'l'), left('héllo', -2), right('héllo', 2), reverse('añb'), replace('aaa', 'a', 'bb')`},
	{name: "ilike", ordered: true, sql: `SELECT id, s ILIKE '%WOR%', s NOT ILIKE 'h%', s ILIKE 'ä%' FROM fx ORDER BY id`},
}

// mathQueries check the math functions over fx.x (DOUBLE), fx.i
// (BIGINT, extremes), fx.dm (DECIMAL(12,3)) and fx.n.
var mathQueries = []testQuery{
	{name: "abs sign", ordered: true, sql: `SELECT id, abs(x), abs(dm), abs(n), sign(x), sign(i), sign(dm) FROM fx ORDER BY id`},
	{name: "rounding double", ordered: true, sql: `SELECT id, ceil(x), ceiling(x), floor(x), trunc(x), round(x), round(x, 2), round(x, -1), round(x, n) FROM fx ORDER BY id`,
		duck: `SELECT id, ceil(x), ceiling(x), floor(x), trunc(x), round(x), round(x, 2), round(x, -1), round(x, CAST(n AS INTEGER)) FROM fx ORDER BY id`},
	{name: "rounding decimal", ordered: true, sql: `SELECT id, ceil(dm), floor(dm), trunc(dm), round(dm), round(dm, 1), round(dm, 2), round(dm, 5), round(dm, -2) FROM fx ORDER BY id`},
	{name: "rounding integer", ordered: true, sql: `SELECT id, ceil(n), floor(n), round(n * 37, -1), round(n * 37, -2), round(n, 2) FROM fx ORDER BY id`},
	{name: "double functions", ordered: true, sql: `SELECT id, sqrt(abs(x)), cbrt(x), exp(n), ln(abs(x) + 1), log10(abs(x) + 1), log2(abs(n) + 1), log(abs(x) + 1), power(x, 2), pow(n, 3) FROM fx ORDER BY id`},
	{name: "mod", ordered: true, sql: `SELECT id, mod(i, 7), mod(n, 3) FROM fx WHERE n <> 0 ORDER BY id`},
	{name: "greatest least", ordered: true, sql: `SELECT id, greatest(x, n), least(x, n, dm), greatest(s, p), least(d, ts), greatest(NULL, n), least(i, 5) FROM fx ORDER BY id`},
	{name: "sqrt of negative", sql: `SELECT sqrt(x) FROM fx WHERE x < 0`},
	{name: "ln of zero", sql: `SELECT ln(x) FROM fx WHERE x = 0`},
}

func TestStringFuncs(t *testing.T) { runQueries(t, stringQueries) }
func TestMathFuncs(t *testing.T)   { runQueries(t, mathQueries) }

// dateQueries check the date functions over fx's dates and timestamps.
var dateQueries = []testQuery{
	{name: "date_trunc", ordered: true, sql: `
SELECT id, date_trunc('year', ts), date_trunc('quarter', ts), date_trunc('month', tz), date_trunc('week', ts), date_trunc('day', tms),
       date_trunc('hour', ts), date_trunc('minute', tz), date_trunc('second', ts), date_trunc('millisecond', ts),
       date_trunc('decade', d), date_trunc('century', d), date_trunc('millennium', d), date_trunc('month', d)
FROM fx ORDER BY id`},
	{name: "date_diff", ordered: true, sql: `
SELECT id, date_diff('year', d, ts), date_diff('quarter', ts, tz), date_diff('month', tms, tz), date_diff('week', d, tz),
       date_diff('day', ts, tz), date_diff('hour', ts, tz), datediff('minute', tms, ts), date_diff('second', ts, tms),
       date_diff('millisecond', ts, tz), date_diff('microsecond', tms, ts), date_diff('decade', d, tz), date_diff('century', d, tz)
FROM fx ORDER BY id`},
	{name: "make", ordered: true, sql: `
SELECT id, make_date(year(d), month(d), 1), make_timestamp(year(ts), month(ts), day(ts), hour(ts), minute(ts), second(ts) + 0.25),
       make_timestamp(i), to_timestamp(x)
FROM fx WHERE abs(x) < 1e10 AND abs(i) < 1000000000000 ORDER BY id`},
	{name: "make_timestamp of infinity", sql: `SELECT make_timestamp(i) FROM fx WHERE i = 9223372036854775807`},
	{name: "strftime", ordered: true, sql: `
SELECT id, strftime(ts, '%Y-%m-%d %H:%M:%S.%f'), strftime(tz, '%a %A %b %B %d/%m/%y %I:%M %p %j %w %u %z %Z'),
       strftime(d, '%-d.%-m.%Y %%'), strftime(tms, '%g|%c|%x|%X')
FROM fx ORDER BY id`},
	{name: "group by date_trunc", ordered: true, sql: `SELECT date_trunc('month', ts) AS m, count(*), min(tz) FROM fx GROUP BY m ORDER BY m NULLS FIRST`},
	{name: "filter on date functions", sql: `SELECT count(*) FROM fx WHERE date_diff('day', d, ts) = 0 AND date_trunc('year', ts) >= TIMESTAMP '1990-01-01 00:00:00'`},
	{name: "timestamps in CASE, IN, COALESCE", ordered: true, sql: `
SELECT id, CASE WHEN n > 3 THEN ts ELSE tms END, coalesce(ts, tz), ts IN (TIMESTAMP '2024-02-29 12:00:00', TIMESTAMP '1970-01-01 00:00:00'),
       nullif(tms, ts), greatest(ts, tz), least(d, tms)
FROM fx ORDER BY id`},
	{name: "make_date out of range", sql: `SELECT make_date(2023, 2, 29)`},
	{name: "names, last_day, epochs", ordered: true, sql: `
SELECT id, dayname(ts), monthname(d), last_day(tz), last_day(d), epoch_ms(ts), epoch_us(tms), epoch_ns(tz), epoch_ms(i), epoch(ts)
FROM fx WHERE abs(i) < 100000000000000 ORDER BY id`},
	{name: "strptime", ordered: true, sql: `
SELECT id, strptime(strftime(ts, '%d/%m/%Y %H:%M:%S.%f'), '%d/%m/%Y %H:%M:%S.%f') = ts, strptime(strftime(tms, '%Y-%j %I:%M %p'), '%Y-%j %I:%M %p'),
       strptime(strftime(d, '%A %d %B %Y'), '%A %d %B %Y'), try_strptime(s, '%Y-%m-%d'), try_strptime(p, '%H'), strptime(CAST(d AS VARCHAR) || 'T10:00:00+02:00', '%Y-%m-%dT%H:%M:%S%z')
FROM fx ORDER BY id`},
	{name: "strptime failure", sql: `SELECT strptime('2024-02-30', '%Y-%m-%d')`},
	{name: "random", sql: `SELECT count(*), count(CASE WHEN random() >= 0 AND random() < 1 THEN 1 END), count(DISTINCT random()) > 500 FROM fx`},
}

func TestDateFuncs(t *testing.T) { runQueries(t, dateQueries) }

// conditionalQueries check IS [NOT] DISTINCT FROM, <=>, ifnull, nullif.
var conditionalQueries = []testQuery{
	{name: "distinct from", ordered: true, sql: `
SELECT id, s IS DISTINCT FROM p, s IS NOT DISTINCT FROM p, n IS DISTINCT FROM 3, ts IS NOT DISTINCT FROM tms, NOT (x IS DISTINCT FROM NULL)
FROM fx ORDER BY id`},
	{name: "<=>", ordered: true, sql: `SELECT id, s <=> p FROM fx WHERE n <=> 2 OR n IS NULL ORDER BY id`,
		duck: `SELECT id, s IS NOT DISTINCT FROM p FROM fx WHERE n IS NOT DISTINCT FROM 2 OR n IS NULL ORDER BY id`},
	{name: "ifnull nullif", ordered: true, sql: `SELECT id, ifnull(s, p), nullif(n, 3), ifnull(x, dm), nullif(s, '') FROM fx ORDER BY id`},
	{name: "casts to varchar", ordered: true, sql: `SELECT id, CAST(n AS VARCHAR), CAST(p AS INTEGER), CAST(i AS TEXT), CAST(n AS BIGINT) FROM fx WHERE p = '' OR p IS NULL ORDER BY id`},
}

func TestConditionals(t *testing.T) { runQueries(t, conditionalQueries) }

// regexpQueries check the regexp functions (RE2 syntax in both engines).
var regexpQueries = []testQuery{
	{name: "regexp", ordered: true, sql: `
SELECT id, regexp_matches(s, 'o.?w'), regexp_matches(s, '^h', 'i'), regexp_full_match(s, '[a-z ]+'),
       regexp_replace(s, '[aeiou]', '_'), regexp_replace(s, '([a-z])([a-z])', '\2\1', 'g'), regexp_replace(s, 'L', '$', 'gi'),
       regexp_extract(s, '([a-z]+) ([a-z]+)', 2), regexp_extract(s, '\d+'), regexp_extract(s, '(\p{L})', 1)
FROM fx ORDER BY id`},
	{name: "regexp filter", sql: `SELECT count(*) FROM fx WHERE regexp_matches(s, 'e.*o') AND NOT regexp_matches(p, 'x')`},
}

func TestRegexpFuncs(t *testing.T) { runQueries(t, regexpQueries) }

// aggQueries check the aggregates beyond count, sum, min, max and avg.
var aggQueries = []testQuery{
	{name: "variance family", ordered: true, sql: `
SELECT n, stddev(x), stddev_samp(i), stddev_pop(dm), variance(x), var_samp(n), var_pop(x), std(dm), count(*)
FROM fx WHERE abs(x) < 1e6 GROUP BY n ORDER BY n NULLS FIRST`,
		duck: `
SELECT n, stddev(x), stddev_samp(i), stddev_pop(dm), variance(x), var_samp(n), var_pop(x), stddev(dm), count(*)
FROM fx WHERE abs(x) < 1e6 GROUP BY n ORDER BY n NULLS FIRST`},
	{name: "variance of one group", sql: `SELECT stddev(x), var_pop(i), stddev_pop(n) FROM fx WHERE id < 3`},
	{name: "bool and count_if", ordered: true, sql: `
SELECT n, bool_and(x > 0), bool_or(s LIKE 'h%'), count_if(x > 0), count_if(NULL), any_value(CASE WHEN n > 100 THEN 1 END)
FROM fx GROUP BY n ORDER BY n NULLS FIRST`},
	// any_value is the first non-NULL value in row order (fx is one row group in DuckDB)
	{name: "any_value", ordered: true, sql: `
SELECT n, any_value(s), any_value(x), any_value(ts), any_value(p) FILTER (WHERE id > 3), any_value(NULL) FROM fx GROUP BY n ORDER BY n NULLS FIRST`},
	{name: "any_value over windows", ordered: true, sql: `
SELECT id, any_value(s) OVER (PARTITION BY n), any_value(p) OVER (ORDER BY id ROWS BETWEEN CURRENT ROW AND 2 FOLLOWING),
       any_value(x) OVER (PARTITION BY n ORDER BY id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING EXCLUDE CURRENT ROW)
FROM fx ORDER BY id`},
	{name: "aggregates over a join", ordered: true, sql: `
SELECT a.n, stddev(b.x), var_pop(b.n), bool_or(b.s = a.s), count_if(b.i > 0) FROM fx a JOIN fx b ON a.id = b.id + 1
WHERE abs(b.x) < 1e6 GROUP BY a.n ORDER BY a.n NULLS FIRST`},
	{name: "arg_min arg_max", ordered: true, sql: `
SELECT n, arg_min(s, id), arg_max(s, id), arg_min(ts, -id), max_by(x, id), min_by(dm, id), arg_max(id, ts), arg_min(d, tz), argmax(p, id)
FROM fx GROUP BY n ORDER BY n NULLS FIRST`},
	{name: "arg_min over a join", ordered: true, sql: `
SELECT a.p, arg_min(b.s, b.id), arg_max(b.tz, b.id) FROM fx a JOIN fx b ON a.id = b.id GROUP BY a.p ORDER BY a.p NULLS FIRST`},
	{name: "aggregates with HAVING", ordered: true, sql: `
SELECT p, count_if(n > 2) AS c FROM fx GROUP BY p HAVING bool_or(n > 8) ORDER BY p NULLS FIRST`},
}

func TestAggregates(t *testing.T) { runQueries(t, aggQueries) }
