package query

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/query/agg"
	"github.com/quiverdb/quiver/query/expr"
)

// FuzzSQL plans and runs generated SELECTs over testTable's small table
// under a small memory limit: random expression trees over every column
// type, deep nesting, long literals, aggregates, GROUP BY, ORDER BY and
// LIMIT. No input may panic or leak, and every error must match one of the
// documented kinds (doc.go). The input drives the generator (sqlGen), so
// the fuzzer's mutations are mutations of the tree.
//
//	go test ./query -run XXX -fuzz FuzzSQL -fuzztime 60s
func FuzzSQL(f *testing.F) {
	for _, seed := range []string{
		"", "\x00", "\x01\x02\x03", "\xff\xfe\xfd\xfc", "deep((((((((((((", "long literal \x07\x07\x07",
		"\x05\x11\x23\x37\x41\x53\x67\x71\x83\x97", strings.Repeat("\x09", 40),
	} {
		f.Add([]byte(seed))
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	c, _ := testTable(f, mem, 100, 16)
	base := mem.CurrentAlloc()
	e := New(c, Options{Alloc: mem, MemoryLimit: 8 << 20, MaxExprNodes: 2000, MaxExprDepth: 200})
	f.Fuzz(func(t *testing.T, in []byte) {
		sql := (&sqlGen{in: in}).statement()
		start := time.Now()
		err := runAll(e, sql)
		// 100 rows, 2,000 nodes: anything slower is work that is not
		// linear in the statement.
		if d := time.Since(start); d > 5*time.Second {
			t.Fatalf("%.300s: took %v", sql, d)
		}
		if err != nil && !documented(err) {
			t.Fatalf("%.300s: undocumented error %T: %v", sql, err, err)
		}
		if got := mem.CurrentAlloc(); got != base {
			t.Fatalf("%.300s: %d bytes leaked", sql, got-base)
		}
	})
}

// runAll runs sql to the end, discarding its rows.
func runAll(e *Engine, sql string) error {
	r, err := e.Query(context.Background(), sql)
	if err != nil {
		return err
	}
	defer r.Release()
	for r.Next() {
	}
	return r.Err()
}

func documented(err error) bool {
	if errors.Is(err, ErrExec) {
		// Every failure while running is wrapped as ErrExec: only an
		// expression's own error (overflow, division by zero, a bad
		// cast: *expr.Error) and an aggregate's overflow are documented
		// ones, anything else is a bug.
		var ee *expr.Error
		return errors.As(err, &ee) || errors.Is(err, agg.ErrOverflow) || errors.Is(err, ErrMemory)
	}
	for _, kind := range []error{ErrSyntax, ErrUnsupported, ErrInvalid, ErrNoTable, ErrMemory} {
		if errors.Is(err, kind) {
			return true
		}
	}
	return false
}

// sqlGen turns bytes into a SELECT over testTable's orders; when the
// bytes run out every choice is 0, which ends the tree with a leaf.
type sqlGen struct {
	in   []byte
	long int // bytes of long string literals so far, at most 1 MiB
}

func (g *sqlGen) byte() int {
	if len(g.in) == 0 {
		return 0
	}
	b := g.in[0]
	g.in = g.in[1:]
	return int(b)
}

func (g *sqlGen) pick(n int) int { return g.byte() % n }

func (g *sqlGen) statement() string {
	var b strings.Builder
	shape := g.pick(5)
	b.WriteString("SELECT ")
	switch shape {
	case 4:
		b.WriteString(g.window() + ", " + g.expr(0))
	case 0, 1:
		b.WriteString(g.expr(0))
		if g.pick(2) == 1 {
			b.WriteString(", " + g.expr(0))
		}
	case 2:
		b.WriteString(g.aggregate() + ", grp")
	case 3:
		b.WriteString(g.aggregate())
	}
	b.WriteString(" FROM orders")
	if g.pick(2) == 1 {
		b.WriteString(" WHERE " + g.expr(0))
	}
	if shape == 2 {
		b.WriteString(" GROUP BY grp")
		if g.pick(2) == 1 {
			b.WriteString(" HAVING " + g.aggregate() + " > " + g.leaf())
		}
	}
	if g.pick(2) == 1 {
		b.WriteString(" ORDER BY 1")
		if g.pick(2) == 1 {
			b.WriteString(" DESC NULLS FIRST")
		}
	}
	if g.pick(2) == 1 {
		fmt.Fprintf(&b, " LIMIT %d", g.pick(5))
	}
	return b.String()
}

// window is a window call over generated arguments, keys and frame.
func (g *sqlGen) window() string {
	var fn string
	switch g.pick(6) {
	case 0:
		fn = []string{"row_number()", "rank()", "dense_rank()", "percent_rank()", "cume_dist()"}[g.pick(5)]
	case 1:
		fn = fmt.Sprintf("ntile(%d)", g.byte())
	case 2:
		fn = fmt.Sprintf("%s(%s, %d, %s)", []string{"lag", "lead"}[g.pick(2)], g.expr(0), g.byte(), g.leaf())
	case 3:
		fn = fmt.Sprintf("nth_value(%s, %d)", g.expr(0), 1+g.byte())
	default:
		fn = g.aggregate()
	}
	spec := ""
	if g.pick(2) == 1 {
		spec += "PARTITION BY " + g.expr(0)
	}
	if g.pick(2) == 1 {
		spec += " ORDER BY " + g.expr(0) + []string{"", " DESC", " NULLS FIRST"}[g.pick(3)]
	}
	switch g.pick(3) {
	case 1:
		spec += fmt.Sprintf(" ROWS BETWEEN %d PRECEDING AND %d FOLLOWING", g.byte(), g.byte())
	case 2:
		spec += " RANGE BETWEEN CURRENT ROW AND UNBOUNDED FOLLOWING"
	}
	return fn + " OVER (" + spec + ")"
}

func (g *sqlGen) aggregate() string {
	fn := []string{"sum", "min", "max", "avg", "count"}[g.pick(5)]
	if g.pick(3) == 0 {
		return "count(*)"
	}
	return fn + "(" + g.expr(0) + ")"
}

var fuzzColumns = []string{"id", "grp", "qty", "price", "ratio", "day", "flag"}

func (g *sqlGen) leaf() string {
	switch g.pick(12) {
	case 0, 1, 2, 3:
		return fuzzColumns[g.pick(len(fuzzColumns))]
	case 4:
		return fmt.Sprint(g.byte() - 128)
	case 5:
		return []string{"9223372036854775807", "-9223372036854775808", "0", "18446744073709551615", "99999999999999999999999999999999999999"}[g.pick(5)]
	case 6:
		return fmt.Sprintf("%d.%02d", g.byte(), g.byte())
	case 7:
		return []string{"1e308", "0.0", "-1.5e-10"}[g.pick(3)]
	case 8:
		// A string literal, sometimes long (up to 256 KiB).
		n := g.byte()
		if g.pick(4) == 0 && g.long+n<<10 <= 1<<20 {
			n <<= 10
			g.long += n
		}
		return "'" + strings.Repeat(string(rune('a'+g.pick(26))), n) + "'"
	case 9:
		return []string{"NULL", "TRUE", "FALSE"}[g.pick(3)]
	case 10:
		return fmt.Sprintf("DATE '19%02d-%02d-%02d'", g.pick(100), 1+g.pick(12), 1+g.pick(28))
	}
	return "'1998-12-01'"
}

func (g *sqlGen) expr(depth int) string {
	if depth > 300 || len(g.in) == 0 {
		return g.leaf()
	}
	d := depth + 1
	switch g.pick(21) {
	case 0, 1, 2:
		return g.leaf()
	case 3:
		return g.expr(d) + " " + []string{"+", "-", "*", "/", "%"}[g.pick(5)] + " " + g.expr(d)
	case 4:
		return g.expr(d) + " " + []string{"=", "<>", "<", "<=", ">", ">="}[g.pick(6)] + " " + g.expr(d)
	case 5:
		return g.expr(d) + " " + []string{"AND", "OR"}[g.pick(2)] + " " + g.expr(d)
	case 6:
		return "NOT " + g.expr(d)
	case 7:
		return "-" + g.expr(d)
	case 8:
		return "(" + g.expr(d) + ")"
	case 9:
		return "CASE WHEN " + g.expr(d) + " THEN " + g.expr(d) + " ELSE " + g.expr(d) + " END"
	case 10:
		return "COALESCE(" + g.expr(d) + ", " + g.expr(d) + ")"
	case 11:
		return "CAST(" + g.expr(d) + " AS " + []string{"SIGNED", "DOUBLE", "DECIMAL(10,2)", "DATE", "CHAR", "DECIMAL(38,10)"}[g.pick(6)] + ")"
	case 12:
		return g.expr(d) + " IN (" + g.expr(d) + ", " + g.leaf() + ")"
	case 13:
		return g.expr(d) + " BETWEEN " + g.expr(d) + " AND " + g.expr(d)
	case 14:
		return g.expr(d) + " LIKE '" + []string{"a%", "%", "_b", "\\%"}[g.pick(4)] + "'"
	case 15:
		return g.expr(d) + " IS " + []string{"", "NOT "}[g.pick(2)] + "NULL"
	case 16:
		return g.expr(d) + " + INTERVAL " + fmt.Sprint(g.byte()) + " " + []string{"DAY", "MONTH", "YEAR"}[g.pick(3)]
	case 17:
		// A long chain of one operator.
		op := []string{" + ", " AND ", " * ", " OR "}[g.pick(4)]
		n := g.byte() * 8
		return g.leaf() + strings.Repeat(op+fuzzColumns[g.pick(len(fuzzColumns))], n)
	case 18:
		// Deep nesting of one unary operator.
		n := g.byte()
		if g.pick(3) == 0 {
			return strings.Repeat("(", n) + g.leaf() + strings.Repeat(")", n)
		}
		return strings.Repeat([]string{"NOT ", "-"}[g.pick(2)], n) + g.leaf()
	case 19:
		// A call of a registered function with 0 to 3 arguments of any
		// type, or a timestamp.
		if g.pick(4) == 0 {
			return fmt.Sprintf("TIMESTAMP '19%02d-%02d-%02d %02d:%02d:%02d.%d'", g.pick(100), 1+g.pick(12), 1+g.pick(28), g.pick(24), g.pick(60), g.pick(60), g.byte())
		}
		args := make([]string, g.pick(4))
		for i := range args {
			args[i] = g.expr(d)
		}
		return fuzzFuncs[g.pick(len(fuzzFuncs))] + "(" + strings.Join(args, ", ") + ")"
	}
	return g.expr(d) + " " + g.expr(d)
}

// fuzzFuncs are the functions FuzzSQL calls (the registry's names that
// read no constant-only argument are as likely as any).
var fuzzFuncs = []string{
	"length", "upper", "lower", "trim", "ltrim", "left", "right", "lpad", "rpad", "replace", "repeat", "split_part",
	"strpos", "starts_with", "contains", "reverse", "concat", "concat_ws", "substring", "abs", "sign", "ceil", "floor",
	"round", "trunc", "sqrt", "ln", "power", "greatest", "least", "nullif", "ifnull", "date_trunc", "date_diff",
	"date_part", "year", "hour", "make_date", "make_timestamp", "to_timestamp", "strftime", "strptime", "try_strptime",
	"regexp_matches", "regexp_replace", "regexp_extract", "epoch_ms", "last_day", "dayname", "now", "random",
}

// TestWhereNull: FuzzSQL found WHERE NULL failing ("filter NULL evaluated
// to null, not boolean"); no row passes it.
func TestWhereNull(t *testing.T) {
	e, _ := newEngine(t, 20, 8)
	for _, sql := range []string{
		"SELECT id FROM orders WHERE NULL",
		"SELECT grp, count(*) FROM orders GROUP BY grp HAVING NULL",
		"SELECT count(*) FROM orders WHERE NULL AND NULL",
	} {
		got, err := run(t, e, sql)
		if err != nil || (len(got) != 0 && fmt.Sprint(got) != "[0]") {
			t.Errorf("%s: %v, %v", sql, got, err)
		}
	}
}
