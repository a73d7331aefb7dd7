package csv

import (
	encsv "encoding/csv"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/quiverdb/quiver/convert"
)

// FuzzCSV feeds the reader arbitrary bytes. Whatever they are, it must
// not panic, stay within its limits, and give the same rows, error and
// skip count whether it parses sequentially or in parallel in tiny
// chunks. Where encoding/csv (which follows the same RFC) reads the
// input, the fields must be encoding/csv's; with the default null tokens
// (mode bit 4) a null must be a token there.
func FuzzCSV(f *testing.F) {
	for _, s := range []string{
		"a,b\n1,2\n", "a,b\r\n\"x,y\",\"q\"\"q\"\r\n", "a\n\"multi\nline\"\n", "a,b\n1\n2,3,4\n",
		"a,b\nx\"y,1\n", "a,b\n\"q\"z,1\n", "a,b\n\"open,1\n", "\xef\xbb\xbfa\n1\n", "", "\n\n", ",\n,\n",
		"a,b\n\n\n1,2", "\"\"\"\",\"\"\n\"a\"\"\",b\n", "a;b\n1;2\n",
	} {
		f.Add([]byte(s), uint8(0))
		f.Add([]byte(s), uint8(3))
		f.Add([]byte(s), uint8(4))
	}
	f.Add([]byte("a,b\n,\"\"\nNULL,\"null\"\n\"\",\n"), uint8(4))
	f.Fuzz(func(t *testing.T, in []byte, mode uint8) {
		// A hang is a failure too: panic, so the fuzzer keeps the input.
		wd := time.AfterFunc(60*time.Second, func() { panic(fmt.Sprintf("hang on %q mode %d", in, mode)) })
		defer wd.Stop()
		skip := mode&1 != 0
		infer := mode&2 != 0
		base := Options{SkipMalformed: skip, Concurrency: 1, NullTokens: []string{}, InferRows: 10,
			MaxRecordBytes: 4096, MaxColumns: 64, NoHeader: true, Convert: convert.Config{BatchRows: 7}}
		if mode&4 != 0 {
			base.NullTokens = nil
		}
		ncols := 0
		if !infer {
			// The first record's field count, by encoding/csv, or 2.
			r := encsv.NewReader(strings.NewReader(string(in)))
			if rec, err := r.Read(); err == nil {
				ncols = len(rec)
			}
			if ncols == 0 || ncols > 64 {
				ncols = 2
			}
			base.Schema = binSchema(ncols)
		}
		rows, err, st := readAll(t, string(in), base)
		if err != nil && !errors.Is(err, convert.ErrMalformed) && !errors.Is(err, convert.ErrLimit) && !errors.Is(err, convert.ErrRange) {
			t.Fatalf("error of no known kind: %v", err)
		}
		for _, conc := range []int{2, 3} {
			for _, chunk := range []int{1, 4, 13} {
				o := base
				o.Concurrency, o.ChunkBytes = conc, chunk
				got, gerr, gst := readAll(t, string(in), o)
				if fmt.Sprint(gerr) != fmt.Sprint(err) || fmt.Sprint(got) != fmt.Sprint(rows) || gst.SkippedRows != st.SkippedRows {
					t.Fatalf("conc %d chunk %d: %d rows, %v, %d skipped; sequential %d rows, %v, %d skipped",
						conc, chunk, len(got), gerr, gst.SkippedRows, len(rows), err, st.SkippedRows)
				}
			}
		}
		// The oracle: inputs without CR (encoding/csv rewrites CRLF in
		// quoted fields) or a BOM (it keeps it), read strictly.
		if infer || skip || strings.ContainsAny(string(in), "\r") || strings.HasPrefix(string(in), "\xef\xbb\xbf") {
			return
		}
		r := encsv.NewReader(strings.NewReader(string(in)))
		r.FieldsPerRecord = ncols
		want, werr := r.ReadAll()
		if (werr == nil) != (err == nil) {
			if werr != nil && len(want) == 0 && len(rows) > 0 {
				t.Fatalf("encoding/csv: %v; we read %d rows", werr, len(rows))
			}
			if werr == nil {
				t.Fatalf("encoding/csv reads %d records; we: %v", len(want), err)
			}
		}
		if werr == nil {
			if len(want) != len(rows) {
				t.Fatalf("encoding/csv reads %d records, we %d", len(want), len(rows))
			}
			for i := range want {
				if mode&4 != 0 {
					for j, v := range rows[i] {
						if v == "∅" && j < len(want[i]) && slices.Contains([]string{"", "NULL", "null"}, want[i][j]) {
							rows[i][j] = want[i][j]
						}
					}
				}
				if fmt.Sprintf("%q", want[i]) != fmt.Sprintf("%q", unquoteRow(rows[i])) {
					t.Fatalf("record %d: encoding/csv %q, we %q", i, want[i], rows[i])
				}
			}
		}
	})
}

func binSchema(n int) *arrow.Schema {
	fs := make([]arrow.Field, n)
	for i := range fs {
		fs[i] = arrow.Field{Name: fmt.Sprintf("c%d", i+1), Type: arrow.BinaryTypes.Binary, Nullable: true}
	}
	return arrow.NewSchema(fs, nil)
}

// unquoteRow turns readAll's ValueStr of binary values back to bytes.
func unquoteRow(r []string) []string {
	out := make([]string, len(r))
	for i, v := range r {
		out[i] = v
	}
	return out
}
