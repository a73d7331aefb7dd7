package query

import (
	"strings"
	"testing"
)

func TestWindowSmoke(t *testing.T) {
	e, _ := itemsEngine(t, 12)
	got, _, err := runOrdered(t, e, `SELECT id, k, row_number() OVER (PARTITION BY k % 2 ORDER BY id), rank() OVER (ORDER BY k), sum(id) OVER (PARTITION BY k % 2 ORDER BY id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING), lag(id, 1, -1) OVER (ORDER BY id), max(name) OVER (ORDER BY id ROWS 2 PRECEDING), count(*) OVER () FROM items ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + strings.Join(got, "\n"))
}

func TestWindowDebug(t *testing.T) {
	e, _ := itemsEngine(t, 12)
	for _, q := range []string{
		`SELECT id, sum(CAST(k AS DOUBLE)) OVER (PARTITION BY id % 3, id % 3), rank() OVER (PARTITION BY k>0 ORDER BY name DESC NULLS LAST) FROM items ORDER BY id`,
		`SELECT id, sum(CAST(k AS DOUBLE)) OVER (PARTITION BY id % 3, id % 3) FROM items ORDER BY id`,
		`EXPLAIN SELECT id, sum(CAST(k AS DOUBLE)) OVER (PARTITION BY id % 3, id % 3), rank() OVER (PARTITION BY k>0 ORDER BY name DESC NULLS LAST) FROM items ORDER BY id`,
	} {
		got, _, err := runOrdered(t, e, q)
		if err != nil {
			t.Fatal(err)
		}
		t.Log("\n" + strings.Join(got, "\n"))
	}
}
