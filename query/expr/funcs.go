package expr

import (
	"context"
	"math"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// callExpr is a call of a registered function that has no node of its
// own: the string, math and date functions of funcs_*.go. Its kernel
// gets the evaluated operands (a literal stays a constant, not an array)
// and returns the result of n rows.
type callExpr struct {
	name  string
	args  []Expr
	typ   arrow.DataType
	k     *kernel
	infix bool // an operator: written args[0] name args[1]
}

// kernel is what one function computes.
type kernel struct {
	eval func(x *callExpr, mem memory.Allocator, ops []operand, n int) (arrow.Array, error)
	// keepNulls: a NULL argument does not make the row NULL (concat,
	// greatest); eval decides. Otherwise any NULL argument gives NULL and
	// eval is not called when one is NULL on every row.
	keepNulls bool
	// fails: eval may return an error for some values (sqrt(-1)).
	fails bool
	// volatile: each evaluation gives other values (random()), so a call
	// is never folded into a constant.
	volatile bool
}

// newCall makes the call and folds it when every argument is a literal.
func newCall(name string, typ arrow.DataType, k *kernel, args ...Expr) Expr {
	x := &callExpr{name: name, args: args, typ: typ, k: k}
	if k.volatile {
		return x
	}
	return fold(x)
}

func (x *callExpr) Type() arrow.DataType { return x.typ }
func (x *callExpr) children() []Expr     { return x.args }
func (x *callExpr) String() string       { return text(x) }
func (x *callExpr) writeText(b *strings.Builder) {
	if x.infix {
		writeParen(b, x.args[0])
		b.WriteString(" " + x.name + " ")
		writeParen(b, x.args[1])
		return
	}
	b.WriteString(x.name + "(")
	for i, a := range x.args {
		if i > 0 {
			b.WriteString(", ")
		}
		writeExpr(b, a)
	}
	b.WriteByte(')')
}

func (x *callExpr) Eval(ctx context.Context, mem memory.Allocator, batch arrow.RecordBatch) (arrow.Array, error) {
	ops, err := evalOperands(ctx, mem, batch, x.args...)
	if err != nil {
		return nil, err
	}
	defer releaseAll(ops)
	n := int(batch.NumRows())
	if !x.k.keepNulls {
		for _, o := range ops {
			if o.allNull() {
				return nullArray(mem, x.typ, n), nil
			}
		}
	}
	return x.k.eval(x, mem, ops, n)
}

// errorf is an error of kind naming the call.
func (x *callExpr) errorf(kind error, format string, args ...any) error {
	e := errorf(kind, format, args...).(*Error)
	if x.infix { // an operator: the text in parentheses names it
		e.Msg += " (in " + x.String() + ")"
		return e
	}
	e.Msg = x.name + ": " + e.Msg + " (in " + x.String() + ")"
	return e
}

// opsValidity is the validity of rows where every operand is valid.
func opsValidity(mem memory.Allocator, n int, ops []operand) (*memory.Buffer, int) {
	var arrs []arrow.Array
	for _, o := range ops {
		if o.arr != nil {
			arrs = append(arrs, o.arr)
		}
	}
	return combineValidity(mem, n, arrs...)
}

// validRows views a validity buffer (nil: all valid).
func validRows(validity *memory.Buffer) bitmap {
	if validity == nil {
		return bitmap{}
	}
	return bitmap{bits: validity.Bytes()}
}

// maxStringResult bounds the bytes of one batch's string results (a utf8
// array has 32-bit offsets).
const maxStringResult = math.MaxInt32

// mapFixedRows computes f for every row where all operands are valid.
func mapFixedRows[O arrow.FixedWidthType](x *callExpr, mem memory.Allocator, ops []operand, n int, f func(i int) (O, error)) (arrow.Array, error) {
	validity, nulls := opsValidity(mem, n, ops)
	buf, out := newValues[O](mem, n)
	v := validRows(validity)
	for i := range out {
		var z O
		out[i] = z
		if !v.valid(i) {
			continue
		}
		y, err := f(i)
		if err != nil {
			releaseBufs(validity, buf)
			return nil, err
		}
		out[i] = y
	}
	return makeArray(x.typ, n, validity, nulls, buf), nil
}

// mapBoolRows computes f for every row where all operands are valid.
func mapBoolRows(x *callExpr, mem memory.Allocator, ops []operand, n int, f func(i int) bool) (arrow.Array, error) {
	validity, nulls := opsValidity(mem, n, ops)
	out := newBits(mem, n)
	bits := out.Bytes()
	v := validRows(validity)
	for i := range n {
		if v.valid(i) && f(i) {
			bits[i>>3] |= 1 << (i & 7)
		}
	}
	return makeArray(typBool, n, validity, nulls, out), nil
}

// mapStringRows builds the string result of every row where all operands
// are valid: f appends row i's value to dst and returns it. The total is
// bounded by maxStringResult and asked of the query's budget (budget.go)
// before the Arrow buffers are allocated; size, when not nil, gives an
// upper bound of a row's bytes that is checked before any row is built,
// so repeat('x', 1e12) fails before it allocates.
func mapStringRows(x *callExpr, mem memory.Allocator, ops []operand, n int, validity *memory.Buffer, nulls int,
	size func(i int) int64, f func(i int, dst []byte) ([]byte, error)) (arrow.Array, error) {
	v := validRows(validity)
	if size != nil {
		total := int64(0)
		for i := range n {
			if v.valid(i) {
				if total += size(i); total > maxStringResult {
					releaseBufs(validity)
					return nil, x.errorf(ErrOverflow, "the results of one batch pass %d bytes", maxStringResult)
				}
			}
		}
		if err := reserve(mem, total+4*int64(n+1), x); err != nil {
			releaseBufs(validity)
			return nil, err
		}
	}
	data := make([]byte, 0, stringBytes(ops, n)) // most results are about their input's size
	offs := make([]int32, n+1)
	for i := range n {
		offs[i] = int32(len(data))
		if !v.valid(i) {
			continue
		}
		var err error
		if data, err = f(i, data); err != nil {
			releaseBufs(validity)
			return nil, err
		}
		if len(data) > maxStringResult {
			releaseBufs(validity)
			return nil, x.errorf(ErrOverflow, "the results of one batch pass %d bytes", maxStringResult)
		}
	}
	offs[n] = int32(len(data))
	if size == nil {
		if err := reserve(mem, int64(len(data))+4*int64(n+1), x); err != nil {
			releaseBufs(validity)
			return nil, err
		}
	}
	offBuf, out := newValues[int32](mem, n+1)
	copy(out, offs)
	dataBuf := memory.NewResizableBuffer(mem)
	dataBuf.Resize(len(data))
	copy(dataBuf.Bytes(), data)
	return makeArray(typString, n, validity, nulls, offBuf, dataBuf), nil
}

// stringBytes is the bytes of the string operands' rows, at most
// maxStringResult: the first guess of a string result's size.
func stringBytes(ops []operand, n int) int {
	total := int64(0)
	for _, o := range ops {
		switch {
		case o.lit != nil && o.lit.typ.ID() == arrow.STRING:
			total += int64(len(o.lit.s)) * int64(n)
		case o.arr != nil && o.arr.DataType().ID() == arrow.STRING:
			total += int64(len(o.arr.(*array.String).ValueBytes()))
		}
	}
	return int(min(total, maxStringResult))
}

// strArg, intArg and floatArg view an operand's rows.
func strArg(o operand) stringSide { return stringSideOf(o) }

func intArg(o operand) side[int64] { return sideOf(o, func(l *literal) int64 { return l.i }) }

func floatArg(o operand) side[float64] { return sideOf(o, func(l *literal) float64 { return l.f }) }
