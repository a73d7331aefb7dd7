package expr

import (
	"context"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// IntRange is a cast to an integer type narrower than BIGINT (INTEGER,
// SMALLINT, TINYINT, UINTEGER, …), computed as BIGINT, the engine's one
// integer type: e, already a BIGINT, is passed through where its value
// lies in [lo, hi], and a value outside is ErrOverflow naming the type, as
// DuckDB's cast fails ("Conversion Error: Type INT64 with value 40000
// can't be cast ... SMALLINT"), or NULL when try (TRY_CAST).
func IntRange(e Expr, lo, hi int64, typeName string, try bool) (Expr, error) {
	if e.Type().ID() != arrow.INT64 {
		return nil, errorf(ErrType, "IntRange of %s: not BIGINT", e.Type())
	}
	return &intRange{e: e, lo: lo, hi: hi, name: typeName, try: try}, nil
}

type intRange struct {
	e      Expr
	lo, hi int64
	name   string
	try    bool
}

func (r *intRange) Type() arrow.DataType { return arrow.PrimitiveTypes.Int64 }
func (r *intRange) children() []Expr     { return []Expr{r.e} }
func (r *intRange) String() string       { return text(r) }
func (r *intRange) writeText(b *strings.Builder) {
	if r.try {
		b.WriteString("TRY_")
	}
	b.WriteString("CAST(")
	writeExpr(b, r.e)
	b.WriteString(" AS " + r.name + ")")
}

func (r *intRange) Eval(ctx context.Context, mem memory.Allocator, batch arrow.RecordBatch) (arrow.Array, error) {
	a, err := evalArray(ctx, mem, r.e, batch)
	if err != nil {
		return nil, err
	}
	defer a.Release()
	v := a.(*array.Int64)
	vals := v.Int64Values()
	bad := -1
	for i, x := range vals {
		if (x < r.lo || x > r.hi) && v.IsValid(i) {
			bad = i
			break
		}
	}
	if bad < 0 {
		a.Retain()
		return a, nil
	}
	if !r.try {
		return nil, errorf(ErrOverflow, "cannot cast %d to %s: out of its range [%d, %d]", vals[bad], r.name, r.lo, r.hi)
	}
	b := array.NewInt64Builder(mem)
	defer b.Release()
	b.Reserve(len(vals))
	for i, x := range vals {
		if v.IsNull(i) || x < r.lo || x > r.hi {
			b.AppendNull()
		} else {
			b.UnsafeAppend(x)
		}
	}
	return b.NewArray(), nil
}
