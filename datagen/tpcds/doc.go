// Package tpcds generates TPC-DS's catalog_sales table as Arrow record
// batches, for benchmarks: the result Kyuubi fetched in its compressed
// result benchmark (anchors.md §5.2), made in Go, deterministic from a
// seed, streamed batch by batch.
//
//	r := tpcds.CatalogSales(mem, 2_000_000, 0) // 10,000-row batches
//	defer r.Release()
//	for r.Next() { use(r.RecordBatch()) }
//
//	r := tpcds.CatalogSalesNumeric(mem, 2_000_000, 0) // the 8 numeric columns
//	r, err := tpcds.NewCatalogSales(mem, tpcds.Config{Rows: n, Seed: 7, ScaleFactor: 10})
//
// # Types
//
// The 34 columns of the specification, in its order. Surrogate keys
// (cs_*_sk) and cs_quantity are int32, cs_order_number int64, the 15
// money columns decimal(7,2) as Arrow decimal128(7,2): the types Spark's
// TPC-DS schema gives them, so a full row is 324 bytes of Arrow buffers
// (Kyuubi measured 324.6 bytes a row at SF10, including message overhead)
// and the numeric projection 81 (Kyuubi: 81.05). Every column is nullable
// but the primary key, cs_item_sk and cs_order_number. NumericColumns
// says which 8 columns stand in for Kyuubi's cs_numeric and why.
//
// # What is dsdgen's and what is not
//
// The values are not dsdgen's bytes: dsdgen keeps one random stream per
// column with its own seeds, and this package draws everything from one
// PCG stream. What is taken from dsdgen's source (w_catalog_sales.c,
// pricing.c, join.c, scd.c, nulls.c, constants.h, tdefs):
//
//   - Exact rules. Orders numbered from 1 with 4 to 14 lines each; every
//     line of an order shares its sale date and time, call center and
//     bill-to and ship-to customer, demographics and address; ship-to
//     differs from bill-to on orders whose 0..99 draw is ≤ 10 (11%);
//     the ship date is the sale date plus 2 to 90 days; items are walked
//     through a random permutation of the item ids from a random start
//     per order, so an order never repeats an item, and mapped to the
//     surrogate key of the item revision current on the sale date
//     (matchSCDSK: every 6 keys hold ids with 1, 2 and 3 revisions); call
//     centers likewise; catalog pages from a catalog current on the sale
//     date (cp_join); ship mode, warehouse, promotion, customer,
//     demographics and address uniform over their dimension.
//   - Exact pricing. Quantity 1..100, wholesale cost 1.00..100.00, list
//     price = wholesale × (1 + markup 0.00..2.00), sales price = list ×
//     (1 − discount 0.00..1.00), ext_* = × quantity, ext_discount_amt =
//     ext_list − ext_sales, a coupon of 0.00..1.00 × ext_sales on 20% of
//     lines, net_paid = ext_sales − coupon, ext_ship_cost = (list ×
//     0.00..0.50) × quantity, ext_tax = net_paid × 0.00..0.09, and the
//     net_paid_inc_* and net_profit sums; each product truncated to 2
//     places as dsdgen's decimal_t_op does. (The list price runs up to 3×
//     wholesale: CS_MARKUP_MAX is 2.00, not 1.00 as for store_sales.)
//   - Exact NULLs. A line gets a NULL mask when a 0..9999 draw is below
//     catalog_sales's 100, i.e. on 1% of lines; the mask is a uniform
//     31-bit number less the primary key's bits. So each nullable column
//     is NULL on about 0.5% of rows, not the 4.5% of store_sales (whose
//     threshold is 900), and the last three columns in dsdgen's column
//     numbering (cs_net_paid_inc_ship, cs_net_paid_inc_ship_tax,
//     cs_net_profit), whose bits lie past the 31, are never NULL.
//     Values under a NULL are 0.
//   - Dimension sizes: the specification's row counts (table 3-2) at SF
//     1, 10, 100, 300 and 1000, linear between them, SF 1's below.
//   - Approximate. Sale dates advance through 1998-01-01 .. 2002-12-31 in
//     row order, denser in August–October and again in November–December
//     as dsdgen's three sales zones are, but with our weights (1, 2, 3),
//     not those of dsdgen's calendar distribution; dates spread over the
//     rows asked for, as if the table had that many rows. The time of day
//     is uniform (dsdgen weighs hours). The three catalog kinds
//     (bi-annual, quarterly, monthly) are equally likely (dsdgen weighs
//     them). The random draws are Lemire's multiply-shift without
//     rejection (bias below 2^-32 for these ranges).
//
// What this is measured by: the zstd ratio of the generated batches as
// arrow-go's IPC writer compresses them is 0.18 for all 34 columns, the
// ratio Kyuubi reported (849,920,016 / 4,674,336,136 = 0.182), and 0.18
// for the numeric projection (Kyuubi: 0.21, with columns we do not know).
//
// # Cost
//
// One core makes about 5 million rows a second of all 34 columns
// (BenchmarkCatalogSales): 2 million rows in under half a second.
package tpcds
