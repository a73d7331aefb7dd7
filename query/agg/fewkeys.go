package agg

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// Batches with few distinct keys: TPC-H Q1 groups 6 million rows by two
// one-letter strings into 4 groups, and the hash table's work per row (a
// hash per key column, a probe, an equality test per key column) was a
// quarter of the query. When every key of a batch has a 64-bit code that
// is equal exactly when the values are (a string of at most 7 bytes: its
// bytes and its length; an integer, date or boolean: itself; a float: its
// canonical bits, as the keys store it; a NULL: a code the type leaves
// unused, except for int64 keys, whose codes take every value),
// group first numbers the batch's distinct code tuples in a small table
// that stays in L1, then runs the hash table on one row per distinct
// tuple only, and gives every row its tuple's group. A batch with a NULL
// int64 key, a longer string, a decimal key or more than maxLocal
// distinct tuples goes through the hash table row by row, as before.

// The codes of NULL keys: every string code has its length (0 to 7) in
// its top byte; booleans are 0 or 1, dates and pair ids 32 bits; floats
// are stored canonical, with one NaN (0x7ff8…), so this signalling NaN is
// never a value's.
const (
	nullStringCode = 0xff << 56
	nullSmallCode  = 1 << 63
	nullFloatCode  = 0x7ff0000000000001
)

const (
	// maxLocal distinct tuples per batch at most; past that the batch
	// falls back (its rows are then not few-keyed).
	maxLocal = 256
	// localSlots is the local table's size: at most half full.
	localSlots = 2 * maxLocal
	// minLocalRows: smaller batches are not worth the extra pass.
	minLocalRows = 256
	// maxCodedKeys key columns at most take the path.
	maxCodedKeys = 4
)

// coder is a key column that can code the rows of its bound input.
type coder interface {
	// codes sets dst[r] to row r's code for every row of the bound input
	// (len(dst) of them), or returns false when a row has none.
	codes(dst []uint64) bool
}

func (c *stringKeys) codes(dst []uint64) bool {
	in := &c.in
	for r := range dst {
		if !in.isValid(uint32(r)) {
			dst[r] = nullStringCode
			continue
		}
		lo, hi := int(in.offs[r]), int(in.offs[r+1])
		if hi-lo > 7 {
			return false
		}
		dst[r] = word(in.data, lo, hi) | uint64(hi-lo)<<56
	}
	return true
}

func (c *fixedKeys[T]) codes(dst []uint64) bool {
	var null uint64
	switch in := any(c.in).(type) {
	case []decimal128.Num:
		return false
	case []int64:
		if c.inValid != nil {
			return false // no code is left for NULL
		}
		for r := range dst {
			dst[r] = uint64(in[r])
		}
		return true
	case []uint64: // canonical float bits
		null = nullFloatCode
	default:
		null = nullSmallCode
	}
	for r := range dst {
		dst[r] = codeOf(c.in[r])
	}
	if c.inValid != nil {
		for r := range dst {
			if !bitutil.BitIsSet(c.inValid, c.inOff+r) {
				dst[r] = null
			}
		}
	}
	return true
}

func codeOf[T fixed](v T) uint64 {
	switch x := any(v).(type) {
	case uint64:
		return x
	case uint32:
		return uint64(x)
	case uint8:
		return uint64(x)
	case arrow.Date32:
		return uint64(x)
	}
	panic("agg: no code for a key of this type") // decimals and int64 are handled by codes
}

// localGroups holds the scratch of the few-keys path.
type localGroups struct {
	codes [maxCodedKeys][]uint64 // per key column, per row
	local []uint32               // per row: its tuple's local number
	reps  []uint32               // per local number: its first row
	slots [localSlots]uint32     // local number + 1, 0 empty
	taken int                    // batches the path took
}

// groupFew is group's few-keys path; false means the batch must take the
// row-by-row path (nothing has been changed then).
func (h *HashAggregator) groupFew(n int) (bool, error) {
	k := len(h.cols)
	if n < minLocalRows || k > maxCodedKeys {
		return false, nil
	}
	if h.few == nil {
		h.few = &localGroups{}
	}
	lg := h.few
	var err error
	for i, c := range h.cols {
		cd, ok := c.(coder)
		if !ok {
			return false, nil
		}
		if lg.codes[i], err = scratch(&h.acct, lg.codes[i], n); err != nil {
			return false, err
		}
		if !cd.codes(lg.codes[i][:n]) {
			return false, nil
		}
	}
	if lg.local, err = scratch(&h.acct, lg.local, n); err != nil {
		return false, err
	}
	clear(lg.slots[:])
	lg.reps = lg.reps[:0]
	codes := lg.codes[:k]
	for r := range n {
		hv := h.seed
		for _, c := range codes {
			hv = mix(hv, c[r])
		}
		p := hv & (localSlots - 1)
		for {
			s := lg.slots[p]
			if s == 0 {
				if len(lg.reps) == maxLocal {
					return false, nil
				}
				lg.reps = append(lg.reps, uint32(r))
				lg.slots[p] = uint32(len(lg.reps))
				lg.local[r] = uint32(len(lg.reps) - 1)
				break
			}
			rep := lg.reps[s-1]
			same := true
			for _, c := range codes {
				same = same && c[rep] == c[r]
			}
			if same {
				lg.local[r] = s - 1
				break
			}
			p = (p + 1) & (localSlots - 1)
		}
	}
	// The hash table sees one row per distinct tuple, in first-seen order.
	reps := lg.reps
	for _, r := range reps {
		h.hashes[r] = h.seed
	}
	for _, c := range h.cols {
		c.hash(h.hashes, reps)
	}
	if err := h.tab.insert(reps, h.hashes, h.gids); err != nil {
		return true, err
	}
	for r, l := range lg.local[:n] {
		h.gids[r] = h.gids[reps[l]]
	}
	lg.taken++
	return true, nil
}
