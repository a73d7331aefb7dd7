package slt

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// Engine is the engine name scripts' skipif/onlyif lines are matched
// against.
const Engine = "postgresql"

// DB is what a script runs on: Query runs any statement and returns its
// result (a change returns a row count, which statements ignore).
type DB interface {
	Query(ctx context.Context, sql string) (array.RecordReader, error)
}

// Report is what running a script found.
type Report struct {
	Name                    string
	Passed, Failed, Skipped int
	Failures                []Failure
	Slow                    []string // records that took more than a second
}

// Failure is a record that did not pass.
type Failure struct {
	Line int
	SQL  string
	Why  string
}

func (f Failure) String() string {
	return fmt.Sprintf("line %d: %s\n    %s", f.Line, f.Why, oneLine(f.SQL))
}

func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// Trace, when set, is called before each record runs (for finding a
// record that hangs).
var Trace func(*Record)

// recordTimeout bounds one record: a statement that runs longer fails.
const recordTimeout = 20 * time.Second

// Run runs the records on db, in order. A record that does not apply to
// Engine counts as skipped; halt (that applies) ends the script.
func Run(ctx context.Context, db DB, name string, recs []Record) Report {
	rep := Report{Name: name}
	threshold := 0
	labels := map[string]string{}
	for i := range recs {
		r := &recs[i]
		if !r.Applies(Engine) {
			if r.Kind == Statement || r.Kind == Query {
				rep.Skipped++
			}
			continue
		}
		switch r.Kind {
		case Halt:
			return rep
		case HashThreshold:
			threshold = r.Threshold
			continue
		}
		var why string
		rctx, cancel := context.WithTimeout(ctx, recordTimeout)
		start := time.Now()
		if Trace != nil {
			Trace(r)
		}
		if r.Kind == Statement {
			why = runStatement(rctx, db, r)
		} else {
			why = runQuery(rctx, db, r, threshold, labels)
		}
		cancel()
		if d := time.Since(start); d > time.Second {
			rep.Slow = append(rep.Slow, fmt.Sprintf("line %d: %v", r.Line, d.Round(time.Millisecond)))
		}
		if why == "" {
			rep.Passed++
			continue
		}
		rep.Failed++
		rep.Failures = append(rep.Failures, Failure{Line: r.Line, SQL: r.SQL, Why: why})
	}
	return rep
}

func runStatement(ctx context.Context, db DB, r *Record) string {
	err := drain(ctx, db, r.SQL)
	switch {
	case err != nil && !r.ExpectError:
		return "statement failed: " + err.Error()
	case err == nil && r.ExpectError:
		return "statement succeeded; expected an error"
	}
	return ""
}

func drain(ctx context.Context, db DB, sql string) error {
	res, err := db.Query(ctx, sql)
	if err != nil {
		return err
	}
	defer res.Release()
	for res.Next() {
	}
	return res.Err()
}

func runQuery(ctx context.Context, db DB, r *Record, threshold int, labels map[string]string) string {
	vals, err := queryValues(ctx, db, r.SQL, r.Types)
	if err != nil {
		return "query failed: " + err.Error()
	}
	switch r.Sort {
	case "nosort":
	case "rowsort":
		sortRows(vals, len(r.Types))
	case "valuesort":
		sort.Strings(vals)
	default:
		return "unknown sort mode " + r.Sort
	}
	hash := hashValues(vals)
	if r.Label != "" {
		if prev, ok := labels[r.Label]; ok && prev != hash {
			return "result differs from earlier queries labelled " + r.Label
		}
		labels[r.Label] = hash
	}
	if threshold > 0 && len(vals) > threshold {
		want := fmt.Sprintf("%d values hashing to %s", len(vals), hash)
		if len(r.Expected) != 1 || r.Expected[0] != want {
			return fmt.Sprintf("expected %s, got %s", strings.Join(r.Expected, " "), want)
		}
		return ""
	}
	if len(r.Expected) == 1 && strings.Contains(r.Expected[0], " values hashing to ") {
		want := fmt.Sprintf("%d values hashing to %s", len(vals), hash)
		if r.Expected[0] != want {
			return fmt.Sprintf("expected %s, got %s (%s)", r.Expected[0], want, clip(vals))
		}
		return ""
	}
	if len(vals) != len(r.Expected) {
		return fmt.Sprintf("expected %d values [%s], got %d [%s]", len(r.Expected), clip(r.Expected), len(vals), clip(vals))
	}
	for i := range vals {
		if vals[i] != r.Expected[i] {
			return fmt.Sprintf("value %d: expected %q, got %q", i+1, r.Expected[i], vals[i])
		}
	}
	return ""
}

func clip(vals []string) string {
	if len(vals) > 12 {
		return strings.Join(vals[:12], " ") + " …"
	}
	return strings.Join(vals, " ")
}

// hashValues is the reference runner's hash: MD5 of each value and a
// newline, in hex.
func hashValues(vals []string) string {
	h := md5.New()
	for _, v := range vals {
		h.Write([]byte(v))
		h.Write([]byte{'\n'})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// sortRows sorts rows of n values by byte order, value by value.
func sortRows(vals []string, n int) {
	if n <= 0 || len(vals)%n != 0 {
		return
	}
	rows := make([][]string, len(vals)/n)
	for i := range rows {
		rows[i] = vals[i*n : (i+1)*n : (i+1)*n]
	}
	sort.SliceStable(rows, func(a, b int) bool {
		for k := range n {
			if c := strings.Compare(rows[a][k], rows[b][k]); c != 0 {
				return c < 0
			}
		}
		return false
	})
	out := make([]string, 0, len(vals))
	for _, r := range rows {
		out = append(out, r...)
	}
	copy(vals, out)
}

// queryValues runs sql and renders its values, row by row.
func queryValues(ctx context.Context, db DB, sql, types string) ([]string, error) {
	res, err := db.Query(ctx, sql)
	if err != nil {
		return nil, err
	}
	defer res.Release()
	if got := res.Schema().NumFields(); got != len(types) {
		return nil, fmt.Errorf("%d columns, the type string %q has %d", got, types, len(types))
	}
	var vals []string
	for res.Next() {
		rec := res.RecordBatch()
		for row := range int(rec.NumRows()) {
			for c := range int(rec.NumCols()) {
				vals = append(vals, Render(rec.Column(c), row, types[c]))
			}
		}
	}
	return vals, res.Err()
}

// Render renders value i of arr as the reference runner does for type
// letter t (see the package doc).
func Render(arr arrow.Array, i int, t byte) string {
	if arr.IsNull(i) {
		return "NULL"
	}
	v := value(arr, i)
	switch t {
	case 'I':
		switch x := v.(type) {
		case int64:
			return strconv.FormatInt(x, 10)
		case float64:
			return strconv.FormatInt(truncate(x), 10)
		case string:
			return strconv.FormatInt(leadingInt(x), 10)
		}
	case 'R':
		switch x := v.(type) {
		case int64:
			return fmt.Sprintf("%.3f", float64(x))
		case float64:
			return fmt.Sprintf("%.3f", x)
		case string:
			f, _ := strconv.ParseFloat(strings.TrimSpace(x), 64)
			return fmt.Sprintf("%.3f", f)
		}
	}
	var s string
	switch x := v.(type) {
	case int64:
		s = strconv.FormatInt(x, 10)
	case float64:
		s = strconv.FormatFloat(x, 'g', 15, 64)
		if !strings.ContainsAny(s, ".eEnN") {
			s += ".0"
		}
	case string:
		s = x
	}
	if s == "" {
		return "(empty)"
	}
	b := []byte(s)
	for k, c := range b {
		if c < ' ' || c > '~' {
			b[k] = '@'
		}
	}
	return string(b)
}

// value is a cell as int64, float64 (decimals too) or string.
func value(arr arrow.Array, i int) any {
	switch a := arr.(type) {
	case *array.Int8:
		return int64(a.Value(i))
	case *array.Int16:
		return int64(a.Value(i))
	case *array.Int32:
		return int64(a.Value(i))
	case *array.Int64:
		return a.Value(i)
	case *array.Uint8:
		return int64(a.Value(i))
	case *array.Uint16:
		return int64(a.Value(i))
	case *array.Uint32:
		return int64(a.Value(i))
	case *array.Uint64:
		return int64(a.Value(i))
	case *array.Float32:
		return float64(a.Value(i))
	case *array.Float64:
		return a.Value(i)
	case *array.Boolean:
		if a.Value(i) {
			return int64(1)
		}
		return int64(0)
	case *array.String:
		return a.Value(i)
	case *array.LargeString:
		return a.Value(i)
	}
	switch arr.DataType().ID() {
	case arrow.DECIMAL32, arrow.DECIMAL64, arrow.DECIMAL128, arrow.DECIMAL256:
		s := arr.ValueStr(i)
		if !strings.Contains(s, ".") {
			if n, err := strconv.ParseInt(s, 10, 64); err == nil {
				return n
			}
		}
		f, _ := strconv.ParseFloat(s, 64)
		return f
	}
	return arr.ValueStr(i)
}

// truncate converts a float to an integer toward zero, as SQLite's
// sqlite3_column_int does (saturating).
func truncate(f float64) int64 {
	switch {
	case math.IsNaN(f):
		return 0
	case f >= math.MaxInt64:
		return math.MaxInt64
	case f <= math.MinInt64:
		return math.MinInt64
	}
	return int64(f)
}

// leadingInt is the integer a string starts with (0 when none), as
// SQLite reads text as an integer.
func leadingInt(s string) int64 {
	s = strings.TrimSpace(s)
	j := 0
	if j < len(s) && (s[j] == '-' || s[j] == '+') {
		j++
	}
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	n, _ := strconv.ParseInt(s[:j], 10, 64)
	return n
}
