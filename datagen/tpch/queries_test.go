package tpch

import (
	"strconv"
	"strings"
	"testing"
)

func TestQueries(t *testing.T) {
	qs := Queries()
	if len(qs) != NumQueries {
		t.Fatalf("%d queries", len(qs))
	}
	limits := map[int]string{2: "LIMIT 100", 3: "LIMIT 10", 10: "LIMIT 20", 18: "LIMIT 100", 21: "LIMIT 100"}
	for i, q := range qs {
		n := i + 1
		if want := "-- TPC-H Q" + strconv.Itoa(n) + ","; !strings.HasPrefix(q, want) {
			t.Errorf("Q%d begins %q, want %q", n, q[:min(len(q), 20)], want)
		}
		limit := ""
		if j := strings.LastIndex(q, "LIMIT"); j >= 0 {
			limit = strings.TrimSpace(q[j:])
		}
		if limit != limits[n] {
			t.Errorf("Q%d ends with %q, want %q", n, limit, limits[n])
		}
		if body := sqlBody(q); strings.Contains(body, ";") || strings.Contains(body, "--") {
			t.Errorf("Q%d has a semicolon: one statement each", n)
		}
	}
	for _, n := range []int{0, 23} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(r.(string), "1 to 22") {
					t.Errorf("Query(%d) did not panic naming the range: %v", n, r)
				}
			}()
			Query(n)
		}()
	}
}

// sqlBody is q without its comment lines.
func sqlBody(q string) string {
	var b strings.Builder
	for _, l := range strings.Split(q, "\n") {
		if !strings.HasPrefix(l, "--") {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}
