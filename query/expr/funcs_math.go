package expr

import (
	"math"
	"math/big"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Math functions, with DuckDB's names and semantics. abs, sign, ceil,
// floor, trunc and round keep an integer or decimal argument exact:
// BIGINT stays BIGINT; a DECIMAL(p,s) stays DECIMAL(p,s) for abs,
// becomes DECIMAL(p,0) for ceil, floor, trunc and round(x), and
// DECIMAL(p,min(n,s)) for round(x, n) (n a constant; n < 0 rounds to
// tens, hundreds, … at scale 0); sign is a BIGINT -1, 0 or 1. Rounding is
// half away from zero. The others compute in DOUBLE: sqrt, cbrt, exp, ln,
// log (base 10, as DuckDB), log10, log2, power; the square root and the
// logarithms of a negative number (and the logarithms of zero) are
// errors naming the function and the value, as in DuckDB. greatest and
// least take any type their arguments share and skip NULLs (NULL only
// when every argument is). NULL in gives NULL out otherwise.

func init() {
	numeric := []Family{FamNumeric}
	register("abs", []signature{sig(buildAbs, numeric...)})
	register("sign", []signature{sig(buildSign, numeric...)})
	for _, name := range []string{"ceil", "floor", "trunc"} {
		register(name, []signature{sig(buildRound, numeric...)}, map[string][]string{"ceil": {"ceiling"}}[name]...)
	}
	register("round", []signature{sig(buildRound, FamNumeric), sig(buildRound, FamNumeric, FamInt)})
	for name, f := range map[string]func(float64) float64{
		"sqrt": math.Sqrt, "cbrt": math.Cbrt, "exp": math.Exp, "ln": math.Log, "log10": math.Log10, "log2": math.Log2,
	} {
		register(name, []signature{sig(doubleFunc(f, name), FamDouble)})
	}
	registry["log"] = registry["log10"]
	register("power", []signature{sig(func(name string, a []Expr) (Expr, error) {
		return newCall(name, typFloat64, &kernel{eval: evalPower}, a...), nil
	}, FamDouble, FamDouble)}, "pow")
	register("greatest", []signature{variadic(buildExtreme(1), FamAny)})
	register("least", []signature{variadic(buildExtreme(-1), FamAny)})
}

func buildAbs(name string, a []Expr) (Expr, error) {
	return newCall(name, a[0].Type(), &kernel{eval: evalAbs, fails: a[0].Type().ID() == arrow.INT64}, a...), nil
}

func evalAbs(x *callExpr, mem memory.Allocator, ops []operand, n int) (arrow.Array, error) {
	switch x.typ.ID() {
	case arrow.INT64:
		v := intArg(ops[0])
		return mapFixedRows(x, mem, ops, n, func(i int) (int64, error) {
			switch a := v.at(i); {
			case a == math.MinInt64:
				return 0, x.errorf(ErrOverflow, "integer overflow: abs(%d)", a)
			case a < 0:
				return -a, nil
			default:
				return a, nil
			}
		})
	case arrow.FLOAT64:
		v := floatArg(ops[0])
		return mapFixedRows(x, mem, ops, n, func(i int) (float64, error) { return math.Abs(v.at(i)), nil })
	}
	v := decArg(ops[0])
	return mapFixedRows(x, mem, ops, n, func(i int) (num, error) {
		if a := v.at(i); isNeg(a) {
			return neg128(a), nil
		}
		return v.at(i), nil
	})
}

func decArg(o operand) side[num] { return sideOf(o, func(l *literal) num { return l.d }) }

func buildSign(name string, a []Expr) (Expr, error) {
	return newCall(name, typInt64, &kernel{eval: evalSign}, a...), nil
}

func evalSign(x *callExpr, mem memory.Allocator, ops []operand, n int) (arrow.Array, error) {
	sign := func(c int) (int64, error) { return int64(c), nil }
	switch x.args[0].Type().ID() {
	case arrow.INT64:
		v := intArg(ops[0])
		return mapFixedRows(x, mem, ops, n, func(i int) (int64, error) { return sign(cmpInt(v.at(i), 0)) })
	case arrow.FLOAT64:
		v := floatArg(ops[0])
		return mapFixedRows(x, mem, ops, n, func(i int) (int64, error) {
			if f := v.at(i); f != f {
				return 0, nil
			}
			return sign(cmpFloat(v.at(i), 0))
		})
	}
	v := decArg(ops[0])
	return mapFixedRows(x, mem, ops, n, func(i int) (int64, error) { return sign(cmp128(v.at(i), num{})) })
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// roundMode is how ceil, floor, trunc and round take a value to a number
// of digits.
type roundMode uint8

const (
	roundHalf roundMode = iota // half away from zero
	roundCeil
	roundFloor
	roundTrunc
)

var roundModes = map[string]roundMode{"round": roundHalf, "ceil": roundCeil, "ceiling": roundCeil, "floor": roundFloor, "trunc": roundTrunc}

// buildRound is ceil, floor, trunc, round(x) and round(x, n).
func buildRound(name string, a []Expr) (Expr, error) {
	mode := roundModes[name]
	t := a[0].Type()
	k := &kernel{eval: evalRound(mode, 0)}
	switch t.ID() {
	case arrow.INT64:
		if len(a) == 2 {
			k.fails = true // round(x, -k) may overflow
		}
		return newCall(name, t, k, a...), nil
	case arrow.FLOAT64:
		return newCall(name, t, k, a...), nil
	}
	d := t.(*arrow.Decimal128Type)
	digits := int32(0)
	if len(a) == 2 {
		l, ok := a[1].(*literal)
		if !ok || l.null {
			return nil, errorf(ErrType, "%s: the number of digits must be an integer constant for a DECIMAL (got %s)", name, a[1])
		}
		if l.i >= int64(d.Scale) {
			return a[0], nil
		}
		digits = int32(max(l.i, -maxPrecision))
	}
	k.eval = evalRound(mode, digits)
	k.fails = digits < 0
	return newCall(name, decimalType(d.Precision, max(digits, 0)), k, a...), nil
}

// evalRound rounds to digits fractional digits (a decimal), or to the
// second argument's (a BIGINT or DOUBLE).
func evalRound(mode roundMode, digits int32) func(*callExpr, memory.Allocator, []operand, int) (arrow.Array, error) {
	return func(x *callExpr, mem memory.Allocator, ops []operand, n int) (arrow.Array, error) {
		places := side[int64]{konst: true}
		if len(ops) == 2 {
			places = intArg(ops[1])
		}
		switch x.typ.ID() {
		case arrow.INT64:
			v := intArg(ops[0])
			return mapFixedRows(x, mem, ops, n, func(i int) (int64, error) {
				p := places.at(i)
				if p >= 0 {
					return v.at(i), nil
				}
				if p < -maxPrecision {
					return 0, nil
				}
				r, ok := roundDecimal(decimal128.FromI64(v.at(i)), int32(-p), mode)
				if ok {
					r, ok = rescale(r, int32(-p))
				}
				if !ok || !small(r) {
					return 0, x.errorf(ErrOverflow, "integer overflow rounding %d to %d digits", v.at(i), p)
				}
				return int64(r.LowBits()), nil
			})
		case arrow.FLOAT64:
			v := floatArg(ops[0])
			return mapFixedRows(x, mem, ops, n, func(i int) (float64, error) { return roundFloat(v.at(i), places.at(i), mode), nil })
		}
		from := x.args[0].Type().(*arrow.Decimal128Type).Scale
		v := decArg(ops[0])
		return mapFixedRows(x, mem, ops, n, func(i int) (num, error) {
			r, ok := roundDecimal(v.at(i), from-digits, mode)
			if ok && digits < 0 {
				r, ok = rescale(r, -digits)
			}
			if !ok || !fits(r, x.typ.(*arrow.Decimal128Type).Precision) {
				return num{}, x.errorf(ErrOverflow, "value %s out of range for %s", formatDecimal(v.at(i), from), sqlType(x.typ))
			}
			return r, nil
		})
	}
}

// roundDecimal divides a by 10^k (k ≥ 0), rounding by mode.
func roundDecimal(a num, k int32, mode roundMode) (num, bool) {
	if k <= 0 {
		return a, true
	}
	if mode == roundHalf {
		return rescale(a, -k)
	}
	if k > maxPrecision {
		return num{}, true
	}
	q, r := new(big.Int).QuoRem(bigOf(a), bigOf(pow10[k]), new(big.Int))
	switch {
	case mode == roundFloor && r.Sign() < 0:
		q.Sub(q, big.NewInt(1))
	case mode == roundCeil && r.Sign() > 0:
		q.Add(q, big.NewInt(1))
	}
	return bigToNum(q)
}

// roundFloat rounds f to places fractional digits (negative: tens, …) as
// DuckDB does: through a multiplication by a power of ten.
func roundFloat(f float64, places int64, mode roundMode) float64 {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return f
	}
	r := func(v float64) float64 {
		switch mode {
		case roundCeil:
			return math.Ceil(v)
		case roundFloor:
			return math.Floor(v)
		case roundTrunc:
			return math.Trunc(v)
		}
		return math.Round(v)
	}
	switch {
	case places == 0:
		return r(f)
	case places > 0:
		m := math.Pow(10, float64(places))
		if v := r(f*m) / m; !math.IsInf(v, 0) && !math.IsNaN(v) {
			return v
		}
		return f
	}
	m := math.Pow(10, float64(-places))
	return r(f/m) * m
}

// doubleFunc is a function of one DOUBLE; the square root and the
// logarithms refuse the values they are not defined for.
func doubleFunc(f func(float64) float64, name string) func(string, []Expr) (Expr, error) {
	check := func(x *callExpr, v float64) error { return nil }
	switch name {
	case "sqrt":
		check = func(x *callExpr, v float64) error {
			if v < 0 {
				return x.errorf(ErrInvalid, "cannot take the square root of a negative number (%s)", formatFloat(v))
			}
			return nil
		}
	case "ln", "log10", "log2":
		check = func(x *callExpr, v float64) error {
			switch {
			case v == 0:
				return x.errorf(ErrInvalid, "cannot take the logarithm of zero")
			case v < 0:
				return x.errorf(ErrInvalid, "cannot take the logarithm of a negative number (%s)", formatFloat(v))
			}
			return nil
		}
	}
	k := &kernel{fails: name == "sqrt" || name == "ln" || name == "log10" || name == "log2"}
	k.eval = func(x *callExpr, mem memory.Allocator, ops []operand, n int) (arrow.Array, error) {
		v := floatArg(ops[0])
		return mapFixedRows(x, mem, ops, n, func(i int) (float64, error) {
			if err := check(x, v.at(i)); err != nil {
				return 0, err
			}
			return f(v.at(i)), nil
		})
	}
	return func(name string, a []Expr) (Expr, error) { return newCall(name, typFloat64, k, a...), nil }
}

func evalPower(x *callExpr, mem memory.Allocator, ops []operand, n int) (arrow.Array, error) {
	b, e := floatArg(ops[0]), floatArg(ops[1])
	return mapFixedRows(x, mem, ops, n, func(i int) (float64, error) { return math.Pow(b.at(i), e.at(i)), nil })
}

// buildExtreme is greatest (dir 1) or least (dir -1).
func buildExtreme(dir int) func(string, []Expr) (Expr, error) {
	return func(name string, a []Expr) (Expr, error) {
		if len(a) == 0 {
			return nil, errorf(ErrType, "%s needs at least one argument", name)
		}
		vals, t, err := commonType(name, a)
		if err != nil {
			return nil, err
		}
		if t.ID() == arrow.NULL {
			return NullLiteral(typNull), nil
		}
		return newCall(name, t, &kernel{eval: evalExtreme(dir), keepNulls: true}, vals...), nil
	}
}

// evalExtreme picks, per row, the argument that compares highest (dir
// 1) or lowest (-1) among the non-NULL ones, and gathers the values.
func evalExtreme(dir int) func(*callExpr, memory.Allocator, []operand, int) (arrow.Array, error) {
	return func(x *callExpr, mem memory.Allocator, ops []operand, n int) (arrow.Array, error) {
		srcs := make([]arrow.Array, len(ops))
		defer func() {
			for k, s := range srcs {
				if s != nil && ops[k].arr == nil {
					s.Release()
				}
			}
		}()
		for k, o := range ops {
			if o.arr != nil {
				srcs[k] = o.arr
				continue
			}
			a, err := o.lit.materialize(mem, n)
			if err != nil {
				return nil, err
			}
			srcs[k] = a
		}
		from, at := make([]int32, n), make([]int32, n)
		best := make([]bool, n) // whether a non-NULL value was found
		valid := make([]bitmap, len(srcs))
		for k, s := range srcs {
			valid[k] = validityOf(s)
		}
		cmp := compareRows(x.typ, srcs)
		for i := range n {
			at[i] = int32(i)
			for k := range srcs {
				if !valid[k].valid(i) {
					continue
				}
				if !best[i] || cmp(k, i, int(from[i]), i)*dir > 0 {
					from[i], best[i] = int32(k), true
				}
			}
		}
		return gather(mem, x.typ, srcs, from, at), nil
	}
}

// compareRows returns a comparison of row i of srcs[a] with row j of
// srcs[b], arrays of the engine type t, in SQL's order; each array's
// values are viewed once.
func compareRows(t arrow.DataType, srcs []arrow.Array) func(a, i, b, j int) int {
	switch t.ID() {
	case arrow.INT64, arrow.TIMESTAMP, arrow.TIME64:
		v := viewAll[int64](srcs)
		return func(a, i, b, j int) int { return cmpInt(v[a][i], v[b][j]) }
	case arrow.DATE32:
		v := viewAll[int32](srcs)
		return func(a, i, b, j int) int { return cmpInt(int64(v[a][i]), int64(v[b][j])) }
	case arrow.FLOAT64:
		v := viewAll[float64](srcs)
		return func(a, i, b, j int) int { return cmpFloat(v[a][i], v[b][j]) }
	case arrow.DECIMAL128:
		v := viewAll[num](srcs)
		return func(a, i, b, j int) int { return cmp128(v[a][i], v[b][j]) }
	case arrow.STRING:
		return func(a, i, b, j int) int {
			return strings.Compare(srcs[a].(*array.String).Value(i), srcs[b].(*array.String).Value(j))
		}
	case arrow.BOOL:
		return func(a, i, b, j int) int {
			x, y := srcs[a].(*array.Boolean).Value(i), srcs[b].(*array.Boolean).Value(j)
			switch {
			case x == y:
				return 0
			case y:
				return -1
			}
			return 1
		}
	}
	panic("expr: no row comparison for " + t.String())
}

// viewAll is the typed values of each array.
func viewAll[T arrow.FixedWidthType](srcs []arrow.Array) [][]T {
	out := make([][]T, len(srcs))
	for k, s := range srcs {
		out[k] = values[T](s)
	}
	return out
}
