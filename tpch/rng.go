package tpch

// dbgen's random number streams (TPC-H dbgen rnd.c, rng64.c): each column
// draws from its own Park–Miller stream, and after each row every stream
// of the table is advanced to a fixed number of draws per row (its
// boundary), so a row's values do not depend on how many draws the rows
// before it happened to make.

const (
	rngMult = 16807
	rngMod  = 2147483647
)

// Streams dbgen uses for orders and lineitem, with their first seed and
// draws per order (dbgen's Seed[] table, rows 11–25, 38, 40 and 43; the
// text pool's stream 5 is in text.go).
const (
	sdOClerk   = 11
	sdOComment = 12
	sdODate    = 13
	sdLQty     = 14
	sdLDisc    = 15
	sdLTax     = 16
	sdLInstr   = 17
	sdLMode    = 18
	sdLPart    = 19
	sdLSupp    = 20
	sdLShip    = 21
	sdLCommit  = 22
	sdLRecv    = 23
	sdLRFlag   = 24
	sdLComment = 25
	sdOPrio    = 38
	sdOCust    = 40
	sdOLines   = 43
	numStreams = 44
)

// stream is one generator: its seed, draws this row and draws per row.
type stream struct {
	seed, used, bound int64
}

type streams [numStreams]stream

// orderStreams returns the streams orders and lineitem draw from, at the
// start of order 1.
func orderStreams() *streams {
	var s streams
	set := func(sd int, seed, bound int64) { s[sd] = stream{seed: seed, bound: bound} }
	set(sdOClerk, 1171034773, 1)
	set(sdOComment, 276090261, 2)
	set(sdODate, 1066728069, 1)
	set(sdLQty, 209208115, maxLines)
	set(sdLDisc, 554590007, maxLines)
	set(sdLTax, 721958466, maxLines)
	set(sdLInstr, 1371272478, maxLines)
	set(sdLMode, 675466456, maxLines)
	set(sdLPart, 1808217256, maxLines)
	set(sdLSupp, 2095021727, maxLines)
	set(sdLShip, 1769349045, maxLines)
	set(sdLCommit, 904914315, maxLines)
	set(sdLRecv, 373135028, maxLines)
	set(sdLRFlag, 717419739, maxLines)
	set(sdLComment, 1095462486, 2*maxLines)
	set(sdOPrio, 591449447, 1)
	set(sdOCust, 851767375, 1)
	set(sdOLines, 1434868289, 1)
	return &s
}

// random is dbgen's RANDOM(lo, hi, stream): uniform in [lo, hi], computed
// through a double exactly as dbgen's UnifInt does.
func (s *streams) random(lo, hi int64, sd int) int64 {
	st := &s[sd]
	st.used++
	st.seed = st.seed * rngMult % rngMod
	return lo + int64(float64(st.seed)/rngMod*float64(hi-lo+1))
}

// rowDone advances every stream with a boundary to the end of the row's
// draws (dbgen's row_stop).
func (s *streams) rowDone() {
	for i := range s {
		st := &s[i]
		if st.bound == 0 {
			continue
		}
		st.seed = skip(st.seed, st.bound-st.used)
		st.used = 0
	}
}

// skip returns the seed n draws after seed (dbgen's NthElement).
func skip(seed, n int64) int64 {
	mult := int64(rngMult)
	for n > 0 {
		if n&1 != 0 {
			seed = seed * mult % rngMod
		}
		n >>= 1
		mult = mult * mult % rngMod
	}
	return seed
}
