package query

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/quiverdb/quiver/query/agg"
)

// winPath is how a window call is computed over a partition that passes
// the memory limit (window_spill.go). Every call of a window takes one;
// the window spills a partition when all of them have one.
type winPath uint8

const (
	// pathStream: the rows before a row and a few after it
	// (window_stream.go's streamable calls); no spill needed.
	pathStream winPath = iota
	// pathRank: ntile, percent_rank, cume_dist: the partition's row
	// count from the first pass, positions and peers from the second.
	pathRank
	// pathPrefix: count(*), count and sum and avg of integers and
	// decimals over frames whose bounds are UNBOUNDED, CURRENT ROW or ROWS
	// offsets: total minus prefix, exact in 128 bits.
	pathPrefix
	// pathTotal: a frame that is the whole partition: its aggregate
	// (sum, avg and min, max of any type, every aggregate of package
	// agg), first_value, last_value or nth_value, from the first pass.
	pathTotal
	// pathBlock: a ROWS frame both of whose bounds are offsets or
	// CURRENT ROW: computed in memory over the chunk and the rows
	// around it that its frames reach.
	pathBlock
	// pathSuffix: min, max, and sum and avg of floats, over frames from
	// a row (CURRENT ROW or a ROWS offset) to UNBOUNDED FOLLOWING: the
	// first pass keeps each spilled batch's best value or float sum, the
	// second runs backwards over the chunk and adds what the batches not
	// read yet hold.
	pathSuffix
	// pathEdge: first_value and nth_value over frames from UNBOUNDED
	// PRECEDING, last_value over frames to UNBOUNDED FOLLOWING: the row
	// they take, kept by the first pass, when the row's frame holds it.
	pathEdge
	// pathNone: needs the whole partition in memory.
	pathNone
)

// spillPath chooses c's path.
func (n *windowNode) spillPath(c windowCall) winPath {
	if n.streamable(c) {
		return pathStream
	}
	f := c.frame
	switch c.kind {
	case winNtile, winPercentRank, winCumeDist:
		return pathRank
	case winGeneric:
		switch {
		case c.whole:
			return pathTotal
		case n.boundedRows(f):
			return pathBlock
		}
	case winFirstValue, winLastValue, winNthValue:
		switch {
		case n.wholeFrame(f):
			return pathTotal
		case n.boundedRows(f):
			return pathBlock
		case n.prefixFrame(f) && (c.kind == winLastValue) == (f.end.kind == boundUnboundedFollowing) &&
			(c.kind == winLastValue || f.start.kind == boundUnboundedPreceding):
			return pathEdge
		}
	case winAggregate:
		switch {
		case n.exactArg(c) && n.prefixFrame(f):
			return pathPrefix
		case n.wholeFrame(f):
			return pathTotal
		case n.boundedRows(f):
			return pathBlock
		case n.suffixFrame(f) && (c.fn == agg.Min || c.fn == agg.Max ||
			(c.fn == agg.Sum || c.fn == agg.Avg) && n.args[c.arg].Type().ID() == arrow.FLOAT64):
			return pathSuffix
		}
	}
	return pathNone
}

// suffixFrame reports whether f runs from CURRENT ROW or a ROWS offset of
// at most maxStreamOffset to UNBOUNDED FOLLOWING, with nothing excluded.
func (n *windowNode) suffixFrame(f frame) bool {
	switch f.start.kind {
	case boundPreceding, boundFollowing:
		if !f.rows || f.start.n > maxStreamOffset {
			return false
		}
	case boundCurrent:
	default:
		return false
	}
	return f.end.kind == boundUnboundedFollowing && f.exclude == excludeNoOthers
}

// exactArg reports whether c counts, or sums integers or decimals: what
// prefix sums answer exactly (float prefixes would lose precision).
func (n *windowNode) exactArg(c windowCall) bool {
	switch c.fn {
	case agg.CountStar, agg.Count:
		return true
	case agg.Sum, agg.Avg:
		id := n.args[c.arg].Type().ID()
		return id == arrow.INT64 || id == arrow.DECIMAL128
	}
	return false
}

// wholeFrame reports whether every row's frame f is its whole
// partition: UNBOUNDED on both sides, or, without ORDER BY, a RANGE or
// GROUPS CURRENT ROW (every row is a peer).
func (n *windowNode) wholeFrame(f frame) bool {
	peersAll := !f.rows && len(n.order) == 0
	return f.exclude == excludeNoOthers &&
		(f.start.kind == boundUnboundedPreceding || f.start.kind == boundCurrent && peersAll) &&
		(f.end.kind == boundUnboundedFollowing || f.end.kind == boundCurrent && peersAll)
}

// prefixFrame reports whether f's bounds are each UNBOUNDED, CURRENT
// ROW, or a ROWS offset of at most maxStreamOffset, with nothing
// excluded.
func (n *windowNode) prefixFrame(f frame) bool {
	ok := func(b frameBound) bool {
		switch b.kind {
		case boundPreceding, boundFollowing:
			return f.rows && b.n <= maxStreamOffset
		}
		return true
	}
	return f.exclude == excludeNoOthers && ok(f.start) && ok(f.end)
}

// boundedRows reports whether f is a ROWS frame whose bounds are
// offsets of at most maxStreamOffset or CURRENT ROW, excluding nothing
// or the current row (not its peers, which may reach past the rows
// held).
func (n *windowNode) boundedRows(f frame) bool {
	ok := func(b frameBound) bool {
		switch b.kind {
		case boundPreceding, boundFollowing:
			return b.n <= maxStreamOffset
		}
		return b.kind == boundCurrent
	}
	return f.rows && (f.exclude == excludeNoOthers || f.exclude == excludeCurrentRow) && ok(f.start) && ok(f.end)
}

// spillShape is what a spilled partition's second pass keeps around a
// row for c: rows before it, rows after it, and whether peer groups
// must be whole.
func (n *windowNode) spillShape(c windowCall, p winPath) (back, ahead int, peers bool) {
	offsets := func() {
		for _, b := range []frameBound{c.frame.start, c.frame.end} {
			switch b.kind {
			case boundPreceding:
				back = max(back, int(b.n))
			case boundFollowing:
				ahead = max(ahead, int(b.n))
			}
		}
	}
	switch p {
	case pathRank:
		peers = c.kind == winCumeDist && len(n.order) > 0
	case pathPrefix, pathSuffix, pathEdge:
		offsets()
		peers = !c.frame.rows && len(n.order) > 0
	case pathBlock:
		offsets()
	}
	return back, ahead, peers
}
