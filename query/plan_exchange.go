package query

import (
	"github.com/quiverdb/quiver/query/expr"
)

// Choosing the GROUP BY hash exchange (op_aggexchange.go). By default
// each worker aggregates its batches into a table of its own and the
// tables are merged at the end: cheap when there are few groups, but with
// millions each worker's table holds most of them and the merge redoes the
// work. The exchange instead sends every row to the worker that owns its
// key's partition, so each group is aggregated once, at the cost of
// copying the keys and arguments. Measured at TPC-H SF 1 on 2 cores
// (BENCHMARKS §16b): 1.5 M groups (l_orderkey, the dense path) 130–166 ms
// without against 144–147 with; 0.8 M (l_partkey, l_suppkey) 458–588
// against 421–445; 6 M (l_orderkey, l_linenumber) 1,052–1,092 against
// 567–644; 10 M generated groups 1,833 against 667. So it is chosen when
// the estimated groups reach exchangeGroups and the key is not dense
// (an array beats both).
const exchangeGroups = 2_000_000

// estimateGroups is the groups of n the statistics estimate: every key a
// column of a scanned table with a distinct count, the product of those
// (at most the table's rows); 0 when they cannot say.
func (b *builder) estimateGroups(n *aggregateNode) int64 {
	if len(n.keys) == 0 || b.c == nil {
		return 0
	}
	groups, rows := 1.0, 0.0
	for _, k := range n.keys {
		x := expr.Inspect(unwrapDictKey(k))
		if x.Kind != expr.KindColumn || x.Column < 0 {
			return 0
		}
		scan, col, ok := traceToScan(n.in, x.Column)
		if !ok {
			return 0
		}
		st := b.statsOfTable(scan.table)
		if st == nil || col >= len(st.Columns) || st.Columns[col].Distinct <= 0 {
			return 0
		}
		groups *= float64(st.Columns[col].Distinct)
		rows = max(rows, float64(st.Columns[col].Rows))
	}
	return int64(min(groups, rows))
}

// groupBytes is a generous guess of what one group costs the exchange
// per key and aggregate (10 M groups of one key and two aggregates
// peaked at 809 MiB: about 28 bytes each).
const groupBytes = 48

// exchangeChosen reports whether the planner's estimates send a GROUP
// BY through the exchange: every key a column of a scanned table with a
// distinct count, the product of those (at most the table's rows) at
// least Options.ExchangeGroups (exchangeGroups by default). The exchange does not spill: when the engine can
// (Options.Spill), it is chosen only when the groups are estimated to
// take at most half the memory limit, so that a GROUP BY that may need
// to spill keeps the path that can.
func (b *builder) exchangeChosen(n *aggregateNode) bool {
	threshold := float64(b.opts.ExchangeGroups)
	if threshold == 0 {
		threshold = exchangeGroups
	}
	if len(n.keys) == 0 || n.dense != nil || threshold < 0 {
		return false
	}
	groups := float64(n.groups)
	if groups <= 0 || groups < threshold {
		return false
	}
	if b.opts.Spill != nil {
		limit := b.opts.MemoryLimit
		if limit <= 0 {
			limit = DefaultMemoryLimit
		}
		return groups*groupBytes*float64(len(n.keys)+len(n.aggs)) <= float64(limit)/2
	}
	return true
}
