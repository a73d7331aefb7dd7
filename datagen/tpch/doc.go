// Package tpch generates TPC-H's eight tables as Arrow record batches,
// for tests and benchmarks: the same rows TPC-H's dbgen writes, at any
// scale factor dbgen takes, deterministic, streamed in BatchRows-row
// batches; and holds the 22 TPC-H queries (Query).
//
//	r, err := tpch.Lineitem(mem, 0.01) // 60,175 rows
//	r, err = tpch.NewReader(mem, tpch.PartsuppTable, 0.01) // 8,000 rows
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
// callbacks. So this package re-implements dbgen's generation: mk_order
// for orders and lineitem (the per-column random streams with their
// seeds, dbgen's uniform draw through a double, the per-row stream
// advance, the sparse order keys, the part–supplier bridge, retail
// prices, dates, flags and statuses, and the 300 MiB text pool the
// comments are cut from); mk_part for part and partsupp (names as five
// of the 92 colors in a random permutation, manufacturer and brand,
// type, container, supply costs and quantities); mk_supp and mk_cust
// (addresses from dbgen's a_rnd, phone numbers from the nation key,
// account balances, market segments, and the "Customer … Complaints" or
// "… Recommends" that dbgen writes into 10 of every 10,000 supplier
// comments); mk_nation and mk_region. dbgen's word lists (dists.dss)
// come from go-tpc's dist package. Each table is its own stream of
// batches drawing only on its own columns' random streams, so part and
// partsupp, or orders and lineitem, can be read apart. The rows are
// checked against dbgen's first SF1 rows of every table (golden_test.go),
// against go-tpc's dbgen for every row of the six small tables at SF 0.01
// and thousands at SF1 (dbgen_test.go), and against TPC-H's reference
// answer to Q1 at SF1.
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
// o_shippriority int32; o_comment utf8.
// part: p_partkey int64; p_name, p_mfgr, p_brand, p_type utf8; p_size
// int32; p_container utf8; p_retailprice decimal128(15,2); p_comment
// utf8. partsupp: ps_partkey, ps_suppkey int64; ps_availqty int32;
// ps_supplycost decimal128(15,2); ps_comment utf8. supplier: s_suppkey
// int64; s_name, s_address utf8; s_nationkey int64; s_phone utf8;
// s_acctbal decimal128(15,2); s_comment utf8. customer: c_custkey int64;
// c_name, c_address utf8; c_nationkey int64; c_phone utf8; c_acctbal
// decimal128(15,2); c_mktsegment, c_comment utf8. nation: n_nationkey
// int64, n_name utf8, n_regionkey int64, n_comment utf8. region:
// r_regionkey int64, r_name, r_comment utf8. Every key is int64, so that
// a join's two sides have one type. No column has NULLs, and the fields
// say so. Rows come in dbgen's order: by key, partsupp's four suppliers
// of a part together, and lineitem by line number within an order;
// shipdates are not sorted. Sizes at SF 1: region 5 and nation 25 rows
// at every scale factor; part 200,000; partsupp 800,000; supplier
// 10,000; customer 150,000; orders 1,500,000; lineitem about 6,000,000.
//
// # Cost
//
// The first reader in a process builds the text pool: 300 MiB, kept for
// the life of the process, about 1.5 s. After it, one core generates about
// 1.5 million lineitem rows a second (SF1 in about 4 s) and 430,000
// orders a second (orders generates the lines too: an order's price and
// status come from them); the six other tables together take about 1 s
// at SF1 (part 600,000 rows a second, partsupp 1.5 million, customer
// 850,000); see BenchmarkGenerate.
package tpch
