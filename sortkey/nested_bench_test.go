package sortkey_test

import (
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/sortkey"
	"github.com/quiverdb/quiver/sortkey/sortkeytest"
)

// The question: what does a whole list or struct cost as a key — the
// encoding a query pays per row to compare, sort or group one, and the
// decoding it pays per group to return one? 8,192 rows of each type,
// 0 to 3 elements a list (sortkeytest's generator).
func BenchmarkNestedKeys(b *testing.B) {
	mem := memory.NewGoAllocator()
	for _, typ := range []arrow.DataType{
		arrow.ListOf(arrow.PrimitiveTypes.Int32),
		arrow.ListOf(arrow.BinaryTypes.String),
		arrow.StructOf(arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
			arrow.Field{Name: "b", Type: arrow.BinaryTypes.String, Nullable: true}),
	} {
		col := sortkeytest.Column(mem, typ, 8192, 1000, 0.1, rand.New(rand.NewPCG(1, 2)))
		enc, err := sortkey.NewEncoder([]sortkey.SortField{{Type: typ}})
		if err != nil {
			b.Fatal(err)
		}
		var rows sortkey.Rows
		b.Run("op=encode/type="+typ.String(), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				rows.Reset()
				if err := enc.Encode(&rows, []arrow.Array{col}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/8192, "ns/row")
		})
		b.Run("op=decode/type="+typ.String(), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				bld := array.NewBuilder(mem, typ)
				for i := range rows.Len() {
					if k := rows.Row(i); k[0] == 0x01 {
						if err := sortkey.AppendDecoded(bld, typ, k[1:]); err != nil {
							b.Fatal(err)
						}
					} else {
						bld.AppendNull()
					}
				}
				bld.NewArray().Release()
				bld.Release()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/8192, "ns/row")
		})
		col.Release()
	}
}
