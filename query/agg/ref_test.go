package agg

import (
	"bytes"
	"fmt"
	"math"
	"math/big"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// refAgg is the row-at-a-time reference: a map from the key tuple to
// plain states, computed with big integers where the aggregator uses
// fixed-width tricks.
type refAgg struct {
	keyTypes, argTypes []arrow.DataType
	specs              []Spec
	groups             map[string]*refGroup
	order              []*refGroup
}

type refGroup struct {
	keys   []any // nil: NULL
	states []*refState
}

type refState struct {
	count    int64
	n        int64 // values in sum, or seen by min/max
	sum      *big.Int
	fsum     float64
	best     any
	distinct map[string]bool
	floats   []float64 // the variance family's values
	args     []any     // arg_min/arg_max: the x of every row whose by is best
}

// anyOf is an expected value that may be any of several: arg_min and
// arg_max over rows with equal by (the winner depends on merge order).
type anyOf []any

func newRef(keyTypes, argTypes []arrow.DataType, specs []Spec) *refAgg {
	r := &refAgg{keyTypes: keyTypes, argTypes: argTypes, specs: specs, groups: map[string]*refGroup{}}
	if len(keyTypes) == 0 {
		r.group(nil)
	}
	return r
}

// cell returns row i of a as a Go value, nil for NULL.
func cell(a arrow.Array, i int) any {
	if a.IsNull(i) {
		return nil
	}
	switch a := a.(type) {
	case *array.Boolean:
		return a.Value(i)
	case *array.Int64:
		return a.Value(i)
	case *array.Float64:
		return a.Value(i)
	case *array.Decimal128:
		return a.Value(i)
	case *array.String:
		return strings.Clone(a.Value(i))
	case *array.Date32:
		return a.Value(i)
	case *array.Timestamp:
		return a.Value(i)
	}
	panic(fmt.Sprintf("cell: %T", a))
}

// keyString encodes a value for equality as SQL groups it.
func keyString(v any) string {
	switch v := v.(type) {
	case nil:
		return "N"
	case float64:
		return fmt.Sprintf("F%x", canonicalFloat(v))
	case string:
		return fmt.Sprintf("S%d:%s", len(v), v)
	case decimal128.Num:
		return fmt.Sprintf("D%d,%d", v.HighBits(), v.LowBits())
	}
	return fmt.Sprintf("%T%v", v, v)
}

func (r *refAgg) group(keys []any) *refGroup {
	var sb strings.Builder
	for _, k := range keys {
		sb.WriteString(keyString(k))
		sb.WriteByte('|')
	}
	g := r.groups[sb.String()]
	if g == nil {
		g = &refGroup{keys: keys}
		for range r.specs {
			g.states = append(g.states, &refState{sum: new(big.Int), distinct: map[string]bool{}})
		}
		r.groups[sb.String()] = g
		r.order = append(r.order, g)
	}
	return g
}

func (r *refAgg) add(keys, args []arrow.Array, n int) {
	for i := range n {
		var kv []any
		for _, k := range keys {
			kv = append(kv, cell(k, i))
		}
		g := r.group(kv)
		for j, s := range r.specs {
			st := g.states[j]
			if s.Func == CountStar {
				st.count++
				continue
			}
			v := cell(args[s.Arg], i)
			if v == nil {
				continue
			}
			if s.Func == ArgMin || s.Func == ArgMax {
				by := cell(args[s.By], i)
				if by == nil {
					continue
				}
				switch {
				case st.n == 0 || (s.Func == ArgMin && refLess(by, st.best)) || (s.Func == ArgMax && refLess(st.best, by)):
					st.best, st.args = by, []any{v}
				case !refLess(by, st.best) && !refLess(st.best, by):
					st.args = append(st.args, v)
				}
				st.n++
				continue
			}
			st.count++
			switch s.Func {
			case CountDistinct:
				st.distinct[keyString(v)] = true
			case Sum, Avg:
				st.n++
				switch v := v.(type) {
				case int64:
					st.sum.Add(st.sum, big.NewInt(v))
				case decimal128.Num:
					st.sum.Add(st.sum, v.BigInt())
				case float64:
					st.fsum += v
				}
			case VarSamp, VarPop, StddevSamp, StddevPop:
				st.floats = append(st.floats, v.(float64))
			case Min, Max:
				if st.n == 0 || (s.Func == Min && refLess(v, st.best)) || (s.Func == Max && refLess(st.best, v)) {
					st.best = v
				}
				st.n++
			}
		}
	}
}

// refLess is SQL order: false < true, NaN above every number, strings by
// bytes.
func refLess(a, b any) bool {
	switch a := a.(type) {
	case bool:
		return !a && b.(bool)
	case int64:
		return a < b.(int64)
	case arrow.Date32:
		return a < b.(arrow.Date32)
	case arrow.Timestamp:
		return a < b.(arrow.Timestamp)
	case float64:
		b := b.(float64)
		if math.IsNaN(a) {
			return false
		}
		return math.IsNaN(b) || a < b
	case decimal128.Num:
		return a.Less(b.(decimal128.Num))
	case string:
		return bytes.Compare([]byte(a), []byte(b.(string))) < 0
	}
	panic(fmt.Sprintf("refLess %T", a))
}

// expect is the value spec j of group g must have: nil for NULL,
// errOverflowRef when the sum does not fit.
func (r *refAgg) expect(g *refGroup, j int) any {
	s, st := r.specs[j], g.states[j]
	switch s.Func {
	case CountStar, Count:
		return st.count
	case CountDistinct:
		return int64(len(st.distinct))
	case Min, Max:
		return st.best
	case VarSamp, VarPop, StddevSamp, StddevPop:
		return refVariance(s.Func, st.floats)
	case ArgMin, ArgMax:
		if st.n == 0 {
			return nil
		}
		return anyOf(st.args)
	}
	if st.n == 0 {
		return nil
	}
	dt := r.argTypes[s.Arg]
	switch dt.ID() {
	case arrow.FLOAT64:
		if s.Func == Avg {
			return st.fsum / float64(st.n)
		}
		return st.fsum
	case arrow.INT64:
		if s.Func == Avg {
			f, _ := new(big.Rat).SetFrac(st.sum, big.NewInt(st.n)).Float64()
			return f
		}
		if !st.sum.IsInt64() {
			return errOverflowRef
		}
		return st.sum.Int64()
	}
	scale := dt.(*arrow.Decimal128Type).Scale
	if s.Func == Avg {
		den := new(big.Int).Mul(big.NewInt(st.n), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil))
		f, _ := new(big.Rat).SetFrac(st.sum, den).Float64()
		return f
	}
	lim := new(big.Int).Exp(big.NewInt(10), big.NewInt(38), nil)
	if new(big.Int).Abs(st.sum).Cmp(lim) >= 0 {
		return errOverflowRef
	}
	return decimal128.FromBigInt(st.sum)
}

// refVariance computes the variance family in two passes (mean, then
// squared deviations).
func refVariance(f Func, vals []float64) any {
	n := len(vals)
	div := n
	if f == VarSamp || f == StddevSamp {
		div--
	}
	if n == 0 || div <= 0 {
		return nil
	}
	mean := 0.0
	for _, v := range vals {
		mean += v
	}
	mean /= float64(n)
	ss := 0.0
	for _, v := range vals {
		ss += (v - mean) * (v - mean)
	}
	v := ss / float64(div)
	if f == StddevSamp || f == StddevPop {
		v = math.Sqrt(v)
	}
	return v
}

type overflowRef struct{}

var errOverflowRef = overflowRef{}

// overflows reports whether some group's sum does not fit.
func (r *refAgg) overflows() bool {
	for _, g := range r.order {
		for j := range r.specs {
			if r.expect(g, j) == errOverflowRef {
				return true
			}
		}
	}
	return false
}

// sameValue compares a result cell with the expected value. tol is the
// relative tolerance for floats that are computed differently (averages of
// integers and decimals, or float sums after a merge).
func sameValue(got, want any, tol float64) bool {
	if alts, ok := want.(anyOf); ok {
		for _, w := range alts {
			if sameValue(got, w, tol) {
				return true
			}
		}
		return false
	}
	gf, ok1 := got.(float64)
	wf, ok2 := want.(float64)
	if !ok1 || !ok2 {
		if gd, ok := got.(decimal128.Num); ok {
			wd, ok := want.(decimal128.Num)
			return ok && gd == wd
		}
		return got == want
	}
	switch {
	case math.IsNaN(gf) || math.IsNaN(wf):
		return math.IsNaN(gf) && math.IsNaN(wf)
	case math.IsInf(gf, 0) || math.IsInf(wf, 0) || tol == 0:
		return gf == wf
	}
	return math.Abs(gf-wf) <= tol*math.Max(1, math.Max(math.Abs(gf), math.Abs(wf)))
}
