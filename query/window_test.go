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
