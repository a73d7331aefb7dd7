//go:build duckdb

package difftest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/convert/csv"
	"github.com/quiverdb/quiver/internal/pull"
	"github.com/quiverdb/quiver/query"
)

// TestCSVNulls writes CSV files with nulls written every way (an empty
// field, NULL, null, quoted "" and quoted "NULL") in a column of each
// type, reads them with quiver's CSV reader (types inferred, parsed in
// small chunks on two goroutines) into a cache, and with DuckDB's
// read_csv, and compares the inferred types, every row, and counts,
// distinct counts, min/max and IN lists over each column.
//
// DuckDB is given quiver's null tokens (its default is only the empty
// field). Quiver reads a quoted field in a string column as a string
// ("" is the empty string) and a quoted token elsewhere as null; DuckDB
// reads quoted fields one way for all columns (allow_quoted_nulls). So
// file "quoted_strings" quotes tokens in string columns only and is read
// by DuckDB with allow_quoted_nulls=false; file "quoted_others" quotes
// them in the other columns only and is read with DuckDB's default,
// true. Both quote ordinary values in every column.
func TestCSVNulls(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	c, err := cache.New(cache.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e := engines{q: query.New(c, query.Options{}), db: env.db}
	for _, tc := range []struct {
		table          string
		quoteStrTokens bool
		duckOptions    string
	}{
		{"quoted_strings", true, "allow_quoted_nulls=false"},
		{"quoted_others", false, "allow_quoted_nulls=true"},
	} {
		t.Run(tc.table, func(t *testing.T) {
			path := filepath.Join(dir, tc.table+".csv")
			if err := os.WriteFile(path, []byte(nullsCSV(rand.New(rand.NewPCG(5, 6)), 3000, tc.quoteStrTokens)), 0o644); err != nil {
				t.Fatal(err)
			}
			types, err := loadCSV(ctx, c, tc.table, path)
			if err != nil {
				t.Fatal(err)
			}
			stmt := fmt.Sprintf("CREATE OR REPLACE TABLE %s AS SELECT * FROM read_csv('%s', nullstr=['', 'NULL', 'null'], %s)", tc.table, path, tc.duckOptions)
			if _, err := e.db.ExecContext(ctx, stmt); err != nil {
				t.Fatal(err)
			}
			duckTypes, err := duckColumnTypes(ctx, tc.table)
			if err != nil {
				t.Fatal(err)
			}
			if types != duckTypes {
				t.Errorf("inferred types differ:\nquiver %s\nDuckDB %s", types, duckTypes)
			}
			var n tally
			for _, q := range csvNullsQueries(tc.table) {
				if d := e.mismatch(ctx, q, &n); d != "" {
					t.Error(d)
				}
			}
			t.Log(n.String())
		})
	}
}

// csvNullsColumns are the columns nullsCSV writes: id (never null) and
// then one of each type; q is quoted numbers, e empty throughout.
var csvNullsColumns = []string{"id", "i", "f", "b", "dt", "s", "q", "e"}

// nullsCSV writes rows of csvNullsColumns. A field is null one way or
// another a third of the time; quoteStrTokens says whether quoted ""
// and "NULL" go in string columns (else in the others).
func nullsCSV(r *rand.Rand, rows int, quoteStrTokens bool) string {
	words := []string{"x", "a,b", `say "hi"`, "NULLS", "Null", "nul", " ", "zz", "é"}
	var b strings.Builder
	b.WriteString(strings.Join(csvNullsColumns, ",") + "\n")
	for id := range rows {
		fmt.Fprint(&b, id)
		for _, col := range csvNullsColumns[1:] {
			b.WriteByte(',')
			if col == "e" {
				continue
			}
			str := col == "s"
			var v string
			switch col {
			case "i", "q":
				v = fmt.Sprint(r.IntN(2001) - 1000)
			case "f":
				v = fmt.Sprint(float64(r.IntN(801)-400) / 8)
			case "b":
				v = fmt.Sprint(r.IntN(2) == 0)
			case "dt":
				v = fmt.Sprintf("2024-%02d-%02d", 1+r.IntN(12), 1+r.IntN(28))
			case "s":
				v = words[r.IntN(len(words))]
			}
			k := r.IntN(9)
			if id == 0 {
				k = 8 // a value in every column's first row
			}
			switch {
			case k == 0:
			case k == 1:
				b.WriteString("NULL")
			case k == 2:
				b.WriteString("null")
			case k == 3 && str == quoteStrTokens:
				b.WriteString(`""`)
			case k == 4 && str == quoteStrTokens:
				b.WriteString(`"NULL"`)
			case col == "q" || k == 5 || strings.ContainsAny(v, `,"`):
				b.WriteString(`"` + strings.ReplaceAll(v, `"`, `""`) + `"`)
			default:
				b.WriteString(v)
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

// loadCSV reads path with quiver's reader into c as table name, and
// returns its columns' types in DuckDB's names.
func loadCSV(ctx context.Context, c *cache.Cache, name, path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	cr, err := csv.NewReader(f, csv.Options{Concurrency: 2, ChunkBytes: 4096})
	if err != nil {
		return "", err
	}
	defer cr.Release()
	r := pull.Records(cr.Schema(), cr.Next)
	defer r.Release()
	if _, err := c.Put(ctx, name, r, cache.TableOptions{}); err != nil {
		return "", err
	}
	duckName := map[string]string{"int64": "BIGINT", "float64": "DOUBLE", "bool": "BOOLEAN", "date32": "DATE", "utf8": "VARCHAR"}
	var types []string
	for _, f := range cr.Schema().Fields() {
		n, ok := duckName[f.Type.String()]
		if !ok {
			n = f.Type.String()
		}
		types = append(types, f.Name+" "+n)
	}
	return strings.Join(types, ", "), nil
}

func duckColumnTypes(ctx context.Context, table string) (string, error) {
	rows, err := env.db.QueryContext(ctx, "SELECT column_name, data_type FROM information_schema.columns WHERE table_name = ? ORDER BY ordinal_position", table)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var types []string
	for rows.Next() {
		var name, typ string
		if err := rows.Scan(&name, &typ); err != nil {
			return "", err
		}
		types = append(types, name+" "+typ)
	}
	return strings.Join(types, ", "), rows.Err()
}

// csvNullsQueries compare every row, then each column's nulls, values,
// distinct values, least and greatest, and IN lists.
func csvNullsQueries(table string) []testQuery {
	qs := []testQuery{{name: "every row", ordered: true, sql: "SELECT * FROM " + table + " ORDER BY id"}}
	for _, col := range csvNullsColumns[1:] {
		qs = append(qs,
			testQuery{name: col + " is null", sql: fmt.Sprintf("SELECT count(*) FROM %s WHERE %s IS NULL", table, col)},
			testQuery{name: col + " aggregates", sql: fmt.Sprintf("SELECT count(*), count(%[2]s), count(DISTINCT %[2]s), min(%[2]s), max(%[2]s) FROM %[1]s", table, col)},
			testQuery{name: col + " groups", sql: fmt.Sprintf("SELECT %[2]s, count(*) FROM %[1]s GROUP BY %[2]s", table, col)},
		)
	}
	for _, in := range []string{"'', 'NULL'", "'x', 'Null', ''", "'a,b', 'say \"hi\"'"} {
		qs = append(qs,
			testQuery{name: "s in " + in, sql: fmt.Sprintf("SELECT count(*) FROM %s WHERE s IN (%s)", table, in)},
			testQuery{name: "s not in " + in, sql: fmt.Sprintf("SELECT count(*) FROM %s WHERE s NOT IN (%s)", table, in)},
		)
	}
	qs = append(qs,
		testQuery{name: "s empty", sql: fmt.Sprintf("SELECT count(*), count(DISTINCT id) FROM %s WHERE s = ''", table)},
		testQuery{name: "i in", sql: fmt.Sprintf("SELECT count(*) FROM %s WHERE i IN (1, 2, 3) OR q IN (-1, 0, 1)", table)},
	)
	return qs
}
