// Package lineitem writes CSV shaped like TPC-H's lineitem table: the
// same sixteen columns, types, value ranges and average row width
// (about 130 bytes), from a seed. It is not dbgen (no referential
// integrity with other tables, a smaller comment vocabulary), which the
// converter's benchmarks do not need: they need the shape, a fixed seed
// and a file of any size written in seconds under os.TempDir().
//
// Package tpch writes dbgen's own lineitem (tpch.WriteCSV), but not for
// these: it takes a scale factor, not a size in bytes, and builds dbgen's
// 300 MiB comment pool first, so 37 MB of it take 5.7 s where Write takes
// 0.15 s (2 shared cores), too slow for the converter's tests and its
// 1 GB benchmark file; and convert/BENCHMARKS.md's numbers were measured
// on this shape (l_linenumber int64, where dbgen's is int32).
package lineitem

import (
	"bufio"
	"io"
	"math/rand/v2"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
)

// Schema is lineitem's, as TPC-H declares it (decimals 15,2; dates).
func Schema() *arrow.Schema {
	dec := &arrow.Decimal128Type{Precision: 15, Scale: 2}
	str := arrow.BinaryTypes.String
	i64 := arrow.PrimitiveTypes.Int64
	date := arrow.FixedWidthTypes.Date32
	f := func(name string, t arrow.DataType) arrow.Field {
		return arrow.Field{Name: name, Type: t, Nullable: true}
	}
	return arrow.NewSchema([]arrow.Field{
		f("l_orderkey", i64), f("l_partkey", i64), f("l_suppkey", i64), f("l_linenumber", i64),
		f("l_quantity", dec), f("l_extendedprice", dec), f("l_discount", dec), f("l_tax", dec),
		f("l_returnflag", str), f("l_linestatus", str),
		f("l_shipdate", date), f("l_commitdate", date), f("l_receiptdate", date),
		f("l_shipinstruct", str), f("l_shipmode", str), f("l_comment", str),
	}, nil)
}

const header = "l_orderkey,l_partkey,l_suppkey,l_linenumber,l_quantity,l_extendedprice,l_discount,l_tax,l_returnflag,l_linestatus,l_shipdate,l_commitdate,l_receiptdate,l_shipinstruct,l_shipmode,l_comment\n"

var (
	instructs = []string{"DELIVER IN PERSON", "COLLECT COD", "NONE", "TAKE BACK RETURN"}
	modes     = []string{"REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"}
	words     = []string{"furiously", "quickly", "carefully", "blithely", "slyly", "regular", "ironic", "final",
		"bold", "express", "pending", "special", "unusual", "silent", "even", "deposits", "packages", "requests",
		"accounts", "instructions", "theodolites", "foxes", "pinto", "beans", "asymptotes", "platelets", "ideas",
		"dependencies", "excuses", "sleep", "wake", "haggle", "nag", "cajole", "detect", "integrate", "among",
		"about", "above", "across", "after", "against", "along", "the", "of", "to"}
)

// day0 is 1992-01-01 as days since the epoch.
const day0 = 8035

// Write writes a header and rows until at least bytes bytes (or rows
// rows when rows > 0) have been written, and returns the rows written.
func Write(w io.Writer, bytes int64, rows int, seed uint64) (int, error) {
	bw := bufio.NewWriterSize(w, 1<<20)
	r := rand.New(rand.NewPCG(seed, 0x11e))
	n, _ := bw.WriteString(header)
	written := int64(n)
	var line []byte
	order, lineno := int64(1), 0
	i := 0
	for ; (rows > 0 && i < rows) || (rows <= 0 && written < bytes); i++ {
		lineno++
		if lineno > 1+r.IntN(7) {
			order += 1 + int64(r.IntN(4))
			lineno = 1
		}
		line = row(line[:0], r, order, lineno)
		n, err := bw.Write(line)
		if err != nil {
			return i, err
		}
		written += int64(n)
	}
	return i, bw.Flush()
}

func row(b []byte, r *rand.Rand, order int64, lineno int) []byte {
	part := 1 + r.Int64N(200_000)
	qty := 1 + r.Int64N(50)
	price := (90_000 + (part/10)%20_001 + 100*(part%1000)) * qty // cents
	b = strconv.AppendInt(b, order, 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, part, 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, 1+r.Int64N(10_000), 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(lineno), 10)
	b = append(b, ',')
	b = cents(b, qty*100)
	b = append(b, ',')
	b = cents(b, price)
	b = append(b, ',')
	b = cents(b, r.Int64N(11))
	b = append(b, ',')
	b = cents(b, r.Int64N(9))
	b = append(b, ',')
	ship := day0 + 1 + r.IntN(2526)
	commit := ship - 30 + r.IntN(61)
	receipt := ship + 1 + r.IntN(30)
	switch {
	case receipt <= 9298: // 1995-06-17
		b = append(b, "RA"[r.IntN(2)], ',')
	default:
		b = append(b, 'N', ',')
	}
	if ship > 9298 {
		b = append(b, 'O', ',')
	} else {
		b = append(b, 'F', ',')
	}
	b = date(b, ship)
	b = append(b, ',')
	b = date(b, commit)
	b = append(b, ',')
	b = date(b, receipt)
	b = append(b, ',')
	b = append(b, instructs[r.IntN(len(instructs))]...)
	b = append(b, ',')
	b = append(b, modes[r.IntN(len(modes))]...)
	b = append(b, ',')
	target := 10 + r.IntN(34)
	start := len(b)
	for len(b)-start < target {
		if len(b) > start {
			b = append(b, ' ')
		}
		b = append(b, words[r.IntN(len(words))]...)
	}
	if len(b)-start > 43 {
		b = b[:start+43]
	}
	return append(b, '\n')
}

// cents writes v/100 with two decimals.
func cents(b []byte, v int64) []byte {
	b = strconv.AppendInt(b, v/100, 10)
	b = append(b, '.', byte('0'+v%100/10), byte('0'+v%10))
	return b
}

// date writes days since the epoch as YYYY-MM-DD (civil_from_days).
func date(b []byte, days int) []byte {
	z := days + 719468
	era := z / 146097
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y := yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d := doy - (153*mp+2)/5 + 1
	m := mp + 3
	if m > 12 {
		m -= 12
	}
	if m <= 2 {
		y++
	}
	b = append(b, byte('0'+y/1000), byte('0'+y/100%10), byte('0'+y/10%10), byte('0'+y%10), '-',
		byte('0'+m/10), byte('0'+m%10), '-', byte('0'+d/10), byte('0'+d%10))
	return b
}
