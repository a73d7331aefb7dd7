package tpch

import "math"

// dbgen's random number streams (TPC-H dbgen rnd.c, rng64.c): each column
// draws from its own Park–Miller stream, and after each row every stream
// of the table is advanced to a fixed number of draws per row (its
// boundary), so a row's values do not depend on how many draws the rows
// before it happened to make.

const (
	rngMult = 16807
	rngMod  = 2147483647
)

// dbgen's streams (its Seed[] table): the column each feeds, its first
// seed and its draws per row. Streams 5 (the text pool, text.go), 10 and
// 39 are not drawn from here.
const (
	sdPMfg      = 0
	sdPBrand    = 1
	sdPType     = 2
	sdPSize     = 3
	sdPCntr     = 4
	sdPComment  = 6
	sdPSQty     = 7
	sdPSCost    = 8
	sdPSComment = 9
	sdOClerk    = 11
	sdOComment  = 12
	sdODate     = 13
	sdLQty      = 14
	sdLDisc     = 15
	sdLTax      = 16
	sdLInstr    = 17
	sdLMode     = 18
	sdLPart     = 19
	sdLSupp     = 20
	sdLShip     = 21
	sdLCommit   = 22
	sdLRecv     = 23
	sdLRFlag    = 24
	sdLComment  = 25
	sdCAddr     = 26
	sdCNation   = 27
	sdCPhone    = 28
	sdCBal      = 29
	sdCSegment  = 30
	sdCComment  = 31
	sdSAddr     = 32
	sdSNation   = 33
	sdSPhone    = 34
	sdSBal      = 35
	sdSComment  = 36
	sdPName     = 37
	sdOPrio     = 38
	sdOCust     = 40
	sdNComment  = 41
	sdRComment  = 42
	sdOLines    = 43
	sdBBBJunk   = 44
	sdBBBType   = 45
	sdBBBCmnt   = 46
	sdBBBOffset = 47
	numStreams  = 48
)

// seeds holds each stream's first seed and draws per row; read only.
var seeds = [numStreams]struct{ seed, bound int64 }{
	sdPMfg: {1, 1}, sdPBrand: {46831694, 1}, sdPType: {1841581359, 1}, sdPSize: {1193163244, 1},
	sdPCntr: {727633698, 1}, sdPComment: {804159733, 2}, sdPName: {709314158, 92},
	sdPSQty: {1671059989, suppPerPart}, sdPSCost: {1051288424, suppPerPart}, sdPSComment: {1961692154, 2 * suppPerPart},
	sdOClerk: {1171034773, 1}, sdOComment: {276090261, 2}, sdODate: {1066728069, 1},
	sdOPrio: {591449447, 1}, sdOCust: {851767375, 1}, sdOLines: {1434868289, 1},
	sdLQty: {209208115, maxLines}, sdLDisc: {554590007, maxLines}, sdLTax: {721958466, maxLines},
	sdLInstr: {1371272478, maxLines}, sdLMode: {675466456, maxLines}, sdLPart: {1808217256, maxLines},
	sdLSupp: {2095021727, maxLines}, sdLShip: {1769349045, maxLines}, sdLCommit: {904914315, maxLines},
	sdLRecv: {373135028, maxLines}, sdLRFlag: {717419739, maxLines}, sdLComment: {1095462486, 2 * maxLines},
	sdCAddr: {881155353, 9}, sdCNation: {1489529863, 1}, sdCPhone: {1521138112, 3},
	sdCBal: {298370230, 1}, sdCSegment: {1140279430, 1}, sdCComment: {1335826707, 2},
	sdSAddr: {706178559, 9}, sdSNation: {110356601, 1}, sdSPhone: {884434366, 3},
	sdSBal: {962338209, 1}, sdSComment: {1341315363, 2},
	sdBBBJunk: {263032577, 1}, sdBBBType: {753643799, 1}, sdBBBCmnt: {202794285, 1}, sdBBBOffset: {715851524, 1},
	sdNComment: {606179079, 2}, sdRComment: {1500869201, 2},
}

// stream is one generator: its seed, draws this row and draws per row.
type stream struct {
	seed, used, bound int64
}

type streams [numStreams]stream

// newStreams returns streams sds at their first seeds, the start of a
// table's first row; the others stay unused.
func newStreams(sds ...int) *streams {
	var s streams
	for _, sd := range sds {
		s[sd] = stream{seed: seeds[sd].seed, bound: seeds[sd].bound}
	}
	return &s
}

// orderStreams returns the streams orders and lineitem draw from.
func orderStreams() *streams {
	return newStreams(sdOClerk, sdOComment, sdODate, sdOPrio, sdOCust, sdOLines,
		sdLQty, sdLDisc, sdLTax, sdLInstr, sdLMode, sdLPart, sdLSupp, sdLShip,
		sdLCommit, sdLRecv, sdLRFlag, sdLComment)
}

// random is dbgen's RANDOM(lo, hi, stream): uniform in [lo, hi], computed
// through a double exactly as dbgen's UnifInt does.
func (s *streams) random(lo, hi int64, sd int) int64 {
	return lo + s.draw(sd, float64(hi-lo+1))
}

// randomLong is dbgen's RANDOM(0, MAX_LONG, stream), which a_rnd draws
// its characters from. UnifInt takes that range's size in 32 bits, where
// 2^31 wraps to -2^31, so the draw is in (-2^31, 0]; a_rnd uses its low
// bits, and matching dbgen means wrapping too.
func (s *streams) randomLong(sd int) int64 {
	return s.draw(sd, math.MinInt32)
}

func (s *streams) draw(sd int, n float64) int64 {
	st := &s[sd]
	st.used++
	st.seed = st.seed * rngMult % rngMod
	return int64(float64(st.seed) / rngMod * n)
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
