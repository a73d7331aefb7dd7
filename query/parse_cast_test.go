package query

import (
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/cache"
)

// TestRewriteCasts: x::T and CAST to the types the grammar lacks become
// casts it takes, for every operand that can end before ::, never inside
// strings or quoted names, and read back as CAST(x AS T) (castText).
func TestRewriteCasts(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`SELECT x::INTEGER FROM t`, `SELECT quiver$cast(x, 'INTEGER') FROM t`},
		{`SELECT t.x :: int, "a b"::BIGINT FROM t`, `SELECT quiver$cast(t.x , 'int'), CAST("a b" AS BIGINT) FROM t`},
		{`SELECT '2024-01-02'::DATE + 1, -1::INT, 1.5::DOUBLE`, `SELECT CAST('2024-01-02' AS DATE) + 1, -quiver$cast(1, 'INT'), CAST(1.5 AS DOUBLE)`},
		{`SELECT (a + b)::VARCHAR, f(x)::TEXT, count(*)::DOUBLE PRECISION`, `SELECT CAST((a + b) AS VARCHAR), CAST(f(x) AS TEXT), quiver$cast(count(*), 'DOUBLE PRECISION')`},
		{`SELECT x::INT::VARCHAR`, `SELECT CAST(quiver$cast(x, 'INT') AS VARCHAR)`},
		{`SELECT CASE WHEN a THEN 1 ELSE 2 END::SMALLINT`, `SELECT quiver$cast(CASE WHEN a THEN 1 ELSE 2 END, 'SMALLINT')`},
		{`SELECT l[1]::INT, ?::NUMERIC(10, 2)`, `SELECT quiver$cast(l[1], 'INT'), quiver$cast(?, 'NUMERIC(10, 2)')`},
		{`SELECT CAST(x AS BOOLEAN), TRY_CAST(y AS int), CAST(z AS DECIMAL(5,2))`, `SELECT quiver$cast(x , 'BOOLEAN'), quiver$try_cast(y , 'int'), CAST(z AS DECIMAL(5,2))`},
		{`SELECT CAST(CAST(x AS INT) AS VARCHAR)`, `SELECT CAST(quiver$cast(x , 'INT') AS VARCHAR)`},
		{`SELECT '::', "a::b", x FROM t WHERE s = 'CAST(x AS INT)'`, `SELECT '::', "a::b", x FROM t WHERE s = 'CAST(x AS INT)'`},
		{`SELECT lowercase(x) FROM t`, `SELECT lowercase(x) FROM t`},
	} {
		var edits []textEdit
		got, err := rewriteCasts(tc.in, tc.in, &edits)
		if err != nil || got != tc.want {
			t.Errorf("%s:\n got %s (%v)\nwant %s", tc.in, got, err, tc.want)
		}
	}
	for _, tc := range []struct {
		in   string
		kind error
		want string
	}{
		{`SELECT ::INT`, ErrSyntax, "line 1, column 8: :: without a value"},
		{`SELECT x::`, ErrSyntax, ":: without a type"},
		{`SELECT x::INT[]`, ErrUnsupported, "casts to list types"},
		{"SELECT 1,\n  'x'::UUID", ErrUnsupported, "line 2, column 3: CAST to UUID"},
		{`SELECT CAST('x' AS GEOMETRY)`, ErrUnsupported, "CAST to GEOMETRY"},
		{`SELECT 1::DECIMAL(40, 2)`, ErrInvalid, "precision is 1 to 38"},
	} {
		_, err := run(t, newCastEngine(t, nil), tc.in)
		if err == nil || !errors.Is(err, tc.kind) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %v containing %q", tc.in, err, tc.kind, tc.want)
		}
	}
	for in, want := range map[string]string{
		`quiver$cast(quiver$cast(x, 'INT'), 'BOOLEAN') + 1`: `CAST(CAST(x AS INT) AS BOOLEAN) + 1`,
		`f(quiver$try_cast(s, 'SMALLINT'), 2)`:              `f(TRY_CAST(s AS SMALLINT), 2)`,
	} {
		if got := castText(in); got != want {
			t.Errorf("castText(%s) = %s, want %s", in, got, want)
		}
	}
}

// TestCastsByName: the casts to DuckDB's type names compute as DuckDB's:
// integer ranges checked (TRY_CAST: NULL), DECIMAL's default scale,
// booleans, columns named as written.
func TestCastsByName(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	e := newCastEngine(t, mem)
	rows, err := run(t, e, `SELECT 127::TINYINT, TRY_CAST(128 AS TINYINT), 65535::USMALLINT, TRY_CAST(-1 AS UINTEGER),
		'1.2345'::DECIMAL, 1::BOOLEAN, CAST('true' AS BOOL), '42'::INT + 1, (2)::SMALLINT::VARCHAR || 'x'`)
	want := "127|NULL|65535|NULL|1.235|true|true|43|2x"
	if err != nil || len(rows) != 1 || rows[0] != want {
		t.Errorf("got %q (%v), want %s", rows, err, want)
	}
	// a view's text is restored from its plan and parsed again: the
	// grammar's stand-ins for INTERVAL, BLOB and TIMESTAMPTZ must survive
	exec(t, e, `CREATE VIEW v AS SELECT CAST('1 day' AS INTERVAL) AS i, TIMESTAMPTZ '2024-01-01 00:00:00+02' AS z,
		CAST('ab' AS BLOB) AS b, 3::SMALLINT AS s, CAST(1.5 AS DECIMAL) AS d`)
	if rows, err := run(t, e, `SELECT i = INTERVAL '24 hours', z = TIMESTAMPTZ '2023-12-31 22:00:00+00', b = 'ab'::BLOB, s, d FROM v`); err != nil || len(rows) != 1 || rows[0] != "true|true|true|3|1.500" {
		t.Errorf("view: %q, %v", rows, err)
	}
	for _, sql := range []string{`SELECT 128::TINYINT`, `SELECT CAST(2147483648 AS INTEGER)`, `SELECT (-1)::UTINYINT`} {
		if _, err := run(t, e, sql); err == nil || !strings.Contains(err.Error(), "out of its range") {
			t.Errorf("%s: %v, want an out-of-range error", sql, err)
		}
	}
}

// newCastEngine is an engine over an empty cache (mem nil: Go's allocator).
func newCastEngine(t *testing.T, mem memory.Allocator) *Engine {
	t.Helper()
	if mem == nil {
		mem = memory.NewGoAllocator()
	}
	c, err := cache.New(cache.Options{Alloc: mem})
	if err != nil {
		t.Fatal(err)
	}
	return New(c, Options{Alloc: mem})
}

// FuzzCastRewrite: any text goes through the VALUES, cast, BY ALL,
// * EXCLUDE and WITHIN GROUP rewrites without
// panicking, every offset of the result maps into the input, and parsing
// it does not panic.
func FuzzCastRewrite(f *testing.F) {
	for _, s := range []string{
		"SELECT x::INT::VARCHAR, CAST(y AS BOOLEAN), TRY_CAST(z AS SMALLINT) FROM t",
		"SELECT (a)::DOUBLE PRECISION, l[1]::INT, CASE WHEN a THEN 1 END::INT, ?::NUMERIC(3,1)",
		"SELECT '::'::TEXT, \"x\"::INT", "::", "x::", "CAST(", "cast(x as", "a::b::c::d", "]::INT", "END::INT",
		"SELECT CAST(CAST(x AS INT) AS INT)", "SELECT 1.5e3::INT, -1::INT", "try_cast(1 AS int[])",
		"SELECT a, count(*) FROM t GROUP BY ALL ORDER BY ALL DESC NULLS FIRST", "order by all", "GROUP BY'ALL'",
		"VALUES (1, 'a'), (2, NULL)", "SELECT * FROM (VALUES (1::INT), (2)) v(x)", "(values(", "values (1),", "(VALUES (1)) AS v(",
		"SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x DESC) FROM t", "percentile_disc(1) within group (", "percentile_cont() WITHIN GROUP ()",
		"SELECT * EXCLUDE (a, b) FROM t", "t.* exclude", "* EXCLUDE (", "* EXCLUDE ()", "*exclude x.y.z",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		var edits []textEdit
		got, err := rewriteValues(sql, sql, &edits) // parse_values.go
		if err != nil {
			return
		}
		if got, err = rewriteCasts(got, sql, &edits); err != nil {
			return
		}
		got = rewriteByAll(got, &edits)       // parse_byall.go
		got = rewriteStarExclude(got, &edits) // parse_star.go
		if got, err = rewriteWithinGroup(got, sql, &edits); err != nil {
			return
		}
		for i := 0; i <= len(got); i++ {
			if o := originalOffset(i, edits); o < 0 || o > len(sql) {
				t.Fatalf("offset %d of %q maps to %d, outside %q", i, got, o, sql)
			}
		}
		_, _ = parseSQL(sql) // must not panic
	})
}
