package agg

import (
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// keyColumn stores one key column of every group, column-wise in Arrow's
// layout (values, validity bitmap; offsets and one byte arena for strings),
// and compares, hashes and appends rows of a bound input batch against it.
// Each method runs one loop over a batch; nothing is called per row through
// the interface.
type keyColumn interface {
	// bind makes arr the input the next hash, equal and appendRows read;
	// rows passed to them index arr.
	bind(arr arrow.Array) error
	// hash folds the value of each row in rows into h[row]. It comes
	// between bind and equal or appendRows, which may read what it
	// computed for those rows.
	hash(h []uint64, rows []uint32)
	// equal keeps in sel the rows whose input value equals the stored key
	// of group gids[row] and appends the others to miss.
	equal(sel, gids, miss []uint32) ([]uint32, []uint32)
	// appendRows appends the input values of rows as new groups.
	appendRows(rows []uint32) error
	// truncate drops the groups from n on.
	truncate(n int)
	// permuteTail reorders the groups from on: group from+i takes the key
	// of group from+perm[i].
	permuteTail(from int, perm []uint32)
	// export copies the keys of groups [from, to) into a new array.
	export(mem memory.Allocator, from, to int) arrow.Array
	// gather copies the keys of the groups in idx into a new array.
	gather(mem memory.Allocator, idx []uint32) arrow.Array
	// release drops the storage.
	release()
	// view returns a reader of the stored keys with an input binding and
	// scratch of its own, charged to a: views bind, hash and compare
	// concurrently while nothing appends to the store (a hash join's
	// probers, KeyTable). Only bind, hash, equal and releaseInput may be
	// called on a view.
	view(a *account) keyColumn
	// releaseInput drops what bind allocated (all a view holds).
	releaseInput()
}

// newKeyColumn returns the key store for an engine type. Floats are stored
// as their canonical bits and booleans as one byte each, so every fixed
// type compares with ==.
func newKeyColumn(a *account, dt arrow.DataType) keyColumn {
	switch dt.ID() {
	case arrow.INT64, arrow.TIMESTAMP, arrow.TIME64: // a timestamp's and a time's values are int64
		return &fixedKeys[int64]{acct: a, dt: dt, hashFn: hashInts[int64]}
	case arrow.DATE32:
		return &fixedKeys[arrow.Date32]{acct: a, dt: dt, hashFn: hashInts[arrow.Date32]}
	case arrow.FLOAT64:
		return &fixedKeys[uint64]{acct: a, dt: dt, hashFn: hashInts[uint64]}
	case arrow.BOOL:
		return &fixedKeys[uint8]{acct: a, dt: dt, hashFn: hashInts[uint8]}
	case arrow.DECIMAL128, arrow.INTERVAL_MONTH_DAY_NANO: // 16 bytes each (the planner normalizes intervals)
		return &fixedKeys[decimal128.Num]{acct: a, dt: dt, hashFn: hashDecimals}
	case arrow.STRING, arrow.BINARY: // a BLOB's layout is a string's
		return &stringKeys{acct: a, dt: dt}
	}
	panic("agg: no key store for " + dt.String()) // types are checked by NewHashAggregator
}

// fixed is the storage type of a fixed-width key.
type fixed interface {
	int64 | arrow.Date32 | uint64 | uint32 | uint8 | decimal128.Num
}

// fixedKeys stores fixed-width keys. T is the stored form: float64 keys are
// stored as canonical bits (uint64), booleans as 0/1 bytes, group ids of
// count(DISTINCT) pairs as uint32.
type fixedKeys[T fixed] struct {
	acct   *account
	dt     arrow.DataType
	hashFn func(h []uint64, vals []T, valid []byte, off int, rows []uint32)

	vals  []T    // one per group
	valid []byte // validity bitmap, one bit per group
	nulls int

	in      []T    // bound input values, indexed by row
	inValid []byte // bound validity bitmap, nil when the input has no NULLs
	inOff   int    // bit offset of row 0 in inValid
	conv    []T    // scratch for converted input (float bits, bools)
}

func (c *fixedKeys[T]) bind(arr arrow.Array) error {
	c.inValid, c.inOff = nil, 0
	if arr.NullN() > 0 {
		c.inValid, c.inOff = arr.NullBitmapBytes(), arr.Data().Offset()
	}
	switch a := arr.(type) {
	case *array.Float64:
		vals := a.Float64Values()
		conv, err := scratch(c.acct, any(c.conv).([]uint64), len(vals))
		if err != nil {
			return err
		}
		for i, f := range vals {
			conv[i] = canonicalFloat(f)
		}
		c.conv = any(conv).([]T)
		c.in = c.conv
	case *array.Boolean:
		conv, err := scratch(c.acct, any(c.conv).([]uint8), a.Len())
		if err != nil {
			return err
		}
		unpackBools(conv, a)
		c.conv = any(conv).([]T)
		c.in = c.conv
	case *array.Int64:
		c.in = any(a.Int64Values()).([]T)
	case *array.Timestamp, *array.Time64:
		c.in = any(arrow.GetValues[int64](a.Data(), 1)).([]T)
	case *array.Date32:
		c.in = any(a.Date32Values()).([]T)
	case *array.Decimal128:
		c.in = any(a.Values()).([]T)
	case *array.MonthDayNanoInterval:
		c.in = any(arrow.GetValues[decimal128.Num](a.Data(), 1)).([]T)
	default:
		panic("agg: fixedKeys cannot bind " + arr.DataType().String())
	}
	return nil
}

// bindValues binds a plain slice with no NULLs (group ids).
func (c *fixedKeys[T]) bindValues(vals []T) { c.in, c.inValid, c.inOff = vals, nil, 0 }

func (c *fixedKeys[T]) hash(h []uint64, rows []uint32) {
	c.hashFn(h, c.in, c.inValid, c.inOff, rows)
}

func (c *fixedKeys[T]) equal(sel, gids, miss []uint32) ([]uint32, []uint32) {
	k := 0
	in, vals := c.in, c.vals
	if c.inValid == nil && c.nulls == 0 {
		for _, r := range sel {
			if in[r] == vals[gids[r]] {
				sel[k] = r
				k++
			} else {
				miss = append(miss, r)
			}
		}
		return sel[:k], miss
	}
	for _, r := range sel {
		g := int(gids[r])
		inOK := c.inValid == nil || bitutil.BitIsSet(c.inValid, c.inOff+int(r))
		if inOK == bitutil.BitIsSet(c.valid, g) && (!inOK || in[r] == vals[g]) {
			sel[k] = r
			k++
		} else {
			miss = append(miss, r)
		}
	}
	return sel[:k], miss
}

func (c *fixedKeys[T]) appendRows(rows []uint32) error {
	n := len(c.vals)
	valid, err := extend(c.acct, c.valid, int(bitutil.BytesForBits(int64(n+len(rows))))-len(c.valid))
	if err != nil {
		return err
	}
	c.valid = valid
	vals, err := extend(c.acct, c.vals, len(rows))
	if err != nil {
		return err
	}
	c.vals = vals
	for i, r := range rows {
		ok := c.inValid == nil || bitutil.BitIsSet(c.inValid, c.inOff+int(r))
		bitutil.SetBitTo(c.valid, n+i, ok)
		if ok {
			vals[n+i] = c.in[r]
		} else {
			c.nulls++
		}
	}
	return nil
}

// truncate also trims what a failed appendRows extended (valid before
// vals).
func (c *fixedKeys[T]) truncate(n int) {
	if n < len(c.vals) {
		c.nulls -= (len(c.vals) - n) - bitutil.CountSetBits(c.valid, n, len(c.vals)-n)
		c.vals = c.vals[:n]
	}
	c.valid = c.valid[:min(len(c.valid), int(bitutil.BytesForBits(int64(n))))]
}

func (c *fixedKeys[T]) permuteTail(from int, perm []uint32) {
	vals := slices.Clone(c.vals[from:])
	valid := make([]bool, len(vals))
	for i := range valid {
		valid[i] = bitutil.BitIsSet(c.valid, from+i)
	}
	for i, p := range perm {
		c.vals[from+i] = vals[p]
		bitutil.SetBitTo(c.valid, from+i, valid[p])
	}
}

func (c *fixedKeys[T]) export(mem memory.Allocator, from, to int) arrow.Array {
	out := newFixedOut[T](mem, c.dt, to-from)
	copy(out.vals, c.vals[from:to])
	if c.nulls > 0 {
		out.copyValidity(c.valid, from)
	}
	return out.finish()
}

func (c *fixedKeys[T]) gather(mem memory.Allocator, idx []uint32) arrow.Array {
	out := newFixedOut[T](mem, c.dt, len(idx))
	for i, g := range idx {
		out.vals[i] = c.vals[g]
		if c.nulls > 0 && !bitutil.BitIsSet(c.valid, int(g)) {
			out.setNull(i)
		}
	}
	return out.finish()
}

func (c *fixedKeys[T]) release() {
	c.vals = drop(c.acct, c.vals)
	c.valid = drop(c.acct, c.valid)
	c.releaseInput()
	c.nulls = 0
}

func (c *fixedKeys[T]) view(a *account) keyColumn {
	return &fixedKeys[T]{acct: a, dt: c.dt, hashFn: c.hashFn, vals: c.vals, valid: c.valid, nulls: c.nulls}
}

func (c *fixedKeys[T]) releaseInput() {
	c.conv = drop(c.acct, c.conv)
	c.in, c.inValid = nil, nil
}

// unpackBools writes a's values as 0/1 bytes into dst.
func unpackBools(dst []uint8, a *array.Boolean) {
	buf := a.Data().Buffers()[1]
	if buf == nil { // empty
		clear(dst)
		return
	}
	bm, off := buf.Bytes(), a.Data().Offset()
	for i := range dst {
		dst[i] = 0
		if bitutil.BitIsSet(bm, off+i) {
			dst[i] = 1
		}
	}
}
