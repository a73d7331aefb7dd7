package query

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestFullJoin: FULL [OUTER] JOIN keeps the rows of both sides, through
// WITH (planned again from restored text) and with a condition on one
// side in ON; `t FULL JOIN u` is never t aliased FULL; a STRAIGHT_JOIN
// the user writes and FULL JOIN … USING are refused; text in strings and
// quoted names is left alone.
func TestFullJoin(t *testing.T) {
	e, _ := newEngine(t, 60, 16)
	for _, tc := range []struct {
		sql  string
		want []string
	}{
		{`SELECT a.id, b.id FROM (SELECT * FROM orders WHERE id < 3) a FULL JOIN (SELECT * FROM orders WHERE id BETWEEN 2 AND 3) b ON a.id = b.id ORDER BY 1, 2`,
			[]string{"1|NULL", "2|2", "NULL|3"}},
		{`SELECT a.id, b.id FROM (SELECT * FROM orders WHERE id < 3) a full outer join (SELECT * FROM orders WHERE id BETWEEN 2 AND 3) b ON a.id = b.id AND b.id > 2 ORDER BY 1, 2`,
			[]string{"1|NULL", "2|NULL", "NULL|2", "NULL|3"}},
		// No alias: orders is orders, not an alias FULL.
		{`SELECT count(*) FROM orders FULL JOIN orders b ON orders.id = b.id + 100`, []string{"120"}},
		{`WITH x AS (SELECT a.id AS i FROM orders a FULL JOIN orders b ON a.id = b.id + 59) SELECT count(*), count(p.i) FROM x p, x q WHERE p.i = q.i`,
			[]string{"60|60"}}, // 60 ids of a, and 59 rows of b unmatched (NULL i)
		{`SELECT 'a full join b', "full join" FROM (SELECT 1 AS "full join") t`, []string{"a full join b|1"}},
	} {
		got, _, err := runOrdered(t, e, tc.sql)
		if err != nil {
			t.Errorf("%s: %v", tc.sql, err)
			continue
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s:\n got %v\nwant %v", tc.sql, got, tc.want)
		}
	}
	for _, tc := range []struct{ sql, msg string }{
		{`SELECT count(*) FROM orders a STRAIGHT_JOIN orders b ON a.id = b.id`, "STRAIGHT_JOIN"},
		{`SELECT count(*) FROM orders a FULL JOIN orders b USING (id)`, "FULL JOIN … USING"},
		{`SELECT count(*) FROM orders a FULL JOIN orders b`, "needs ON"},
	} {
		_, _, err := runOrdered(t, e, tc.sql)
		var qe *Error
		if !errors.As(err, &qe) || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: %v, want an error naming %q", tc.sql, err, tc.msg)
		}
	}
}
