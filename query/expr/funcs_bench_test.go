package expr

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// BenchmarkExtract answers: what does a date field cost per row, on
// TPC-H's seven years of dates in random order (lineitem's l_shipdate by
// l_orderkey) and sorted?
func BenchmarkExtract(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	lo := int32(mustDate("1992-01-01"))
	days := make([]int32, benchRows)
	for i := range days {
		days[i] = lo + r.Int32N(7*365)
	}
	for _, order := range []string{"random", "sorted"} {
		if order == "sorted" {
			sort.Slice(days, func(i, j int) bool { return days[i] < days[j] })
		}
		bld := array.NewDate32Builder(memory.NewGoAllocator())
		for _, d := range days {
			bld.Append(arrow.Date32(d))
		}
		col := bld.NewArray()
		batch := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "d", Type: typDate32}}, nil), []arrow.Array{col}, benchRows)
		for _, p := range []DatePart{PartYear, PartMonth, PartWeek} {
			b.Run(fmt.Sprintf("part=%s/order=%s", p, order), func(b *testing.B) {
				benchEval(b, must(Extract(p, Column(0, "d", typDate32))), batch)
			})
		}
	}
}

// BenchmarkSubstring answers: what does substring(s FROM 1 FOR 2) cost
// per row on short ASCII strings (TPC-H's c_phone) and on strings with
// one two-byte character?
func BenchmarkSubstring(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, text := range []string{"ascii", "utf8"} {
		bld := array.NewStringBuilder(memory.NewGoAllocator())
		for range benchRows {
			s := fmt.Sprintf("%02d-%03d-%03d-%04d", 10+r.IntN(25), r.IntN(1000), r.IntN(1000), r.IntN(10000))
			if text == "utf8" {
				s = "é" + s
			}
			bld.Append(s)
		}
		col := bld.NewArray()
		batch := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "s", Type: typString}}, nil), []arrow.Array{col}, benchRows)
		for _, w := range [][2]int64{{1, 2}, {5, 3}} {
			b.Run(fmt.Sprintf("text=%s/start=%d/length=%d", text, w[0], w[1]), func(b *testing.B) {
				benchEval(b, must(Substring(Column(0, "s", typString), lit(w[0]), lit(w[1]))), batch)
			})
		}
	}
}

// BenchmarkFuncs answers: what do the registry's everyday functions cost
// per row on TPC-H-like comments (about 40 ASCII bytes) and timestamps,
// next to substring's copy loop above?
func BenchmarkFuncs(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	words := []string{"carefully", "final", "deposits", "sleep", "quickly", "ironic", "requests", "blithely"}
	sb := array.NewStringBuilder(memory.NewGoAllocator())
	tb := array.NewTimestampBuilder(memory.NewGoAllocator(), typTimestamp)
	for range benchRows {
		s := ""
		for range 5 {
			s += words[r.IntN(len(words))] + " "
		}
		sb.Append(s)
		tb.Append(arrow.Timestamp(r.Int64N(30 * 365 * usPerDay)))
	}
	cols := []arrow.Array{sb.NewArray(), tb.NewArray()}
	batch := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "s", Type: typString}, {Name: "ts", Type: typTimestamp}}, nil), cols, benchRows)
	s, ts := Column(0, "s", typString), Column(1, "ts", typTimestamp)
	for _, tc := range []struct {
		name string
		e    Expr
	}{
		{"length", must(Call("length", s))},
		{"upper", must(Call("upper", s))},
		{"trim", must(Call("trim", s))},
		{"replace", must(Call("replace", s, lit("ly"), lit("LY")))},
		{"contains", must(Call("contains", s, lit("ironic")))},
		{"concat", must(Call("concat", s, lit("-"), s))},
		{"date_trunc_month", must(Call("date_trunc", lit("month"), ts))},
		{"hour", must(Call("hour", ts))},
		{"strftime", must(Call("strftime", ts, lit("%Y-%m-%d %H:%M")))},
	} {
		b.Run("func="+tc.name, func(b *testing.B) { benchEval(b, tc.e, batch) })
	}
}
