package expr

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// gather builds an array of typ whose row i is row at[i] of srcs[from[i]]:
// the merge that puts CASE and COALESCE results together. One pass, where
// arrow-go would need concatenate and then take (two copies).
func gather(mem memory.Allocator, typ arrow.DataType, srcs []arrow.Array, from, at []int32) arrow.Array {
	if typ.ID() == arrow.BINARY { // a BLOB's layout is a string's
		strs := make([]arrow.Array, len(srcs))
		for k, s := range srcs {
			if s != nil {
				strs[k] = relabel(s, typString)
				defer strs[k].Release()
			}
		}
		out := gather(mem, typString, strs, from, at)
		defer out.Release()
		return relabel(out, typBinary)
	}
	n := len(from)
	validity := newBits(mem, n)
	vbits := validity.Bytes()
	nulls := 0
	valid := make([]bitmap, len(srcs))
	for k, s := range srcs {
		if s != nil {
			valid[k] = validityOf(s)
		}
	}
	for i := range from {
		if valid[from[i]].valid(int(at[i])) {
			vbits[i>>3] |= 1 << (i & 7)
		} else {
			nulls++
		}
	}
	if nulls == 0 {
		validity.Release()
		validity = nil
	}
	switch typ.ID() {
	case arrow.INT64, arrow.TIMESTAMP, arrow.TIME64:
		return gatherFixed[int64](mem, typ, srcs, from, at, validity, nulls)
	case arrow.FLOAT64:
		return gatherFixed[float64](mem, typ, srcs, from, at, validity, nulls)
	case arrow.DECIMAL128:
		return gatherFixed[num](mem, typ, srcs, from, at, validity, nulls)
	case arrow.INTERVAL_MONTH_DAY_NANO:
		return gatherFixed[interval](mem, typ, srcs, from, at, validity, nulls)
	case arrow.DATE32:
		return gatherFixed[int32](mem, typ, srcs, from, at, validity, nulls)
	case arrow.BOOL:
		out := newBits(mem, n)
		bits := out.Bytes()
		bs := make([]*array.Boolean, len(srcs))
		for k, s := range srcs {
			bs[k], _ = s.(*array.Boolean)
		}
		for i := range from {
			if b := bs[from[i]]; b != nil && b.Value(int(at[i])) {
				bits[i>>3] |= 1 << (i & 7)
			}
		}
		return makeArray(typ, n, validity, nulls, out)
	case arrow.STRING:
		releaseBufs(validity)
		ss := make([]*array.String, len(srcs))
		size := 0
		for k, s := range srcs {
			ss[k], _ = s.(*array.String)
			if ss[k] != nil {
				size += len(ss[k].ValueBytes())
			}
		}
		b := array.NewStringBuilder(mem)
		defer b.Release()
		b.Reserve(n)
		b.ReserveData(min(size, 1<<30))
		for i := range from {
			s, j := ss[from[i]], int(at[i])
			if s == nil || s.IsNull(j) {
				b.AppendNull()
			} else {
				b.Append(s.Value(j))
			}
		}
		return b.NewArray()
	}
	releaseBufs(validity)
	return array.NewNull(n)
}

func gatherFixed[T arrow.FixedWidthType](mem memory.Allocator, typ arrow.DataType, srcs []arrow.Array, from, at []int32, validity *memory.Buffer, nulls int) arrow.Array {
	vals := make([][]T, len(srcs))
	for k, s := range srcs {
		if s != nil && s.Len() > 0 {
			vals[k] = values[T](s)
		}
	}
	buf, out := newValues[T](mem, len(from))
	for i := range out {
		if v := vals[from[i]]; v != nil {
			out[i] = v[at[i]]
		} else {
			var z T
			out[i] = z
		}
	}
	return makeArray(typ, len(from), validity, nulls, buf)
}
