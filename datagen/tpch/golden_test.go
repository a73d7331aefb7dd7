package tpch

import (
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// The first orders of dbgen's SF1 orders.tbl and lineitem.tbl, as dbgen
// (and go-tpc's port of it) writes them.
const goldenOrdersSF1 = `1|36901|O|173665.47|1996-01-02|5-LOW|Clerk#000000951|0|nstructions sleep furiously among |
2|78002|O|46929.18|1996-12-01|1-URGENT|Clerk#000000880|0| foxes. pending accounts at the pending, silent asymptot|
3|123314|F|193846.25|1993-10-14|5-LOW|Clerk#000000955|0|sly final accounts boost. carefully regular ideas cajole carefully. depos|
4|136777|O|32151.78|1995-10-11|5-LOW|Clerk#000000124|0|sits. slyly regular warthogs cajole. regular, regular theodolites acro|
5|44485|F|144659.20|1994-07-30|5-LOW|Clerk#000000925|0|quickly. bold deposits sleep slyly. packages use slyly|
6|55624|F|58749.59|1992-02-21|4-NOT SPECIFIED|Clerk#000000058|0|ggle. special, final requests are against the furiously specia|
7|39136|O|252004.18|1996-01-10|2-HIGH|Clerk#000000470|0|ly special requests |
32|130057|O|208660.75|1995-07-16|2-HIGH|Clerk#000000616|0|ise blithely bold, regular requests. quickly unusual dep|
`

const goldenLineitemSF1 = `1|155190|7706|1|17|21168.23|0.04|0.02|N|O|1996-03-13|1996-02-12|1996-03-22|DELIVER IN PERSON|TRUCK|egular courts above the|
1|67310|7311|2|36|45983.16|0.09|0.06|N|O|1996-04-12|1996-02-28|1996-04-20|TAKE BACK RETURN|MAIL|ly final dependencies: slyly bold |
1|63700|3701|3|8|13309.60|0.10|0.02|N|O|1996-01-29|1996-03-05|1996-01-31|TAKE BACK RETURN|REG AIR|riously. regular, express dep|
1|2132|4633|4|28|28955.64|0.09|0.06|N|O|1996-04-21|1996-03-30|1996-05-16|NONE|AIR|lites. fluffily even de|
1|24027|1534|5|24|22824.48|0.10|0.04|N|O|1996-03-30|1996-03-14|1996-04-01|NONE|FOB| pending foxes. slyly re|
1|15635|638|6|32|49620.16|0.07|0.02|N|O|1996-01-30|1996-02-07|1996-02-03|DELIVER IN PERSON|MAIL|arefully slyly ex|
2|106170|1191|1|38|44694.46|0.00|0.05|N|O|1997-01-28|1997-01-14|1997-02-02|TAKE BACK RETURN|RAIL|ven requests. deposits breach a|
3|4297|1798|1|45|54058.05|0.06|0.00|R|F|1994-02-02|1994-01-04|1994-02-23|NONE|AIR|ongside of the furiously brave acco|
3|19036|6540|2|49|46796.47|0.10|0.00|R|F|1993-11-09|1993-12-20|1993-11-24|TAKE BACK RETURN|RAIL| unusual accounts. eve|
3|128449|3474|3|27|39890.88|0.06|0.07|A|F|1994-01-16|1993-11-22|1994-01-23|DELIVER IN PERSON|SHIP|nal foxes wake. |
3|29380|1883|4|2|2618.76|0.01|0.06|A|F|1993-12-04|1994-01-07|1994-01-01|NONE|TRUCK|y. fluffily pending d|
3|183095|650|5|28|32986.52|0.04|0.00|R|F|1993-12-14|1994-01-10|1994-01-01|TAKE BACK RETURN|FOB|ages nag slyly pending|
3|62143|9662|6|26|28733.64|0.10|0.02|A|F|1993-10-29|1993-12-18|1993-11-04|TAKE BACK RETURN|RAIL|ges sleep after the caref|
4|88035|5560|1|30|30690.90|0.03|0.08|N|O|1996-01-10|1995-12-14|1996-01-18|DELIVER IN PERSON|REG AIR|- quickly regular packages sleep. idly|
5|108570|8571|1|15|23678.55|0.02|0.04|R|F|1994-10-31|1994-08-31|1994-11-20|NONE|AIR|ts wake furiously |
5|123927|3928|2|26|50723.92|0.07|0.08|R|F|1994-10-16|1994-09-25|1994-10-19|NONE|FOB|sts use slyly quickly special instruc|
5|37531|35|3|50|73426.50|0.08|0.03|A|F|1994-08-08|1994-10-13|1994-08-26|DELIVER IN PERSON|AIR|eodolites. fluffily unusual|
6|139636|2150|1|37|61998.31|0.08|0.03|A|F|1992-04-27|1992-05-15|1992-05-02|TAKE BACK RETURN|TRUCK|p furiously special foxes|
`

// The first rows of the other tables at SF1 as dbgen writes them (go-tpc
// checks its port against the same lines).
const goldenPartSF1 = `1|goldenrod lavender spring chocolate lace|Manufacturer#1|Brand#13|PROMO BURNISHED COPPER|7|JUMBO PKG|901.00|ly. slyly ironi|
2|blush thistle blue yellow saddle|Manufacturer#1|Brand#13|LARGE BRUSHED BRASS|1|LG CASE|902.00|lar accounts amo|
3|spring green yellow purple cornsilk|Manufacturer#4|Brand#42|STANDARD POLISHED BRASS|21|WRAP CASE|903.00|egular deposits hag|
`

const goldenPartsuppSF1 = `1|2|3325|771.64|, even theodolites. regular, final theodolites eat after the carefully pending foxes. furiously regular deposits sleep slyly. carefully bold realms above the ironic dependencies haggle careful|
1|2502|8076|993.49|ven ideas. quickly even packages print. pending multipliers must have to are fluff|
1|5002|3956|337.09|after the fluffily ironic deposits? blithely special dependencies integrate furiously even excuses. blithely silent theodolites could have to haggle pending, express requests; fu|
1|7502|4069|357.84|al, regular dependencies serve carefully after the quickly final pinto beans. furiously even deposits sleep quickly final, silent pinto beans. fluffily reg|
2|3|8895|378.49|nic accounts. final accounts sleep furiously about the ironic, bold packages. regular, regular accounts|
`

const goldenSupplierSF1 = `1|Supplier#000000001| N kD4on9OM Ipw3,gf0JBoQDd7tgrzrddZ|17|27-918-335-1736|5755.94|each slyly above the careful|
2|Supplier#000000002|89eJ5ksX3ImxJQBvxObC,|5|15-679-861-2259|4032.68| slyly bold instructions. idle dependen|
3|Supplier#000000003|q1,G3Pj6OjIuUYfUoH18BFTKP5aU9bEV3|1|11-383-516-1199|4192.40|blithely silent requests after the express dependencies are sl|
4|Supplier#000000004|Bk7ah4CK8SYQTepEmvMkkgMwg|15|25-843-787-7479|4641.08|riously even requests above the exp|
5|Supplier#000000005|Gcdm2rJRzl5qlTVzc|11|21-151-690-3663|-283.84|. slyly regular pinto bea|
`

const goldenCustomerSF1 = `1|Customer#000000001|IVhzIApeRb ot,c,E|15|25-989-741-2988|711.56|BUILDING|to the even, regular platelets. regular, ironic epitaphs nag e|
2|Customer#000000002|XSTf4,NCwDVaWNe6tEgvwfmRchLXak|13|23-768-687-3665|121.65|AUTOMOBILE|l accounts. blithely ironic theodolites integrate boldly: caref|
3|Customer#000000003|MG9kdTD2WBHm|1|11-719-748-3364|7498.12|AUTOMOBILE| deposits eat slyly ironic, even instructions. express foxes detect slyly. blithely even accounts abov|
`

const goldenNationSF1 = `0|ALGERIA|0| haggle. carefully final deposits detect slyly agai|
1|ARGENTINA|1|al foxes promise slyly according to the regular accounts. bold requests alon|
2|BRAZIL|1|y alongside of the pending deposits. carefully special packages are about the ironic forges. slyly special |
`

const goldenRegionSF1 = `0|AFRICA|lar deposits. blithely final packages cajole. regular waters are final requests. regular accounts are according to |
1|AMERICA|hs use ironic, even requests. s|
2|ASIA|ges. thinly even pinto beans ca|
3|EUROPE|ly final courts cajole furiously final excuse|
4|MIDDLE EAST|uickly special accounts cajole carefully blithely close requests. carefully final asymptotes haggle furiousl|
`

// dbgenLines formats the first n rows of table at sf as dbgen's .tbl
// lines (quantity as a whole number, as dbgen writes it).
func dbgenLines(t *testing.T, table string, sf float64, n int) string {
	t.Helper()
	r, err := NewReader(memory.DefaultAllocator, table, sf)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	if !r.Next() {
		t.Fatal("no batch")
	}
	rec := r.RecordBatch()
	var b strings.Builder
	for i := range min(n, int(rec.NumRows())) {
		for j, col := range rec.Columns() {
			v := formatValue(col, i)
			if table == LineitemTable && j == 4 { // l_quantity
				v = strings.TrimSuffix(v, ".00")
			}
			b.WriteString(v + "|")
		}
		b.WriteString("\n")
	}
	return b.String()
}

func TestGoldenSF1(t *testing.T) {
	for _, tc := range []struct {
		table, want string
	}{
		{OrdersTable, goldenOrdersSF1}, {LineitemTable, goldenLineitemSF1},
		{PartTable, goldenPartSF1}, {PartsuppTable, goldenPartsuppSF1}, {SupplierTable, goldenSupplierSF1},
		{CustomerTable, goldenCustomerSF1}, {NationTable, goldenNationSF1}, {RegionTable, goldenRegionSF1},
	} {
		want := strings.Count(tc.want, "\n")
		if got := dbgenLines(t, tc.table, 1, want); got != tc.want {
			t.Errorf("%s at SF1:\ngot\n%s\nwant (dbgen)\n%s", tc.table, got, tc.want)
		}
	}
}

// q1 is TPC-H Q1 computed directly over the generated rows, in cents and
// basis points, formatted as dbgen's reference answer is.
func q1(t *testing.T, sf float64) string {
	t.Helper()
	r, err := Lineitem(memory.DefaultAllocator, sf)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	type group struct{ qty, base, disc, n int64 }
	groups := map[string]*group{}
	cutoff := arrow.Date32FromTime(mustDate("1998-09-02"))
	for r.Next() {
		rec := r.RecordBatch()
		qty, price := rec.Column(4).(*array.Decimal128), rec.Column(5).(*array.Decimal128)
		disc := rec.Column(6).(*array.Decimal128)
		rf, ls := rec.Column(8).(*array.String), rec.Column(9).(*array.String)
		ship := rec.Column(10).(*array.Date32)
		for i := range int(rec.NumRows()) {
			if ship.Value(i) > cutoff {
				continue
			}
			k := rf.Value(i) + "|" + ls.Value(i)
			g := groups[k]
			if g == nil {
				g = &group{}
				groups[k] = g
			}
			g.qty += int64(qty.Value(i).LowBits()) / 100
			g.base += int64(price.Value(i).LowBits())
			g.disc += int64(disc.Value(i).LowBits())
			g.n++
		}
	}
	var b strings.Builder
	for _, k := range []string{"A|F", "N|F", "N|O", "R|F"} {
		g := groups[k]
		fmt.Fprintf(&b, "%s|%d|%d.%02d|%d\n", k, g.qty, g.base/100, g.base%100, g.n)
	}
	return b.String()
}

// TestQ1SF001 pins Q1's sums at SF 0.01 to what dbgen's data gives
// (DuckDB's tpch extension, which runs dbgen, answers the same).
func TestQ1SF001(t *testing.T) {
	want := `A|F|380456|532348211.65|14876
N|F|8971|12384801.37|348
N|O|742802|1041502841.45|29181
R|F|381449|534594445.35|14902
`
	if got := q1(t, 0.01); got != want {
		t.Errorf("Q1 at SF 0.01:\ngot\n%s\nwant\n%s", got, want)
	}
}

// TestQ1SF1 checks the sums of Q1 against TPC-H's reference answer at SF1
// (sum_qty, sum_base_price, count_order per group).
func TestQ1SF1(t *testing.T) {
	if testing.Short() {
		t.Skip("generates 6M rows")
	}
	want := `A|F|37734107|56586554400.73|1478493
N|F|991417|1487504710.38|38854
N|O|74476040|111701729697.74|2920374
R|F|37719753|56568041380.90|1478870
`
	if got := q1(t, 1); got != want {
		t.Errorf("Q1 at SF1:\ngot\n%s\nwant (TPC-H reference answer)\n%s", got, want)
	}
}
