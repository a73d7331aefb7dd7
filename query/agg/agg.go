package agg

import (
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Func is an aggregate function.
type Func int

const (
	CountStar           Func = iota // count(*)
	Count                           // count(x): non-NULL values
	CountDistinct                   // count(DISTINCT x): distinct non-NULL values
	Sum                             // sum(x)
	Min                             // min(x)
	Max                             // max(x)
	Avg                             // avg(x)
	VarSamp                         // var_samp(x) over float64: the sample variance
	VarPop                          // var_pop(x): the population variance
	StddevSamp                      // stddev_samp(x): the sample standard deviation
	StddevPop                       // stddev_pop(x): the population standard deviation
	ArgMin                          // arg_min(x, by): x of the row with the smallest by (Spec.By)
	ArgMax                          // arg_max(x, by): x of the row with the largest by
	First                           // first(x): x of the group's row of the smallest position (Spec.By), NULL or not (firstlast.go)
	Last                            // last(x): x of the row of the largest position
	StringAgg                       // string_agg(x, Spec.Sep [ORDER BY Spec.Order]) (collect.go)
	QuantileCont                    // quantile_cont(x, Spec.Q): interpolated (collect.go)
	QuantileDisc                    // quantile_disc(x, Spec.Q): a value of the group
	ApproxCountDistinct             // approx_count_distinct(x): HyperLogLog (approx.go)
)

var funcNames = [...]string{"count(*)", "count", "count(DISTINCT)", "sum", "min", "max", "avg",
	"var_samp", "var_pop", "stddev_samp", "stddev_pop", "arg_min", "arg_max",
	"first", "last", "string_agg", "quantile_cont", "quantile_disc", "approx_count_distinct"}

func (f Func) String() string {
	if f < 0 || int(f) >= len(funcNames) {
		return fmt.Sprintf("Func(%d)", int(f))
	}
	return funcNames[f]
}

// Spec is one aggregate of a GROUP BY.
type Spec struct {
	Func Func
	Arg  int // index into the args passed to Add; ignored for CountStar
	// By is the argument ArgMin and ArgMax order by (an index as Arg),
	// and First and Last's positions (int64: the order of the rows, each
	// its own); ignored by the others.
	By int
	// Filter is 1 + the index of a BOOLEAN argument: only the rows where
	// it is TRUE reach the aggregate (SQL's FILTER (WHERE …)). 0: every
	// row.
	Filter int
	// Sep is StringAgg's separator.
	Sep string
	// Order orders StringAgg's values; without it they come in the order
	// the aggregator sees the rows.
	Order []OrderKey
	// Q is the fraction QuantileCont and QuantileDisc take, in [0, 1].
	Q float64
	// Name names the output column and appears in errors, for example
	// "sum(l_quantity)". Empty: the function and argument index, "sum(#2)".
	Name string
}

// OrderKey is one key of Spec.Order: an argument, its direction and
// where its NULLs go.
type OrderKey struct {
	Arg              int
	Desc, NullsFirst bool
}

func (s Spec) name(i int) string {
	switch {
	case s.Name != "":
		return s.Name
	case s.Func == CountStar:
		return "count(*)"
	case s.Func == CountDistinct:
		return fmt.Sprintf("count(DISTINCT #%d)", s.Arg)
	}
	return fmt.Sprintf("%s(#%d)", s.Func, s.Arg)
}

// Options configure a HashAggregator.
type Options struct {
	// Mem allocates the arrays Result and Partial return. nil: the Go
	// allocator. The hash table and states live on the Go heap, counted
	// by MemoryUsage.
	Mem memory.Allocator
	// MemoryLimit bounds MemoryUsage. 0: none. An Add or Merge that would
	// pass it fails with ErrMemoryLimit and leaves the aggregator as it was.
	MemoryLimit int64
	// Dense, for one int64 or date32 key, is a range holding every key:
	// the groups are numbered by a dense index over it instead of the
	// hash table (densegroup.go), as long as the keys stay in it. nil:
	// hash.
	Dense *DenseRange
}

// Validate checks the options.
func (o Options) Validate() error {
	if o.MemoryLimit < 0 {
		return fmt.Errorf("%w: negative memory limit %d", ErrInput, o.MemoryLimit)
	}
	return nil
}

var (
	// ErrMemoryLimit: the aggregation needs more memory than
	// Options.MemoryLimit allows.
	ErrMemoryLimit = errors.New("agg: memory limit exceeded")
	// ErrOverflow: a sum does not fit its result type.
	ErrOverflow = errors.New("agg: overflow")
	// ErrUnsupported: a function or type the aggregator does not take.
	ErrUnsupported = errors.New("agg: unsupported")
	// ErrInput: Add or Merge was given columns that do not match.
	ErrInput = errors.New("agg: bad input")
)

// supported reports whether dt is an engine type keys and arguments take.
func supported(dt arrow.DataType) bool {
	if dt == nil {
		return false
	}
	switch dt.ID() {
	case arrow.BOOL, arrow.INT64, arrow.FLOAT64, arrow.DECIMAL128, arrow.STRING, arrow.DATE32, arrow.TIMESTAMP, arrow.TIME64,
		arrow.INTERVAL_MONTH_DAY_NANO, arrow.BINARY:
		return true
	}
	return false
}

// ResultType is the output type of f over an argument of type arg: count →
// int64; sum(int64) → int64 (overflow is an error naming the aggregate);
// sum(decimal(p,s)) → decimal(38,s); sum(float64) → float64;
// avg(int64|float64|decimal) → float64 (as DuckDB); min/max → arg; the
// variance family (var_samp, var_pop, stddev_samp, stddev_pop) over
// float64 → float64 (variance.go); arg_min/arg_max → arg (argminmax.go).
// arg is ignored for CountStar.
func ResultType(f Func, arg arrow.DataType) (arrow.DataType, error) {
	if f == CountStar {
		return arrow.PrimitiveTypes.Int64, nil
	}
	if !supported(arg) {
		return nil, fmt.Errorf("%w: %s over %v", ErrUnsupported, f, arg)
	}
	switch f {
	case Count, CountDistinct:
		return arrow.PrimitiveTypes.Int64, nil
	case Min, Max, ArgMin, ArgMax, First, Last, QuantileDisc:
		if arg.ID() == arrow.INTERVAL_MONTH_DAY_NANO && (f == Min || f == Max) || arg.ID() == arrow.BINARY && (f == ArgMin || f == ArgMax) {
			break // an interval's min and max are arg_min and arg_max by its sort key (the planner's); no arg_min of BLOBs yet
		}
		return arg, nil
	case StringAgg:
		if arg.ID() == arrow.STRING {
			return arg, nil
		}
	case QuantileCont:
		return contType(arg)
	case ApproxCountDistinct:
		return arrow.PrimitiveTypes.Int64, nil
	case VarSamp, VarPop, StddevSamp, StddevPop:
		if arg.ID() == arrow.FLOAT64 {
			return arg, nil
		}
	case Sum, Avg:
		switch arg.ID() {
		case arrow.INT64:
			if f == Avg {
				return arrow.PrimitiveTypes.Float64, nil
			}
			return arrow.PrimitiveTypes.Int64, nil
		case arrow.FLOAT64:
			return arrow.PrimitiveTypes.Float64, nil
		case arrow.DECIMAL128:
			if f == Avg {
				return arrow.PrimitiveTypes.Float64, nil
			}
			return &arrow.Decimal128Type{Precision: 38, Scale: arg.(*arrow.Decimal128Type).Scale}, nil
		}
	}
	return nil, fmt.Errorf("%w: %s over %v", ErrUnsupported, f, arg)
}

// sameState reports whether two stateKeys share a state: equal, and
// not ordered by arguments (whose lists are not compared).
func sameState(a, b Spec) bool {
	if len(a.Order) > 0 || len(b.Order) > 0 {
		return false
	}
	return a.Func == b.Func && a.Arg == b.Arg && a.By == b.By && a.Filter == b.Filter && a.Sep == b.Sep && a.Q == b.Q
}

// Serial reports whether f depends on the order rows arrive in
// (string_agg without ORDER BY) or keeps every value of a group
// (string_agg, the quantiles), so that it has no partial state: it is
// computed by one aggregator, which does not spill. (first and last
// order by the positions the caller gives, and merge.)
func Serial(f Func) bool {
	switch f {
	case StringAgg, QuantileCont, QuantileDisc:
		return true
	}
	return false
}

// stateKey identifies the state a spec needs: sum(x) and avg(x) share one.
func stateKey(s Spec) Spec {
	switch s.Func {
	case CountStar:
		return Spec{Func: CountStar, Arg: -1, Filter: s.Filter}
	case Avg:
		return Spec{Func: Sum, Arg: s.Arg, Filter: s.Filter}
	case VarPop, StddevSamp, StddevPop:
		return Spec{Func: VarSamp, Arg: s.Arg, Filter: s.Filter}
	case ArgMin, ArgMax, First, Last:
		return Spec{Func: s.Func, Arg: s.Arg, By: s.By, Filter: s.Filter}
	case StringAgg, QuantileCont, QuantileDisc:
		return Spec{Func: s.Func, Arg: s.Arg, Filter: s.Filter, Sep: s.Sep, Order: s.Order, Q: s.Q}
	}
	return Spec{Func: s.Func, Arg: s.Arg, Filter: s.Filter}
}

// newState returns the state for a stateKey over an argument of type dt.
func newState(a *account, spec Spec, dt arrow.DataType) state {
	switch spec.Func {
	case CountStar, Count:
		// A filtered count(*) counts its input's rows, the filter's.
		return &countState{acct: a, star: spec.Func == CountStar && spec.Filter == 0}
	case CountDistinct:
		return newDistinct(a, dt)
	case Min, Max:
		return newMinMax(a, dt, spec.Func == Min)
	case VarSamp:
		return &varianceState{acct: a}
	case StringAgg, QuantileCont, QuantileDisc:
		return newCollect(a, spec, dt)
	case ApproxCountDistinct:
		return &approxState{acct: a}
	}
	switch dt.ID() {
	case arrow.INT64:
		return &sumIntState{acct: a}
	case arrow.FLOAT64:
		return &sumFloatState{acct: a}
	}
	if dec := dt.(*arrow.Decimal128Type); dec.Precision <= 18 {
		return &sumIntState{acct: a, dec: dec}
	}
	return &sumDecState{acct: a, scale: dt.(*arrow.Decimal128Type).Scale}
}
