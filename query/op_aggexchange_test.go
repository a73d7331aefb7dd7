package query

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestAggregateExchange: GROUP BY through the hash exchange answers as
// the per-worker tables do, for one and several keys, NULL keys, strings
// and every aggregate; on 1, 2 and 3 workers (a fanout of 1, 2 and 4);
// memory is released on success and when the limit is passed.
func TestAggregateExchange(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	c, _ := testTable(t, mem, 3000, 64)
	plain := New(c, Options{Alloc: mem})
	for _, workers := range []int{1, 2, 3} {
		ex := New(c, Options{Alloc: mem, Workers: workers, Exchange: true})
		for _, sql := range []string{
			`SELECT grp, count(*), sum(qty), min(price), max(day), avg(ratio) FROM orders GROUP BY grp`,
			`SELECT id % 97 AS k, grp, count(qty), sum(id) FROM orders GROUP BY id % 97, grp`,
			`SELECT qty, count(DISTINCT grp) FROM orders WHERE id > 100 GROUP BY qty HAVING count(*) > 2`,
			`SELECT id, sum(qty) FROM orders GROUP BY id`,
			`SELECT grp, count(*) FROM orders WHERE id < 0 GROUP BY grp`,
			`SELECT grp, first(id), last(qty), count(*) FILTER (WHERE qty > 10), approx_count_distinct(qty) FROM orders GROUP BY grp`,
			`SELECT grp, median(qty), string_agg(CAST(id AS VARCHAR), ',' ORDER BY id) FROM orders WHERE id < 50 GROUP BY grp`,
		} {
			want, _, err := runOrdered(t, plain, sql+" ORDER BY 1, 2")
			if err != nil {
				t.Fatal(err)
			}
			got, _, err := runOrdered(t, ex, sql+" ORDER BY 1, 2")
			if err != nil {
				t.Fatalf("%d workers: %s: %v", workers, sql, err)
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%d workers: %s:\n got %v\nwant %v", workers, sql, got, want)
			}
		}
	}
	tight := New(c, Options{Alloc: mem, Workers: 2, Exchange: true, MemoryLimit: 4 << 10})
	_, _, err := runOrdered(t, tight, `SELECT id, sum(qty) FROM orders GROUP BY id`)
	if !errors.Is(err, ErrMemory) {
		t.Errorf("3,000 groups under 4 KiB: %v, want ErrMemory", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if r, err := New(c, Options{Alloc: mem, Workers: 2, Exchange: true}).Query(ctx, `SELECT id, sum(qty) FROM orders GROUP BY id`); err == nil {
		for r.Next() {
		}
		if r.Err() == nil {
			t.Error("a cancelled query ran to the end")
		}
		r.Release()
	}
}

// TestAggregateExchangeExplain: EXPLAIN ANALYZE of a GROUP BY through the
// exchange says what it moved: its partitions, every input row once,
// bytes, and the batches sent. With a filter that leaves one key, its
// one row is gathered into one batch, whatever the batches in.
func TestAggregateExchangeExplain(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	c, _ := testTable(t, mem, 3000, 64)
	e := New(c, Options{Alloc: mem, Workers: 3, Exchange: true})
	rows, err := run(t, e, `EXPLAIN ANALYZE SELECT id, sum(qty) FROM orders GROUP BY id`)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(rows, "\n")
	if !strings.Contains(text, "exchanged to 4 partitions: 3000 rows,") || !strings.Contains(text, "largest partition") {
		t.Errorf("no exchange in\n%s", text)
	}
	rows, err = run(t, e, `EXPLAIN ANALYZE SELECT id, sum(qty) FROM orders WHERE id = 7 GROUP BY id`)
	if err != nil {
		t.Fatal(err)
	}
	text = strings.Join(rows, "\n")
	m := regexp.MustCompile(`exchanged to 4 partitions: (\d+) rows, \d+ bytes in (\d+) batches gathered from (\d+)`).FindStringSubmatch(text)
	if m == nil || m[1] != "1" || m[2] != "1" || m[3] == "0" {
		t.Errorf("one key: %v in\n%s", m, text)
	}
}
