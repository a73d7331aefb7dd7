//go:build polars

package polars

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/batch"
	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/convert"
	"github.com/quiverdb/quiver/convert/csv"
)

// csvFacts is what readcsv.js reports: read.js's facts, each column's
// polars type and every row.
type csvFacts struct {
	fileFacts
	Types   map[string]string `json:"types"`
	Records []map[string]any  `json:"records"`
}

// TestPolarsReadsCSVAlike: polars and quiver read the same CSV, with
// nulls written every way both read alike, to the same types, nulls and
// values; and polars reads quiver's Arrow of it to the same facts.
//
// What the file leaves out, where the two differ: polars applies its
// null values to quoted fields too, so a quoted "NULL" in a string
// column is null in polars and the string in quiver; and a quoted ""
// in a number or date column makes polars read the column as strings,
// where quiver reads a null.
func TestPolarsReadsCSVAlike(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dir := t.TempDir()
	path := filepath.Join(dir, "nulls.csv")
	if err := os.WriteFile(path, []byte(polarsNullsCSV(rand.New(rand.NewPCG(7, 8)), 5000)), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := csv.NewReader(f, csv.Options{Concurrency: 2, ChunkBytes: 8192, Convert: convert.Config{Alloc: mem}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	var recs []arrow.RecordBatch
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec)
	}
	defer func() {
		for _, rec := range recs {
			rec.Release()
		}
	}()

	var polars csvFacts
	if err := json.Unmarshal(node(t, "readcsv.js", path), &polars); err != nil {
		t.Fatal(err)
	}
	want := factsOf(recs)
	if polars.Rows != want.Rows || fmt.Sprint(polars.Cols) != fmt.Sprint(want.Cols) {
		t.Errorf("polars reads the CSV as %+v\nquiver as %+v", polars.fileFacts, want)
	}
	polarsType := map[string]string{"int64": "Int64", "float64": "Float64", "bool": "Bool", "date32": "Date", "utf8": "String"}
	for _, fd := range recs[0].Schema().Fields() {
		if got := polars.Types[fd.Name]; got != polarsType[fd.Type.String()] {
			t.Errorf("column %s: polars infers %s, quiver %s", fd.Name, got, fd.Type)
		}
	}
	row := 0
	for _, rec := range recs {
		for i := range int(rec.NumRows()) {
			for c, fd := range rec.Schema().Fields() {
				q := jsonValue(rec.Column(c), i)
				p := polars.Records[row][fd.Name]
				if fmt.Sprint(q) != fmt.Sprint(p) {
					t.Fatalf("row %d column %s: quiver %#v, polars %#v", row, fd.Name, q, p)
				}
			}
			row++
		}
	}

	// polars reads quiver's Arrow of the CSV to the same facts.
	arrowPath := filepath.Join(dir, "nulls.arrow")
	writeFile(t, arrowPath, recs, batch.WriteOptions{Codec: codec.SettingZstd}, true)
	var fromArrow fileFacts
	if err := json.Unmarshal(node(t, "read.js", arrowPath), &fromArrow); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(fromArrow.Cols) != fmt.Sprint(want.Cols) {
		t.Errorf("polars reads quiver's Arrow as %+v\nquiver has %+v", fromArrow, want)
	}
}

// jsonValue is a value as polars' toRecords gives it through JSON.
func jsonValue(a arrow.Array, i int) any {
	if a.IsNull(i) {
		return nil
	}
	switch a := a.(type) {
	case *array.Int64:
		return float64(a.Value(i))
	case *array.Float64:
		return a.Value(i)
	case *array.Boolean:
		return a.Value(i)
	case *array.Date32:
		return a.Value(i).FormattedString() + "T00:00:00.000Z"
	case *array.String:
		return a.Value(i)
	}
	return a.ValueStr(i)
}

// polarsNullsCSV writes id and a column of each type with nulls written
// as an empty field, NULL or null a third of the time; the string
// columns also hold quoted "" (the empty string); q is quoted numbers
// and e is empty throughout.
func polarsNullsCSV(r *rand.Rand, rows int) string {
	words := []string{"x", "a,b", `say "hi"`, "NULLS", "Null", " ", "é"}
	var b strings.Builder
	b.WriteString("id,i,f,bo,dt,s,q,e\n")
	for id := range rows {
		fmt.Fprint(&b, id)
		for _, col := range []string{"i", "f", "bo", "dt", "s", "q", "e"} {
			b.WriteByte(',')
			if col == "e" {
				continue
			}
			var v string
			switch col {
			case "i", "q":
				v = fmt.Sprint(r.IntN(2001) - 1000)
			case "f":
				v = fmt.Sprint(float64(r.IntN(801)-400) / 8)
			case "bo":
				v = fmt.Sprint(r.IntN(2) == 0)
			case "dt":
				v = fmt.Sprintf("2024-%02d-%02d", 1+r.IntN(12), 1+r.IntN(28))
			case "s":
				v = words[r.IntN(len(words))]
			}
			k := r.IntN(8)
			if id == 0 {
				k = 7
			}
			switch {
			case k == 0:
			case k == 1:
				b.WriteString("NULL")
			case k == 2:
				b.WriteString("null")
			case k == 3 && col == "s":
				b.WriteString(`""`)
			case col == "q" || k == 4 || strings.ContainsAny(v, `,"`):
				b.WriteString(`"` + strings.ReplaceAll(v, `"`, `""`) + `"`)
			default:
				b.WriteString(v)
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}
