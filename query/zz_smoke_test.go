package query

import (
	"context"
	"fmt"
	"testing"

	"github.com/quiverdb/quiver/cache"
)

func TestZZSmoke(t *testing.T) {
	c, _ := cache.New(cache.Options{})
	e := New(c, Options{})
	ctx := context.Background()
	for _, s := range []string{
		"CREATE TABLE t1(a INTEGER, b INTEGER, c VARCHAR(30), d DATE, e DOUBLE, f DECIMAL(10,2) NOT NULL, g BOOLEAN)",
		"INSERT INTO t1(f,a) VALUES(1.5, 3)",
		"INSERT INTO t1 VALUES(1, 2, 'x', '2024-01-02', 3, 4.25, true), (NULL, NULL, NULL, NULL, NULL, 1, NULL)",
		"INSERT INTO t1 SELECT * FROM t1",
		"CREATE TABLE t2 AS SELECT a, a + 1 AS b FROM t1",
		"CREATE VIEW v AS SELECT a, b FROM t2 WHERE a IS NOT NULL",
		"SELECT * FROM v",
		"SELECT * FROM t1",
		"SHOW TABLES",
		"DESCRIBE t1",
		"SELECT * FROM information_schema.columns WHERE table_name = 'v'",
		"TRUNCATE t1",
		"SELECT count(*) FROM t1",
		"DROP VIEW v",
		"DROP TABLE t2",
		"SHOW TABLES",
		"INSERT INTO t1(a) VALUES(1)",
		"INSERT INTO t1(f) VALUES('abc')",
		"CREATE TABLE t3(x INTEGER PRIMARY KEY)",
		"CREATE TABLE t3(x BLOB)",
	} {
		r, err := e.Query(ctx, s)
		if err != nil {
			fmt.Println(s, "=> ERR", err)
			continue
		}
		fmt.Println(s, "=>")
		for r.Next() {
			fmt.Println(r.RecordBatch())
		}
		if r.Err() != nil {
			fmt.Println("  ERR", r.Err())
		}
		r.Release()
	}
}
