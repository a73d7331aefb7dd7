package expr

import (
	"context"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// concatExpr is l || r: string concatenation, NULL when either side is
// (ANSI SQL, DuckDB, PostgreSQL).
type concatExpr struct {
	l, r Expr
}

// maxConcatBytes bounds the bytes of one batch's || result: a utf8 array
// has 32-bit offsets.
const maxConcatBytes = math.MaxInt32

// Concat is l || r. A string operand is used as it is; any other engine
// type is converted as CAST(x AS VARCHAR) would (DuckDB does the same, so
// 'n=' || 1 is 'n=1'); an untyped NULL makes every row NULL.
func Concat(l, r Expr) (Expr, error) {
	if err := checkEngine("||", l, r); err != nil {
		return nil, err
	}
	l, r = nullAs(l, typString), nullAs(r, typString)
	var err error
	if l, err = coerceTo(l, typString); err != nil {
		return nil, err
	}
	if r, err = coerceTo(r, typString); err != nil {
		return nil, err
	}
	return fold(&concatExpr{l: l, r: r}), nil
}

func (x *concatExpr) Type() arrow.DataType { return typString }
func (x *concatExpr) children() []Expr     { return []Expr{x.l, x.r} }
func (x *concatExpr) String() string       { return paren(x.l) + " || " + paren(x.r) }

// Eval copies both sides' bytes of each row once into one values buffer;
// a literal side is not materialized.
func (x *concatExpr) Eval(ctx context.Context, mem memory.Allocator, batch arrow.RecordBatch) (arrow.Array, error) {
	ops, err := evalOperands(ctx, mem, batch, x.l, x.r)
	if err != nil {
		return nil, err
	}
	defer releaseAll(ops)
	n := int(batch.NumRows())
	if ops[0].allNull() || ops[1].allNull() {
		return nullArray(mem, typString, n), nil
	}
	l, r := stringSideOf(ops[0]), stringSideOf(ops[1])
	var arrs []arrow.Array
	for _, o := range ops {
		if o.arr != nil {
			arrs = append(arrs, o.arr)
		}
	}
	validity, nulls := combineValidity(mem, n, arrs...)
	return buildStrings(mem, x, n, validity, nulls, maxConcatBytes,
		func(i int) int { return l.len(i) + r.len(i) },
		func(i int, dst []byte) int {
			k := copy(dst, l.at(i))
			return k + copy(dst[k:], r.at(i))
		})
}

// stringSide reads one operand of ||: a string array, or a literal that
// stands for every row.
type stringSide struct {
	arr *array.String
	lit string
}

func stringSideOf(o operand) stringSide {
	if o.lit != nil {
		return stringSide{lit: o.lit.s}
	}
	return stringSide{arr: o.arr.(*array.String)}
}

func (s stringSide) len(i int) int {
	if s.arr == nil {
		return len(s.lit)
	}
	return s.arr.ValueLen(i)
}

func (s stringSide) at(i int) string {
	if s.arr == nil {
		return s.lit
	}
	return s.arr.Value(i)
}
