//go:build duckdb

package difftest

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/query/expr"
)

// Table w: a column of every stored type that is not an engine type, and
// NOT NULL columns among them. Quiver holds these types and passes
// columns a query returns unchanged through in them; DuckDB gets the
// same values in the engine types (engineRecords), which is what quiver
// computes expressions on, so both engines' arithmetic is over the same
// types.
const (
	narrowRows  = 3000
	narrowBatch = 256
)

var narrowSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64},                                      // 0..n-1, ascending
	{Name: "w_i8", Type: arrow.PrimitiveTypes.Int8, Nullable: true},                     // -100..100
	{Name: "w_i16", Type: arrow.PrimitiveTypes.Int16},                                   // -1000..1000
	{Name: "w_i32", Type: arrow.PrimitiveTypes.Int32, Nullable: true},                   // 0..19, a group key
	{Name: "w_u8", Type: arrow.PrimitiveTypes.Uint8, Nullable: true},                    // 0..255
	{Name: "w_u16", Type: arrow.PrimitiveTypes.Uint16},                                  // 0..5, a group key
	{Name: "w_u32", Type: arrow.PrimitiveTypes.Uint32, Nullable: true},                  // 0..100000
	{Name: "w_u64", Type: arrow.PrimitiveTypes.Uint64, Nullable: true},                  // 0..1000
	{Name: "w_f32", Type: arrow.PrimitiveTypes.Float32, Nullable: true},                 // multiples of 1/8
	{Name: "w_d32", Type: &arrow.Decimal32Type{Precision: 9, Scale: 2}, Nullable: true}, // -99999.99..99999.99
	{Name: "w_d64", Type: &arrow.Decimal64Type{Precision: 12, Scale: 2}},                // -999999.99..999999.99
	{Name: "w_d128", Type: &arrow.Decimal128Type{Precision: 7, Scale: 2}, Nullable: true},
	{Name: "w_ls", Type: arrow.BinaryTypes.LargeString, Nullable: true}, // words
	{Name: "w_dt", Type: arrow.FixedWidthTypes.Date64, Nullable: true},  // 1992-01-01..1998-12-31, at midnight
	// 2^64-1 down to about 6e15 in equal steps, past int64 in half the
	// rows (issue 14: such values made every expression on a uint64 fail)
	{Name: "w_ubig", Type: arrow.PrimitiveTypes.Uint64, Nullable: true},
}, nil)

// narrowTable builds w from a fixed seed, in narrowBatch-row batches.
func narrowTable(mem memory.Allocator) []arrow.RecordBatch {
	rng := rand.New(rand.NewPCG(13, 17))
	null := func() bool { return rng.IntN(7) == 0 }
	var recs []arrow.RecordBatch
	for start := 0; start < narrowRows; start += narrowBatch {
		b := array.NewRecordBuilder(mem, narrowSchema)
		for id := start; id < min(start+narrowBatch, narrowRows); id++ {
			b.Field(0).(*array.Int64Builder).Append(int64(id))
			appendOr(b.Field(1), null(), func(x array.Builder) { x.(*array.Int8Builder).Append(int8(rng.IntN(201) - 100)) })
			b.Field(2).(*array.Int16Builder).Append(int16(rng.IntN(2001) - 1000))
			appendOr(b.Field(3), null(), func(x array.Builder) { x.(*array.Int32Builder).Append(rng.Int32N(20)) })
			appendOr(b.Field(4), null(), func(x array.Builder) { x.(*array.Uint8Builder).Append(uint8(rng.IntN(256))) })
			b.Field(5).(*array.Uint16Builder).Append(uint16(rng.IntN(6)))
			appendOr(b.Field(6), null(), func(x array.Builder) { x.(*array.Uint32Builder).Append(uint32(rng.IntN(100001))) })
			appendOr(b.Field(7), null(), func(x array.Builder) { x.(*array.Uint64Builder).Append(uint64(rng.IntN(1001))) })
			appendOr(b.Field(8), null(), func(x array.Builder) {
				x.(*array.Float32Builder).Append(float32(rng.IntN(16001)-8000) / 8)
			})
			appendOr(b.Field(9), null(), func(x array.Builder) {
				x.(*array.Decimal32Builder).Append(decimal.Decimal32(rng.Int32N(19_999_999) - 9_999_999))
			})
			b.Field(10).(*array.Decimal64Builder).Append(decimal.Decimal64(rng.Int64N(199_999_999) - 99_999_999))
			appendOr(b.Field(11), null(), func(x array.Builder) {
				x.(*array.Decimal128Builder).Append(decimal128.FromI64(rng.Int64N(199_999) - 99_999))
			})
			appendOr(b.Field(12), null(), func(x array.Builder) { x.(*array.LargeStringBuilder).Append(words[rng.IntN(len(words))]) })
			appendOr(b.Field(13), null(), func(x array.Builder) {
				x.(*array.Date64Builder).Append(arrow.Date64(int64(8035+rng.IntN(2557)) * 86_400_000))
			})
			// from id alone, so the other columns' values stay as they were
			appendOr(b.Field(14), id%11 == 5, func(x array.Builder) {
				x.(*array.Uint64Builder).Append(math.MaxUint64 - uint64(id)*6_148_914_691_236_517)
			})
		}
		recs = append(recs, b.NewRecordBatch())
		b.Release()
	}
	return recs
}

// engineRecords converts every column of recs to its engine type (what
// DuckDB is given), keeping names and nullability; except w_ubig, which
// DuckDB gets as its own UBIGINT, so that quiver's decimal(20,0) for
// uint64 meets DuckDB's unsigned type (sum to HUGEINT, min, max, compare).
func engineRecords(ctx context.Context, mem memory.Allocator, recs []arrow.RecordBatch) ([]arrow.RecordBatch, error) {
	var fields []arrow.Field
	for _, f := range recs[0].Schema().Fields() {
		et, _ := expr.EngineType(f.Type)
		if f.Name == ubigColumn {
			et = f.Type
		}
		fields = append(fields, arrow.Field{Name: f.Name, Type: et, Nullable: f.Nullable})
	}
	schema := arrow.NewSchema(fields, nil)
	var out []arrow.RecordBatch
	for _, rec := range recs {
		cols := make([]arrow.Array, rec.NumCols())
		for i, c := range rec.Columns() {
			var err error
			if rec.ColumnName(i) == ubigColumn {
				c.Retain()
				cols[i] = c
			} else if cols[i], err = expr.ToEngine(ctx, mem, c); err != nil {
				for _, r := range out {
					r.Release()
				}
				return nil, err
			}
		}
		out = append(out, array.NewRecordBatch(schema, cols, rec.NumRows()))
		for _, c := range cols {
			c.Release()
		}
	}
	return out, nil
}

// ubigColumn is w's uint64 column past int64.
const ubigColumn = "w_ubig"

var narrowSpec = &table{
	name: "w", id: "id",
	cols: []column{
		{"id", tInt, intLit(0, narrowRows)},
		{"w_i8", tInt, intLit(-100, 100)},
		{"w_i16", tInt, intLit(-1000, 1000)},
		{"w_i32", tInt, intLit(0, 19)},
		{"w_u8", tInt, intLit(0, 255)},
		{"w_u16", tInt, intLit(0, 5)},
		{"w_u32", tInt, intLit(0, 100000)},
		{"w_u64", tInt, intLit(0, 1000)},
		{"w_f32", tFloat, floatLit},
		{"w_d32", tDec, decLit(-9_999_999, 9_999_999)},
		{"w_d64", tDec, decLit(-99_999_999, 99_999_999)},
		{"w_d128", tDec, decLit(-99_999, 99_999)},
		{"w_ls", tStr, strLit(words)},
		{"w_dt", tDate, dateLit},
	},
	keys: []string{"w_i32", "w_u16", "w_ls", "w_dt", "w_i8", "w_d128", "w_f32", "w_i16 % 7", "COALESCE(w_ls, 'none')"},
}

// narrowQueries are hand-written corners over w: every stored type passed
// through, sorted on and grouped by, alone and next to expressions over
// the same columns.
var narrowQueries = []testQuery{
	{name: "star", ordered: true, sql: "SELECT * FROM w ORDER BY id"},
	{name: "star filtered on every type", ordered: true, sql: "SELECT * FROM w WHERE w_i8 > -50 AND w_i16 < 500 AND w_u32 > 1000 AND w_f32 < 500 AND w_d32 > -50000 AND w_d64 < 500000 AND w_ls >= 'a' AND w_dt > DATE '1993-01-01' ORDER BY id"},
	{name: "passed through and computed", ordered: true, sql: "SELECT id, w_i8, w_i8 + 1, w_u16, w_u16 * 1000, w_d32, w_d32 * w_d64, w_f32, w_f32 / 2, w_dt, w_dt + INTERVAL '1' MONTH FROM w ORDER BY id LIMIT 500"},
	{name: "order by int8", ordered: true, sql: "SELECT w_i8, id FROM w ORDER BY w_i8 DESC NULLS FIRST, id"},
	{name: "order by uint types", ordered: true, sql: "SELECT id, w_u8, w_u32, w_u64 FROM w ORDER BY w_u64, w_u32 DESC, w_u8 NULLS FIRST, id"},
	{name: "order by float32", ordered: true, sql: "SELECT w_f32, id FROM w ORDER BY w_f32 NULLS FIRST, id LIMIT 300"},
	{name: "order by decimal32 and decimal64", ordered: true, sql: "SELECT w_d32, w_d64 FROM w ORDER BY w_d32 DESC NULLS LAST, w_d64"},
	{name: "order by large string and date64", ordered: true, sql: "SELECT w_ls, w_dt, id FROM w ORDER BY w_ls NULLS FIRST, w_dt DESC, id LIMIT 1000 OFFSET 10"},
	{name: "hidden narrow sort key", ordered: true, sql: "SELECT id FROM w ORDER BY w_i16, id LIMIT 100"},
	{name: "group by narrow keys", ordered: true, sql: "SELECT w_u16, w_i32, count(*), sum(w_i8), sum(w_d32), avg(w_f32), min(w_ls), max(w_dt), sum(w_u64) FROM w GROUP BY w_u16, w_i32 ORDER BY w_u16, w_i32 NULLS FIRST"},
	{name: "group by a key also computed", ordered: true, sql: "SELECT w_i32, w_i32 * 10 AS tens, count(*) FROM w GROUP BY w_i32 HAVING w_i32 > 3 OR w_i32 IS NULL ORDER BY w_i32"},
	{name: "group by float32 and date64", sql: "SELECT w_f32, w_dt, count(*) FROM w WHERE id < 800 GROUP BY w_f32, w_dt"},
	{name: "aggregates of every type", sql: "SELECT count(w_i8), sum(w_i16), min(w_u8), max(w_u32), sum(w_d64), avg(w_d128), min(w_f32), max(w_ls), count(DISTINCT w_u16), count(DISTINCT w_dt) FROM w"},
	{name: "where only", sql: "SELECT count(*) FROM w WHERE w_d128 > 0 AND w_ls LIKE 'a%'"},
	{name: "uint64 past int64 filtered and sorted", ordered: true, sql: "SELECT id, w_ubig FROM w WHERE w_ubig > 9223372036854775807 AND w_ubig <> 18446744073709551615 ORDER BY w_ubig DESC, id LIMIT 200"},
	{name: "uint64 past int64 aggregated", sql: "SELECT sum(w_ubig), min(w_ubig), max(w_ubig), count(w_ubig), count(DISTINCT w_ubig) FROM w"},
	{name: "uint64 past int64 grouped", ordered: true, sql: "SELECT w_u16, count(*), sum(w_ubig), max(w_ubig), min(w_ubig) FROM w GROUP BY w_u16 ORDER BY w_u16"},
	{name: "uint64 past int64 as a key", sql: "SELECT w_ubig, count(*) FROM w WHERE id < 500 GROUP BY w_ubig"},
	// DuckDB computes UBIGINT ± an integer in UBIGINT, so the results stay
	// in its range here; quiver's decimal(20,0) has no such edge.
	{name: "uint64 past int64 computed", ordered: true, sql: "SELECT id, w_ubig + 1, w_ubig - 6148914691236517, w_ubig % 1000, CAST(w_ubig AS DOUBLE), w_ubig > 9223372036854775807 FROM w WHERE id > 0 ORDER BY id LIMIT 300"},
	{name: "uint64 at 2^64-1", sql: "SELECT id FROM w WHERE w_ubig = 18446744073709551615 OR w_ubig IN (18446744073709551615 - 6148914691236517)"},
}

func TestNarrowTypes(t *testing.T) {
	ctx := context.Background()
	var n tally
	for _, q := range narrowQueries {
		t.Run(q.name, func(t *testing.T) {
			if d := env.mismatch(ctx, q, &n); d != "" {
				t.Error(d)
			}
		})
	}
	t.Log(n.String())
}
