package agg

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
)

// Most states read an argument's shared input: its non-NULL rows
// (count(*) all rows). A state whose spec has a FILTER, or that sees NULL
// values too (first, last), or orders by other arguments (string_agg …
// ORDER BY), reads an input of its own, bound per batch by bindOwn: the
// rows of the shared input (all rows for first and last) where the
// filter is TRUE, never dense (so states loop over rows), with the order
// columns beside it. Partial states are merged without it: they were
// filtered when they were made.

// ownInput reports whether the state of stateKey k reads an input of its
// own.
func ownInput(k Spec) bool {
	return k.Filter > 0 || k.Func == First || k.Func == Last || len(k.Order) > 0
}

// checkExtra checks spec i's Filter and Order against the arguments.
func checkExtra(s Spec, i int, argTypes []arrow.DataType) error {
	if s.Filter < 0 || s.Filter > len(argTypes) {
		return fmt.Errorf("%w: %s: filter argument %d of %d", ErrInput, s.name(i), s.Filter-1, len(argTypes))
	}
	if s.Filter > 0 && argTypes[s.Filter-1].ID() != arrow.BOOL {
		return fmt.Errorf("%w: %s: filter of type %v, want boolean", ErrInput, s.name(i), argTypes[s.Filter-1])
	}
	if len(s.Order) > 0 && s.Func != StringAgg {
		return fmt.Errorf("%w: %s with ORDER BY", ErrUnsupported, s.name(i))
	}
	for _, o := range s.Order {
		if o.Arg < 0 || o.Arg >= len(argTypes) {
			return fmt.Errorf("%w: %s: order argument %d of %d", ErrInput, s.name(i), o.Arg, len(argTypes))
		}
	}
	if (s.Func == QuantileCont || s.Func == QuantileDisc) && !(s.Q >= 0 && s.Q <= 1) {
		return fmt.Errorf("%w: %s: quantile %v outside [0, 1]", ErrInput, s.name(i), s.Q)
	}
	return nil
}

// bindOwn binds the own inputs of a batch of n rows.
func (h *HashAggregator) bindOwn(n int, args []arrow.Array) error {
	for i, k := range h.stKeys {
		if !ownInput(k) {
			continue
		}
		base := h.ins[len(h.argTypes)] // count(*): every row
		in := input{n: n}
		if k.Func != CountStar {
			in.arr = args[k.Arg]
			if k.Func != First && k.Func != Last {
				base = h.ins[k.Arg]
			}
		}
		for _, o := range k.Order {
			in.order = append(in.order, args[o.Arg])
		}
		in.rows = base.rows
		if k.Filter > 0 {
			buf, err := scratch(&h.acct, h.ownBufs[i], len(base.rows))
			if err != nil {
				return err
			}
			h.ownBufs[i] = buf
			in.rows = filterRows(buf[:0], base.rows, args[k.Filter-1].(*array.Boolean))
		}
		h.own[i] = in
	}
	return nil
}

// filterRows appends the rows of rows where f is TRUE to dst.
func filterRows(dst, rows []uint32, f *array.Boolean) []uint32 {
	valid, off := f.NullBitmapBytes(), f.Data().Offset()
	vals := f.Data().Buffers()[1].Bytes()
	for _, r := range rows {
		j := off + int(r)
		if (valid == nil || bitutil.BitIsSet(valid, j)) && bitutil.BitIsSet(vals, j) {
			dst = append(dst, r)
		}
	}
	return dst
}
