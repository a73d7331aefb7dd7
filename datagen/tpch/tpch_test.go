package tpch

import (
	"bytes"
	"encoding/csv"
	"hash/maphash"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func mustDate(s string) time.Time {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return t
}

func date(s string) arrow.Date32 { return arrow.Date32FromTime(mustDate(s)) }

// readAll reads a table to the end: its rows, batches and a hash of every
// value, checking batch sizes and freeing everything on a checked
// allocator.
func readAll(t *testing.T, table string, sf float64, each func(arrow.RecordBatch)) (rows int64, batches int, sum uint64) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	r, err := NewReader(mem, table, sf)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	var h maphash.Hash
	h.SetSeed(seed)
	for r.Next() {
		rec := r.RecordBatch()
		if !rec.Schema().Equal(r.Schema()) {
			t.Fatalf("batch schema %s, reader's %s", rec.Schema(), r.Schema())
		}
		if batches > 0 && rows%BatchRows != 0 {
			t.Fatalf("batch %d follows a short batch", batches)
		}
		for i := range int(rec.NumRows()) {
			for _, col := range rec.Columns() {
				if col.IsNull(i) {
					t.Fatalf("%s: NULL in row %d", table, rows+int64(i))
				}
				h.WriteString(formatValue(col, i))
			}
		}
		if each != nil {
			each(rec)
		}
		rows += rec.NumRows()
		batches++
	}
	if r.Next() {
		t.Fatal("Next after the end")
	}
	return rows, batches, h.Sum64()
}

var seed = maphash.MakeSeed()

// TestRowCounts checks the sizes dbgen gives (TPC-H 4.2.5: lineitem's is
// about 6,000,000 × SF, the exact number depending on the data).
func TestRowCounts(t *testing.T) {
	for _, tc := range []struct {
		table string
		sf    float64
		rows  int64
	}{
		{LineitemTable, 0.01, 60175},
		{OrdersTable, 0.01, 15000},
		{LineitemTable, 0.001, 6005},
		{OrdersTable, 0.002, 3000},
		{RegionTable, 0.01, 5},
		{NationTable, 0.001, 25},
		{PartTable, 0.01, 2000},
		{PartsuppTable, 0.01, 8000},
		{SupplierTable, 0.01, 100},
		{CustomerTable, 0.01, 1500},
		{CustomerTable, 0.06, 9000},
	} {
		rows, batches, _ := readAll(t, tc.table, tc.sf, nil)
		if rows != tc.rows {
			t.Errorf("%s at SF %v: %d rows, want %d", tc.table, tc.sf, rows, tc.rows)
		}
		if want := int((tc.rows + BatchRows - 1) / BatchRows); batches != want {
			t.Errorf("%s at SF %v: %d batches, want %d", tc.table, tc.sf, batches, want)
		}
	}
}

func TestDeterministic(t *testing.T) {
	for _, table := range Tables {
		_, _, a := readAll(t, table, 0.005, nil)
		_, _, b := readAll(t, table, 0.005, nil)
		if a != b {
			t.Errorf("%s: two readers at the same SF differ", table)
		}
		if table == NationTable || table == RegionTable {
			continue // the same at every scale factor
		}
		if _, _, c := readAll(t, table, 0.006, nil); c == a {
			t.Errorf("%s: SF 0.005 and 0.006 hash the same", table)
		}
	}
}

// TestLineitemRanges checks every column against TPC-H 4.2.3 at SF 0.01.
func TestLineitemRanges(t *testing.T) {
	const parts, suppliers = 2000, 100
	flags, modes, instructs := map[string]int{}, map[string]int{}, map[string]int{}
	lastKey, lastLine := int64(0), int32(0)
	readAll(t, LineitemTable, 0.01, func(rec arrow.RecordBatch) {
		key, part, supp := col[*array.Int64](rec, 0), col[*array.Int64](rec, 1), col[*array.Int64](rec, 2)
		line := col[*array.Int32](rec, 3)
		qty, price, disc, tax := col[*array.Decimal128](rec, 4), col[*array.Decimal128](rec, 5), col[*array.Decimal128](rec, 6), col[*array.Decimal128](rec, 7)
		rflag, status := col[*array.String](rec, 8), col[*array.String](rec, 9)
		ship, commit, recv := col[*array.Date32](rec, 10), col[*array.Date32](rec, 11), col[*array.Date32](rec, 12)
		instr, mode, comment := col[*array.String](rec, 13), col[*array.String](rec, 14), col[*array.String](rec, 15)
		for i := range int(rec.NumRows()) {
			k, l := key.Value(i), line.Value(i)
			switch {
			case k == lastKey && l == lastLine+1, k > lastKey && l == 1:
			default:
				t.Fatalf("row (%d, %d) after (%d, %d)", k, l, lastKey, lastLine)
			}
			lastKey, lastLine = k, l
			check(t, "l_linenumber", int64(l), 1, 7)
			check(t, "l_partkey", part.Value(i), 1, parts)
			check(t, "l_suppkey", supp.Value(i), 1, suppliers)
			q := cents(qty, i)
			check(t, "l_quantity", q, 100, 5000)
			if q%100 != 0 {
				t.Fatalf("l_quantity %d cents", q)
			}
			if want := retailPrice(part.Value(i)) * q / 100; cents(price, i) != want {
				t.Fatalf("l_extendedprice %d, want %d", cents(price, i), want)
			}
			check(t, "l_discount", cents(disc, i), 0, 10)
			check(t, "l_tax", cents(tax, i), 0, 8)
			s, c, r := ship.Value(i), commit.Value(i), recv.Value(i)
			check(t, "l_shipdate", int64(s), int64(date("1992-01-02")), int64(date("1998-12-01")))
			check(t, "l_commitdate", int64(c), int64(date("1992-01-31")), int64(date("1998-10-31")))
			check(t, "l_receiptdate", int64(r-s), 1, 30)
			wantStatus := "O"
			if s <= date("1995-06-17") {
				wantStatus = "F"
			}
			if status.Value(i) != wantStatus {
				t.Fatalf("l_linestatus %q for shipdate %s", status.Value(i), s.FormattedString())
			}
			f := rflag.Value(i)
			if (r <= date("1995-06-17")) == (f == "N") || !strings.Contains("RAN", f) || len(f) != 1 {
				t.Fatalf("l_returnflag %q for receiptdate %s", f, r.FormattedString())
			}
			flags[f]++
			modes[mode.Value(i)]++
			instructs[instr.Value(i)]++
			check(t, "len(l_comment)", int64(len(comment.Value(i))), 10, 43)
		}
	})
	if len(flags) != 3 || len(modes) != 7 || len(instructs) != 4 {
		t.Errorf("distinct values: returnflag %v, shipmode %v, shipinstruct %v", flags, modes, instructs)
	}
}

func TestOrdersRanges(t *testing.T) {
	const customers = 1500
	readAll(t, OrdersTable, 0.01, func(rec arrow.RecordBatch) {
		key, cust := col[*array.Int64](rec, 0), col[*array.Int64](rec, 1)
		status, odate := col[*array.String](rec, 2), col[*array.Date32](rec, 4)
		clerk := col[*array.String](rec, 6)
		for i := range int(rec.NumRows()) {
			if k := key.Value(i); k == 0 || k%32 > 7 {
				t.Fatalf("o_orderkey %d is not sparse (8 of every 32)", k)
			}
			c := cust.Value(i)
			check(t, "o_custkey", c, 1, customers)
			if c%3 == 0 {
				t.Fatalf("o_custkey %d: a multiple of 3 has no orders", c)
			}
			check(t, "o_orderdate", int64(odate.Value(i)), int64(date("1992-01-01")), int64(date("1998-08-02")))
			if s := status.Value(i); s != "O" && s != "F" && s != "P" {
				t.Fatalf("o_orderstatus %q", s)
			}
			if cl := clerk.Value(i); len(cl) != 15 || cl < "Clerk#000000001" || cl > "Clerk#000001000" {
				t.Fatalf("o_clerk %q", cl)
			}
		}
	})
}

func col[T arrow.Array](rec arrow.RecordBatch, i int) T { return rec.Column(i).(T) }

func cents(a *array.Decimal128, i int) int64 { return int64(a.Value(i).LowBits()) }

func check(t *testing.T, what string, v, lo, hi int64) {
	t.Helper()
	if v < lo || v > hi {
		t.Fatalf("%s = %d, want [%d, %d]", what, v, lo, hi)
	}
}

func TestBadArguments(t *testing.T) {
	for _, sf := range []float64{0, -1, 0.0005, 0.0125, 1.5, 2000} {
		if _, err := Lineitem(nil, sf); err == nil {
			t.Errorf("SF %v: no error", sf)
		}
	}
	if _, err := NewReader(nil, "parts", 1); err == nil || !strings.Contains(err.Error(), "region, nation, part, supplier, partsupp, customer, orders, lineitem") {
		t.Errorf("unknown table: %v", err)
	}
}

func TestWriteCSV(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteCSV(&buf, LineitemTable, 0.001); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 6005+1 {
		t.Fatalf("%d CSV rows, want a header and 6005", len(recs))
	}
	if got := strings.Join(recs[0], ","); !strings.HasPrefix(got, "l_orderkey,l_partkey,") {
		t.Errorf("header %q", got)
	}
	if got, want := strings.Join(recs[1][:13], "|"), "1|156|4|1|17.00|17954.55|0.04|0.02|N|O|1996-03-13|1996-02-12|1996-03-22"; got != want {
		t.Errorf("first row %q, want %q", got, want)
	}

	// A negative balance, and a table of the six others.
	buf.Reset()
	if err := WriteCSV(&buf, SupplierTable, 0.01); err != nil {
		t.Fatal(err)
	}
	if recs, err = csv.NewReader(&buf).ReadAll(); err != nil {
		t.Fatal(err)
	}
	if len(recs) != 100+1 || strings.Join(recs[0], ",") != "s_suppkey,s_name,s_address,s_nationkey,s_phone,s_acctbal,s_comment" {
		t.Fatalf("%d CSV rows, header %q", len(recs), recs[0])
	}
	if got, want := strings.Join(recs[5], "|"), "5|Supplier#000000005|Gcdm2rJRzl5qlTVzc|11|21-151-690-3663|-283.84|. slyly regular pinto bea"; got != want {
		t.Errorf("supplier 5 %q, want %q", got, want)
	}
}

// TestSmallTableRanges checks the columns of the six small tables against
// TPC-H 4.2.3 at SF 0.01, and partsupp's supplier keys against the
// spec's formula.
func TestSmallTableRanges(t *testing.T) {
	const parts, suppliers = 2000, 100
	readAll(t, PartTable, 0.01, func(rec arrow.RecordBatch) {
		key, size := col[*array.Int64](rec, 0), col[*array.Int32](rec, 5)
		mfgr, brand, price := col[*array.String](rec, 2), col[*array.String](rec, 3), col[*array.Decimal128](rec, 7)
		name := col[*array.String](rec, 1)
		for i := range int(rec.NumRows()) {
			check(t, "p_size", int64(size.Value(i)), 1, 50)
			m, b := mfgr.Value(i), brand.Value(i)
			if len(m) != 14 || !strings.HasPrefix(b, "Brand#"+m[13:]) || b[7] < '1' || b[7] > '5' {
				t.Fatalf("p_mfgr %q, p_brand %q", m, b)
			}
			if p := key.Value(i); cents(price, i) != 90000+(p/10)%20001+100*(p%1000) {
				t.Fatalf("p_retailprice %d for part %d", cents(price, i), p)
			}
			if words := strings.Fields(name.Value(i)); len(words) != 5 {
				t.Fatalf("p_name %q", name.Value(i))
			}
		}
	})
	seen := map[[2]int64]bool{}
	readAll(t, PartsuppTable, 0.01, func(rec arrow.RecordBatch) {
		part, supp := col[*array.Int64](rec, 0), col[*array.Int64](rec, 1)
		qty, cost := col[*array.Int32](rec, 2), col[*array.Decimal128](rec, 3)
		for i := range int(rec.NumRows()) {
			p, s := part.Value(i), supp.Value(i)
			// TPC-H 4.2.3: PS_SUPPKEY = (PS_PARTKEY + (i * ((S/4) +
			// (int)(PS_PARTKEY-1)/S))) modulo S + 1, i the supplier 0..3.
			j := int64(len(seen) % 4)
			if want := (p+j*(suppliers/4+(p-1)/suppliers))%suppliers + 1; s != want {
				t.Fatalf("ps_suppkey %d for part %d, supplier %d; want %d", s, p, j, want)
			}
			if seen[[2]int64{p, s}] {
				t.Fatalf("(%d, %d) twice", p, s)
			}
			seen[[2]int64{p, s}] = true
			check(t, "ps_partkey", p, 1, parts)
			check(t, "ps_availqty", int64(qty.Value(i)), 1, 9999)
			check(t, "ps_supplycost", cents(cost, i), 100, 100000)
		}
	})
	people := func(table string, nationCol int, balCol int) {
		readAll(t, table, 0.01, func(rec arrow.RecordBatch) {
			nation, phone := col[*array.Int64](rec, nationCol), col[*array.String](rec, nationCol+1)
			bal := col[*array.Decimal128](rec, balCol)
			for i := range int(rec.NumRows()) {
				n := nation.Value(i)
				check(t, table+" nation key", n, 0, 24)
				ph := phone.Value(i)
				if len(ph) != 15 || ph[:2] != strconv.FormatInt(n+10, 10) || ph[2] != '-' || ph[6] != '-' || ph[10] != '-' {
					t.Fatalf("%s phone %q for nation %d", table, ph, n)
				}
				check(t, table+" account balance", cents(bal, i), -99999, 999999)
			}
		})
	}
	people(SupplierTable, 3, 5)
	people(CustomerTable, 3, 5)
	regions := map[int64]int{}
	readAll(t, NationTable, 0.01, func(rec arrow.RecordBatch) {
		for i := range int(rec.NumRows()) {
			regions[col[*array.Int64](rec, 2).Value(i)]++
		}
	})
	if len(regions) != 5 || regions[0] != 5 || regions[4] != 5 {
		t.Errorf("nations per region %v, want 5 in each of 0-4", regions)
	}
}
