package expr

import (
	"math/rand/v2"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// More of DuckDB's date functions, and random:
//
//   - dayname(t), monthname(t): the English name of the day or month;
//   - last_day(t): the DATE of the last day of t's month;
//   - epoch_ms(t), epoch_us(t), epoch_ns(t): milliseconds, microseconds
//     or nanoseconds since 1970-01-01 (BIGINT; milliseconds rounded
//     toward zero, as DuckDB does; nanoseconds past BIGINT are an error);
//     epoch_ms(n): the TIMESTAMP n milliseconds after 1970-01-01;
//   - random(): a DOUBLE in [0, 1), another for every row and every
//     evaluation (never folded into a constant).

func init() {
	named := func(names []string, pick func(us int64) int) func(string, []Expr) (Expr, error) {
		return func(name string, a []Expr) (Expr, error) {
			k := &kernel{eval: func(x *callExpr, mem memory.Allocator, ops []operand, n int) (arrow.Array, error) {
				t := temporalArg(ops[0])
				validity, nulls := opsValidity(mem, n, ops)
				return mapStringRows(x, mem, ops, n, validity, nulls, nil, func(i int, dst []byte) ([]byte, error) {
					return append(dst, names[pick(t(i))]...), nil
				})
			}}
			return newCall(name, typString, k, a...), nil
		}
	}
	register("dayname", []signature{sig(named(dayNames, func(us int64) int { return int(isoDow(floorDiv(us, usPerDay)) % 7) }), FamTemporal)})
	register("monthname", []signature{sig(named(monthNames, func(us int64) int {
		_, m, _ := civil(floorDiv(us, usPerDay))
		return m - 1
	}), FamTemporal)})
	register("last_day", []signature{sig(func(name string, a []Expr) (Expr, error) {
		k := &kernel{eval: func(x *callExpr, mem memory.Allocator, ops []operand, n int) (arrow.Array, error) {
			t := temporalArg(ops[0])
			return mapFixedRows(x, mem, ops, n, func(i int) (int32, error) {
				y, m, _ := civil(floorDiv(t(i), usPerDay))
				return int32(daysFromCivil(y, m, daysIn(y, m))), nil
			})
		}}
		return newCall(name, typDate32, k, a...), nil
	}, FamTemporal)})
	epochIn := func(per int64) func(string, []Expr) (Expr, error) {
		return func(name string, a []Expr) (Expr, error) {
			k := &kernel{fails: per == 0, eval: func(x *callExpr, mem memory.Allocator, ops []operand, n int) (arrow.Array, error) {
				t := temporalArg(ops[0])
				return mapFixedRows(x, mem, ops, n, func(i int) (int64, error) {
					if per > 0 {
						return t(i) / per, nil // toward zero, as DuckDB
					}
					r, ok := mulMicros(t(i), 1000)
					if !ok {
						return 0, x.errorf(ErrOverflow, "%s nanoseconds since 1970 do not fit BIGINT", formatTimestamp(t(i), false))
					}
					return r, nil
				})
			}}
			return newCall(name, typInt64, k, a...), nil
		}
	}
	register("epoch_ms", []signature{
		sig(epochIn(1000), FamTemporal),
		sig(func(name string, a []Expr) (Expr, error) {
			k := &kernel{fails: true, eval: func(x *callExpr, mem memory.Allocator, ops []operand, n int) (arrow.Array, error) {
				ms := intArg(ops[0])
				return mapFixedRows(x, mem, ops, n, func(i int) (int64, error) {
					r, ok := mulMicros(ms.at(i), 1000)
					if !ok {
						return 0, x.errorf(ErrOverflow, "%d milliseconds is out of range for a timestamp", ms.at(i))
					}
					return r, nil
				})
			}}
			return newCall(name, typTimestamp, k, a...), nil
		}, FamInt),
	})
	register("epoch_us", []signature{sig(epochIn(1), FamTemporal)})
	register("epoch_ns", []signature{sig(epochIn(0), FamTemporal)})
	register("random", []signature{sig(func(name string, a []Expr) (Expr, error) {
		k := &kernel{volatile: true, eval: func(x *callExpr, mem memory.Allocator, ops []operand, n int) (arrow.Array, error) {
			return mapFixedRows(x, mem, ops, n, func(int) (float64, error) { return rand.Float64(), nil })
		}}
		return newCall(name, typFloat64, k), nil
	})}, "rand")
	registry["random"].volatile = true // rand too: one function
}
