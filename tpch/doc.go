// Package tpch generates TPC-H's lineitem and orders tables as Arrow
// record batches, for tests and benchmarks: the same rows TPC-H's dbgen
// writes, at any scale factor dbgen takes, deterministic, streamed in
// BatchRows-row batches.
//
//	r, err := tpch.Lineitem(mem, 0.01) // 60,175 rows
//	defer r.Release()
//	for r.Next() { use(r.RecordBatch()) }
//
//	err = tpch.WriteCSV(w, tpch.LineitemTable, 0.1)
//
// Package tpchparquet writes the same tables as Parquet, and package
// tpchcache puts them into a cache.Cache (this package does not depend on
// the storage layer).
//
// # The generator
//
// go-tpc's dbgen (github.com/pingcap/go-tpc/tpch/dbgen, a port of dbgen
// 2.4) cannot be used as it is: it takes whole scale factors only, keeps
// its state in package variables, prints to stdout and pushes rows through
// callbacks. So this package re-implements dbgen's generation of orders
// and lineitem (mk_order: the per-column random streams with their seeds,
// dbgen's uniform draw through a double, the per-row stream advance, the
// sparse order keys, the part–supplier bridge, retail prices, dates,
// flags and statuses, and the 300 MiB text pool the comments are cut
// from), reading dbgen's word lists (dists.dss) from go-tpc's dist
// package. It is checked row for row against dbgen's first SF1 rows and
// against TPC-H's reference answer to Q1 at SF1 (golden_test.go).
//
// Scale factors are dbgen's: below 1, a multiple of 0.001 (the table
// bases shrink, as dbgen -s 0.01 does: 15,000 orders, 1,500 customers,
// 2,000 parts and 100 suppliers at SF 0.01, and 1,000 clerks at any SF
// up to 1); from 1 to 1000, a whole number.
//
// # Types
//
// lineitem: l_orderkey, l_partkey, l_suppkey int64; l_linenumber int32;
// l_quantity, l_extendedprice, l_discount, l_tax decimal128(15,2);
// l_returnflag, l_linestatus utf8; l_shipdate, l_commitdate,
// l_receiptdate date32; l_shipinstruct, l_shipmode, l_comment utf8.
// orders: o_orderkey, o_custkey int64; o_orderstatus utf8; o_totalprice
// decimal128(15,2); o_orderdate date32; o_orderpriority, o_clerk utf8;
// o_shippriority int32; o_comment utf8. No column has NULLs, and the
// fields say so. Rows come in dbgen's order: by order key, and lineitem
// by line number within an order; shipdates are not sorted.
//
// # Cost
//
// The first reader in a process builds the text pool: 300 MiB, kept for
// the life of the process, about 1.5 s. After it, one core generates about
// 1.5 million lineitem rows a second (SF1 in about 4 s) and 430,000
// orders a second (orders generates the lines too: an order's price and
// status come from them); see BenchmarkGenerate.
package tpch
