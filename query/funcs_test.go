package query

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/cache"
)

// itemNames mixes ASCII and multi-byte text, TPC-H's LIKE targets and a
// NULL ("" is an empty string, nil a NULL).
var itemNames = []any{
	"héllo", "PROMO BRUSHED BRASS", "forest green", nil, "日本語テキスト", "",
	"carefully special ironic requests", "Customer x Complaints", "STANDARD BRASSY", "ab", "forest", "green forest",
}

var itemModes = []string{"AIR", "MAIL", "REG AIR", "TRUCK", "SHIP", "FOB", "RAIL"}

// itemsEngine is an engine over "items", n rows in batches of 4 (so some
// batches are all ASCII and some not):
//
//	id int64 (1..n), name utf8 (itemNames, cycling), mode utf8 (ASCII),
//	k int32 (-3..4), ship date32 (NULL every 9th), ship64 date64
func itemsEngine(t *testing.T, n int) (*Engine, []time.Time) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "mode", Type: arrow.BinaryTypes.String},
		{Name: "k", Type: arrow.PrimitiveTypes.Int32},
		{Name: "ship", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "ship64", Type: arrow.FixedWidthTypes.Date64},
	}, nil)
	var recs []arrow.RecordBatch
	var days []time.Time
	for start := 0; start < n; start += 4 {
		b := array.NewRecordBuilder(mem, schema)
		for i := start; i < min(start+4, n); i++ {
			b.Field(0).(*array.Int64Builder).Append(int64(i + 1))
			appendOr(b.Field(1), itemNames[i%len(itemNames)] == nil, func(f array.Builder) {
				f.(*array.StringBuilder).Append(itemNames[i%len(itemNames)].(string))
			})
			b.Field(2).(*array.StringBuilder).Append(itemModes[i%len(itemModes)])
			b.Field(3).(*array.Int32Builder).Append(int32(i%8 - 3))
			// 1992-01-01 plus 61 days a row: every month, weekday and
			// year end comes by
			day := time.Date(1992, 1, 1+61*i, 0, 0, 0, 0, time.UTC)
			days = append(days, day)
			appendOr(b.Field(4), i%9 == 8, func(f array.Builder) {
				f.(*array.Date32Builder).Append(arrow.Date32FromTime(day))
			})
			b.Field(5).(*array.Date64Builder).Append(arrow.Date64FromTime(day))
		}
		recs = append(recs, b.NewRecordBatch())
		b.Release()
	}
	c, err := cache.New(cache.Options{Alloc: mem})
	if err != nil {
		t.Fatal(err)
	}
	putTable(t, c, "items", recs)
	for _, r := range recs {
		r.Release()
	}
	return New(c, Options{Alloc: mem, MemoryLimit: 64 << 20}), days
}

func TestExtractQuery(t *testing.T) {
	const n = 60
	e, days := itemsEngine(t, n)
	got, err := run(t, e, `SELECT id, extract(year FROM ship), EXTRACT(MONTH FROM ship), extract(day from ship),
		extract(quarter from ship), extract(week from ship), date_part('dow', ship), date_part('DOY', ship),
		year(ship64), dayofweek(ship64), isodow(ship64), extract(year from ship) * 100 + month(ship)
		FROM items ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for i, d := range days {
		_, week := d.ISOWeek()
		isodow := (int(d.Weekday())+6)%7 + 1
		own := fmt.Sprintf("%d|%d|%d|%d|%d|%d|%d", d.Year(), d.Month(), d.Day(), (d.Month()+2)/3, week, d.Weekday(), d.YearDay())
		if i%9 == 8 {
			own = "NULL|NULL|NULL|NULL|NULL|NULL|NULL"
		}
		ym := fmt.Sprint(d.Year()*100 + int(d.Month()))
		if i%9 == 8 {
			ym = "NULL"
		}
		want = append(want, fmt.Sprintf("%d|%s|%d|%d|%d|%s", i+1, own, d.Year(), d.Weekday(), isodow, ym))
	}
	if i := firstDiff(got, want); i < max(len(got), len(want)) {
		t.Errorf("row %d: got %s, want %s", i, at(got, i), at(want, i))
	}

	// grouped by, filtered on, ordered by a year
	counts := map[int]int{}
	for i, d := range days {
		if i%9 != 8 && d.Year() != 1993 {
			counts[d.Year()]++
		}
	}
	want = want[:0]
	for y := 1992; y <= 2001; y++ {
		if counts[y] > 0 {
			want = append(want, fmt.Sprintf("%d|%d", y, counts[y]))
		}
	}
	for _, sql := range []string{
		`SELECT extract(year from ship) AS y, count(*) FROM items WHERE extract(year from ship) <> 1993 GROUP BY y ORDER BY y`,
		`SELECT extract(year from ship), count(*) FROM items WHERE year(ship) <> 1993 GROUP BY extract(year from ship) ORDER BY 1`,
	} {
		got, err := run(t, e, sql)
		if err != nil || strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%s:\n got %v, %v\nwant %v", sql, got, err, want)
		}
	}
	got, err = run(t, e, `SELECT extract(year from NULL), extract(month from DATE '1995-03-15'), date_part('isoyear', DATE '2021-01-03')`)
	if err != nil || strings.Join(got, " ") != "NULL|3|2020" {
		t.Errorf("constants: %v, %v", got, err)
	}
}

// substrRunes is substring(s, start, length) for start ≥ 1, length ≥ 0
// over valid UTF-8: slicing runes.
func substrRunes(s string, start, length int) string {
	r := []rune(s)
	lo := min(start-1, len(r))
	return string(r[lo:min(lo+length, len(r))])
}

func TestSubstringQuery(t *testing.T) {
	const n = 40
	e, _ := itemsEngine(t, n)
	got, err := run(t, e, `SELECT id, substring(name FROM 1 FOR 2), substring(name, 3), substr(name, 2, 3),
		substring(mode from 1 for 2), substring(mode, k, 3), substring(name, 0, 2), substring(name, -3, 2)
		FROM items ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for i := range n {
		mode := itemModes[i%len(itemModes)]
		k := i%8 - 3
		var byK string
		switch {
		case k >= 1:
			byK = substrRunes(mode, k, 3)
		case k == 0:
			byK = mode[:min(2, len(mode))] // one before the first: two characters
		default: // from the end, three of them
			byK = mode[len(mode)+k : min(len(mode), len(mode)+k+3)]
		}
		row := fmt.Sprintf("%d|NULL|NULL|NULL|%s|%s|NULL|NULL", i+1, mode[:2], byK)
		if s, ok := itemNames[i%len(itemNames)].(string); ok {
			r := []rune(s)
			last := ""
			if len(r) >= 3 {
				last = string(r[len(r)-3 : len(r)-1])
			} else if len(r) == 2 {
				last = string(r[:1])
			}
			row = fmt.Sprintf("%d|%s|%s|%s|%s|%s|%s|%s", i+1, substrRunes(s, 1, 2), substrRunes(s, 3, len(r)),
				substrRunes(s, 2, 3), mode[:2], byK, substrRunes(s, 1, 1), last)
		}
		want = append(want, row)
	}
	if i := firstDiff(got, want); i < max(len(got), len(want)) {
		t.Errorf("row %d: got %s, want %s", i, at(got, i), at(want, i))
	}

	// TPC-H Q22's country codes: grouped by, filtered on with IN
	got, err = run(t, e, `SELECT substring(mode FROM 1 FOR 2) AS code, count(*) FROM items
		WHERE substring(mode FROM 1 FOR 2) IN ('AI', 'RE', 'TR', 'XX') GROUP BY code ORDER BY code`)
	if err != nil || strings.Join(got, " ") != "AI|6 RE|6 TR|6" {
		t.Errorf("grouped substring: %v, %v", got, err)
	}
	// parameters: planned with NULLs, then bound
	got, _, err = runOrdered(t, e, `SELECT substring(name, ?, ?), date_part(?, ship) FROM items WHERE id = 1`, int64(2), int64(3), "month")
	if err != nil || strings.Join(got, " ") != "éll|1" {
		t.Errorf("with parameters: %v, %v", got, err)
	}
	got, err = run(t, e, `SELECT substring('héllo wörld' FROM 8 FOR 3), substr('abc', 0), substring(NULL, 1, 2), substring('abc', NULL)`)
	if err != nil || strings.Join(got, " ") != "örl|abc|NULL|NULL" {
		t.Errorf("constants: %v, %v", got, err)
	}
}

// TestLikeQuery runs TPC-H's LIKE patterns through the planner, where a
// prefix pattern also prunes batches by statistics.
func TestLikeQuery(t *testing.T) {
	e, _ := itemsEngine(t, 24)
	for _, tc := range []struct {
		where string
		want  string
	}{
		{"name LIKE '%BRASS'", "2 14"},
		{"name LIKE 'forest%'", "3 11 15 23"},
		{"name LIKE '%green%'", "3 12 15 24"},
		{"name LIKE '%special%requests%'", "7 19"},
		{"name LIKE 'PROMO%'", "2 14"},
		{"name LIKE '%Customer%Complaints%'", "8 20"},
		{"name NOT LIKE '%Customer%Complaints%' AND id < 10", "1 2 3 5 6 7 9"},
		{"name LIKE '__'", "10 22"},
		{"name LIKE '_é%'", "1 13"},
		{"name LIKE '%a%b%'", "10 22"},
		{"name LIKE ''", "6 18"},
	} {
		sql := "SELECT id FROM items WHERE " + tc.where + " ORDER BY id"
		got, err := run(t, e, sql)
		if err != nil || strings.Join(got, " ") != tc.want {
			t.Errorf("%s: %v, %v; want %s", sql, got, err, tc.want)
		}
	}
}

func TestFuncErrors(t *testing.T) {
	e, _ := itemsEngine(t, 8)
	for _, tc := range []struct {
		sql  string
		kind error
		want string
	}{
		{"SELECT extract(day_hour FROM ship) FROM items", ErrUnsupported, "EXTRACT(DAY_HOUR FROM …): the fields are YEAR"},
		{"SELECT extract(year FROM name) FROM items", ErrInvalid, "no function date_part(varchar, varchar); candidates: date_part(varchar, date|timestamp)"},
		{"SELECT date_part('fortnight', ship) FROM items", ErrInvalid, "unknown date part 'fortnight'"},
		{"SELECT date_part(mode, ship) FROM items", ErrInvalid, "date_part: the part must be a string constant"},
		{"SELECT date_part('year') FROM items", ErrInvalid, "no function date_part(varchar); candidates: date_part(varchar, date|timestamp)"},
		{"SELECT year(ship, 1) FROM items", ErrInvalid, "no function year(date, bigint); candidates: year(date|timestamp)"},
		{"SELECT substring(id, 1) FROM items", ErrInvalid, "no function substring(bigint, bigint); candidates: substring(varchar, bigint), substring(varchar, bigint, bigint)"},
		{"SELECT substring(name, '1') FROM items", ErrInvalid, "no function substring(varchar, varchar)"},
		{"SELECT week() FROM items", ErrInvalid, "no function week(); candidates: week(date|timestamp)"},
		{"SELECT substrng(name, 1) FROM items", ErrUnsupported, "function substrng (did you mean substring?)"},
		{"SELECT frobnicate(name) FROM items", ErrUnsupported, "line 1, column 8: function frobnicate"},
		{"SELECT left(name) FROM items", ErrInvalid, "no function left(varchar); candidates: left(varchar, bigint)"},
		{"SELECT sqrt(0 - id) FROM items", ErrExec, "sqrt: cannot take the square root of a negative number (-1)"},
		{"SELECT regexp_matches(name, '(') FROM items", ErrInvalid, "regexp_matches: invalid pattern '('"},
		{"SELECT lpad(name, 3, '') FROM items", ErrExec, "lpad: the padding is empty but"},
		{"SELECT date_trunc(mode, ship) FROM items", ErrInvalid, "date_trunc: the part must be a string constant"},
		{"SELECT arg_min(name) FROM items", ErrInvalid, "arg_min takes two arguments: the value and what to order by"},
		{"SELECT stddev(name) FROM items", ErrInvalid, "stddev_samp needs a number, got utf8 (name)"},
		{"SELECT bool_and(id) FROM items", ErrInvalid, "bool_and needs a boolean, got int64 (id)"},
		{"SELECT id FROM items WHERE\n  substring(name, 1, 2.5) = 'a'", ErrInvalid, "line 2, column 3"},
	} {
		_, err := run(t, e, tc.sql)
		if err == nil || !errors.Is(err, tc.kind) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v; want %v containing %q", tc.sql, err, tc.kind, tc.want)
		}
	}
}
