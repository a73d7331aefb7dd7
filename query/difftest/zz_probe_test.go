//go:build duckdb

package difftest

import (
	"context"
	"testing"
)

func TestZZDuck(t *testing.T) {
	for _, q := range []string{
		"SELECT substring('hello', 0, 2), substring('hello', 0, 1), substring('hello', -1, 3), substring('hello', -10, 3), substring('hello', 3, -2), substring('hello', -2, -2), substring('hello', 0), substring('hello', -2), substring('hello', 10), substring('hello', 2, 0)",
		"SELECT substring('héllo', -10, 3), substring('héllo', 2, 2), substring('héllo', -2, -2), substring('héllo', -1, 3), substring('héllo', 3, -2), substring('héllo', 0, 2), substring('héllo', -7, 3)",
		"SELECT substring(s, -10, 3), s FROM (SELECT 'h' || chr(233) || 'llo' AS s)",
		"SELECT substring('hello', 2, -5), substring('hello', 1, 5000000000)",
		"SELECT substring('hello', 5000000000, 1)",
		"SELECT substring('hello' FROM 2 FOR 3), substr('hello', 2, 3), substr('hello', 2)",
		"SELECT extract(dow FROM DATE '2024-01-07'), extract(isodow FROM DATE '2024-01-07'), extract(week FROM DATE '2024-12-30'), extract(week FROM DATE '2021-01-03'), extract(doy FROM DATE '2024-12-31'), extract(quarter FROM DATE '2024-05-01'), extract(yearweek FROM DATE '2021-01-03'), extract(isoyear FROM DATE '2021-01-03')",
		"SELECT typeof(extract(year FROM DATE '2024-01-07')), typeof(date_part('year', DATE '2024-01-07')), typeof(year(DATE '2024-01-07'))",
		"SELECT extract(year FROM DATE '-0044-03-15'), extract(decade FROM DATE '2024-03-15'), extract(century FROM DATE '2024-03-15'), extract(millennium FROM DATE '2000-03-15'), extract(century FROM DATE '-0044-03-15'), extract(epoch FROM DATE '2024-03-15'), extract(era FROM DATE '-0044-03-15')",
		"SELECT dayofweek(DATE '2024-01-07'), dayofmonth(DATE '2024-01-07'), weekday(DATE '2024-01-07'), weekofyear(DATE '2024-01-07'), dayofyear(DATE '2024-01-07'), quarter(DATE '2024-01-07')",
		"SELECT extract(year FROM DATE '-0044-03-15'), year(DATE '0000-03-15'),  extract(decade FROM DATE '-0044-03-15'), extract(millennium FROM DATE '-0044-03-15'), extract(century FROM DATE '0000-03-15'), extract(century FROM DATE '0001-03-15')",
		"SELECT 'a\\b' LIKE 'a\\b', 'a%' LIKE 'a\\%', 'a_c' LIKE 'a\\_c' ESCAPE '\\'",
	} {
		rows, err := env.db.QueryContext(context.Background(), q)
		if err != nil {
			t.Logf("%s: %v", q, err)
			continue
		}
		got, err := readSQL(rows)
		rows.Close()
		t.Logf("%s\n   => %v %v", q, got, err)
	}
}
