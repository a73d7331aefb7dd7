package expr

import (
	"context"
	"math/rand/v2"
	"syscall"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

const benchRows = 8192

// benchBatch is three columns a, b, c of typ with values in [0, 50) and
// 1% NULLs.
func benchBatch(typ arrow.DataType) arrow.RecordBatch {
	mem := memory.NewGoAllocator()
	r := rand.New(rand.NewPCG(1, 2))
	fields := make([]arrow.Field, 3)
	cols := make([]arrow.Array, 3)
	for i, name := range []string{"a", "b", "c"} {
		fields[i] = arrow.Field{Name: name, Type: typ, Nullable: true}
		bld := array.NewBuilder(mem, typ)
		for range benchRows {
			v := r.Int64N(5000)
			switch {
			case r.IntN(100) == 0:
				bld.AppendNull()
			case typ.ID() == arrow.INT64:
				bld.(*array.Int64Builder).Append(v / 100)
			default:
				bld.(*array.Decimal128Builder).Append(decimal128.FromI64(v))
			}
		}
		cols[i] = bld.NewArray()
		bld.Release()
	}
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, benchRows)
}

func benchEval(b *testing.B, e Expr, batch arrow.RecordBatch) {
	ctx := context.Background()
	mem := memory.NewGoAllocator()
	b.ReportAllocs()
	b.SetBytes(benchRows)
	cpu0 := cpuTime()
	for b.Loop() {
		out, err := e.Eval(ctx, mem, batch)
		if err != nil {
			b.Fatal(err)
		}
		out.Release()
	}
	rows := float64(b.N) * benchRows
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/rows, "ns/row")
	// CPU time (GC included) per row: what the work costs when other
	// processes share the machine and wall time says little
	b.ReportMetric(float64(cpuTime()-cpu0)/rows, "cpu-ns/row")
}

// cpuTime is the process's user plus system time in nanoseconds.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// BenchmarkEval answers: what does one expression cost per row of an
// 8192-row batch? (MB/s counts rows: 1 "byte" per row.)
func BenchmarkEval(b *testing.B) {
	for _, tc := range []struct {
		name string
		typ  arrow.DataType
	}{
		{"type=int64", typInt64},
		{"type=decimal(15,2)", decimalType(15, 2)},
	} {
		batch := benchBatch(tc.typ)
		a := Column(0, "a", tc.typ)
		bb := Column(1, "b", tc.typ)
		c := Column(2, "c", tc.typ)
		b.Run("expr=a*b+c/"+tc.name, func(b *testing.B) {
			benchEval(b, must(Arith(Add, must(Arith(Mul, a, bb)), c)), batch)
		})
		// TPC-H Q1's charge: two operands a constant
		b.Run("expr=a*(1-b)*(1+c)/"+tc.name, func(b *testing.B) {
			benchEval(b, must(Arith(Mul, must(Arith(Mul, a, must(Arith(Sub, lit(int64(1)), bb)))), must(Arith(Add, lit(int64(1)), c)))), batch)
		})
		filter := must(And(
			must(Compare(Lt, a, lit(int64(24)))),
			must(Between(bb, lit(int64(5)), lit(int64(7))))))
		b.Run("expr=a<24_AND_b_BETWEEN_5_AND_7/"+tc.name, func(b *testing.B) {
			benchEval(b, filter, batch)
		})
		batch.Release()
	}
}

// BenchmarkCase measures CASE when an arm may fail (evaluated lazily: the
// batch is cut per arm and reassembled) and when none can (every arm on
// every row, then picked).
func BenchmarkCase(b *testing.B) {
	batch := benchBatch(typInt64)
	defer batch.Release()
	a := Column(0, "a", typInt64)
	lt := must(Compare(Lt, a, lit(int64(25))))
	b.Run("arms=may-fail", func(b *testing.B) {
		benchEval(b, must(Case([]When{{lt, must(Arith(Mul, a, lit(int64(2))))}}, lit(int64(0)))), batch)
	})
	b.Run("arms=safe", func(b *testing.B) {
		benchEval(b, must(Case([]When{{lt, a}}, lit(int64(0)))), batch)
	})
}

// BenchmarkKernels measures our kernels against arrow-go's where both are
// correct and we chose ours for speed (the peer runs in the same process).
func BenchmarkKernels(b *testing.B) {
	mem := memory.NewGoAllocator()
	ctx := context.Background()
	r := rand.New(rand.NewPCG(3, 4))
	bools := func() arrow.Array {
		bld := array.NewBooleanBuilder(mem)
		defer bld.Release()
		for range benchRows {
			if r.IntN(10) == 0 {
				bld.AppendNull()
			} else {
				bld.Append(r.IntN(2) == 0)
			}
		}
		return bld.NewArray()
	}
	p, q := bools(), bools()
	defer p.Release()
	defer q.Release()
	run := func(name string, f func() arrow.Array) {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				f().Release()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/benchRows, "ns/row")
		})
	}
	op := func(a arrow.Array) operand { return operand{arr: a, n: a.Len()} }
	run("op=and/impl=arrow", func() arrow.Array {
		out, err := callFunction(ctx, mem, "and_kleene", nil, benchRows, op(p), op(q))
		if err != nil {
			b.Fatal(err)
		}
		return out
	})
	run("op=and/impl=ours", func() arrow.Array { return kleene(mem, true, benchRows, op(p), op(q)) })

	batch := benchBatch(decimalType(15, 2))
	defer batch.Release()
	d := operand{arr: batch.Column(0), n: benchRows}
	c := operand{lit: dec("24.00", 15, 2).(*literal), n: benchRows}
	run("op=decimal<const/impl=arrow", func() arrow.Array {
		out, err := callFunction(ctx, mem, "less", nil, benchRows, d, c)
		if err != nil {
			b.Fatal(err)
		}
		return out
	})
	run("op=decimal<const/impl=ours", func() arrow.Array { return compareDecimals(mem, Lt, benchRows, d, c) })
}
