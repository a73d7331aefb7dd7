package tpch

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/pingcap/go-tpc/tpch/dbgen"
)

// go-tpc's port of dbgen is the reference for the six tables besides
// orders and lineitem: our rows must equal its rows. It runs whole scale
// factors only and keeps its state in package variables, so it runs
// once, at SF1, for the first rows of every table, and the tests compare
// prefixes: dbgen shrinks a table below SF1 by cutting its row count, so
// every value at SF 0.01 is the value of the same row at SF1, except
// ps_suppkey, which spreads a part's suppliers over the supplier count.

// dbgenRows is the number of rows of each table taken from go-tpc's
// dbgen: all of them at SF 0.01 and more; all SF1 suppliers, for the
// dozen with Better Business Bureau comments.
var dbgenRows = map[string]int{
	RegionTable: 5, NationTable: 25, PartTable: 3000, PartsuppTable: 12000, SupplierTable: 10000, CustomerTable: 2000,
}

var goTPC = sync.OnceValues(func() (map[string][]string, error) {
	dbgen.InitDbGen(1)
	out := map[string][]string{}
	add := func(table string, format string, args ...any) bool {
		out[table] = append(out[table], fmt.Sprintf(format, args...))
		return len(out[table]) < dbgenRows[table]
	}
	loaders := map[dbgen.Table]dbgen.Loader{
		dbgen.TRegion: loader(func(item any) bool {
			r := item.(*dbgen.Region)
			return add(RegionTable, "%d|%s|%s|", r.Code, r.Text, r.Comment)
		}),
		dbgen.TNation: loader(func(item any) bool {
			n := item.(*dbgen.Nation)
			return add(NationTable, "%d|%s|%d|%s|", n.Code, n.Text, n.Join, n.Comment)
		}),
		dbgen.TPart: loader(func(item any) bool {
			p := item.(*dbgen.Part)
			for _, s := range p.S {
				add(PartsuppTable, "%d|%d|%d|%s|%s|", s.PartKey, s.SuppKey, s.Qty, dbgen.FmtMoney(s.SCost), s.Comment)
			}
			return add(PartTable, "%d|%s|%s|%s|%s|%d|%s|%s|%s|", p.PartKey, p.Name, p.Mfgr, p.Brand, p.Type, p.Size,
				p.Container, dbgen.FmtMoney(p.RetailPrice), p.Comment)
		}),
		dbgen.TSupp: loader(func(item any) bool {
			s := item.(*dbgen.Supp)
			return add(SupplierTable, "%d|%s|%s|%d|%s|%s|%s|", s.SuppKey, s.Name, s.Address, s.NationCode, s.Phone,
				dbgen.FmtMoney(s.Acctbal), s.Comment)
		}),
		dbgen.TCust: loader(func(item any) bool {
			c := item.(*dbgen.Cust)
			return add(CustomerTable, "%d|%s|%s|%d|%s|%s|%s|%s|", c.CustKey, c.Name, c.Address, c.NationCode, c.Phone,
				dbgen.FmtMoney(c.Acctbal), c.MktSegment, c.Comment)
		}),
	}
	for table, l := range loaders {
		// DbGen wraps a loader's error with %v: errEnough shows in the text.
		err := dbgen.DbGen(map[dbgen.Table]dbgen.Loader{table: l}, []dbgen.Table{table})
		if err != nil && !strings.Contains(err.Error(), errEnough.Error()) {
			return nil, err
		}
	}
	return out, nil
})

// errEnough stops go-tpc's generator once it has made the rows wanted.
var errEnough = errors.New("enough rows")

type loader func(item any) bool

func (l loader) Load(item any) error {
	if !l(item) {
		return errEnough
	}
	return nil
}

func (loader) Flush() error { return nil }

// tblLines returns the first n rows of table at sf as dbgen's .tbl lines.
func tblLines(t *testing.T, table string, sf float64, n int) []string {
	t.Helper()
	r, err := NewReader(memory.DefaultAllocator, table, sf)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	var lines []string
	for r.Next() && len(lines) < n {
		rec := r.RecordBatch()
		for i := range min(n-len(lines), int(rec.NumRows())) {
			var b strings.Builder
			for _, col := range rec.Columns() {
				b.WriteString(formatValue(col, i) + "|")
			}
			lines = append(lines, b.String())
		}
	}
	return lines
}

// TestGoTPCDbgen compares every row of the six tables at SF 0.01 and
// their first rows at SF1 with go-tpc's dbgen.
func TestGoTPCDbgen(t *testing.T) {
	if testing.Short() {
		t.Skip("builds go-tpc's 300 MiB text pool")
	}
	want, err := goTPC()
	if err != nil {
		t.Fatal(err)
	}
	sf001 := map[string]int{RegionTable: 5, NationTable: 25, PartTable: 2000, PartsuppTable: 8000, SupplierTable: 100, CustomerTable: 1500}
	for table, n := range dbgenRows {
		compareLines(t, table, 1, tblLines(t, table, 1, n+1), want[table][:n])
		got := tblLines(t, table, 0.01, n)
		if len(got) != sf001[table] {
			t.Errorf("%s at SF 0.01: %d rows, want %d", table, len(got), sf001[table])
		}
		ref := want[table][:min(n, len(got))]
		if table == PartsuppTable {
			got, ref = dropSuppkey(got), dropSuppkey(ref)
		}
		compareLines(t, table, 0.01, got, ref)
	}
	bbb := map[string]int{}
	for _, l := range want[SupplierTable] {
		for _, w := range []string{"Complaints", "Recommends"} {
			if strings.Contains(l, "Customer ") && strings.Contains(l, w) {
				bbb[w]++
			}
		}
	}
	if bbb["Complaints"] == 0 || bbb["Recommends"] == 0 {
		t.Errorf("the suppliers compared have no Better Business Bureau comments of each kind: %v", bbb)
	}
}

// dropSuppkey blanks the second field of partsupp lines.
func dropSuppkey(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		f := strings.Split(l, "|")
		f[1] = "-"
		out[i] = strings.Join(f, "|")
	}
	return out
}

func compareLines(t *testing.T, table string, sf float64, got, want []string) {
	t.Helper()
	if len(got) < len(want) {
		t.Errorf("%s at SF %v: %d rows, want at least %d", table, sf, len(got), len(want))
		return
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("%s at SF %v, row %d:\ngot  %s\nwant %s (go-tpc's dbgen)", table, sf, i+1, got[i], want[i])
			return
		}
	}
}
