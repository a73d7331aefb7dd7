package agg

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestDictionaryKeys groups dictionary-encoded keys (random dictionaries
// with repeated and NULL values, NULL codes, sliced indices, dictionaries
// small and large against the batch, alone and beside another key) and
// checks every group against the same batches decoded.
func TestDictionaryKeys(t *testing.T) {
	for _, vt := range []arrow.DataType{arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64} {
		for _, tc := range []struct {
			name      string
			dictSize  int // values in each batch's dictionary
			withOther bool
		}{
			{"small", 12, false},
			{"larger than the batch", 2000, false},
			{"beside an int64 key", 12, true},
		} {
			t.Run(vt.String()+"/"+tc.name, func(t *testing.T) {
				mem := checked(t)
				rng := rand.New(rand.NewPCG(7, uint64(tc.dictSize)))
				g := &gen{rng: rng, mem: mem, card: 9, nullP: 0.1}
				keyTypes := []arrow.DataType{vt}
				if tc.withOther {
					keyTypes = append(keyTypes, arrow.PrimitiveTypes.Int64)
				}
				argTypes := []arrow.DataType{arrow.PrimitiveTypes.Int64}
				specs := []Spec{{Func: CountStar}, {Func: Count, Arg: 0}, {Func: Min, Arg: 0}, {Func: Max, Arg: 0}} // no sum: gen makes extremes
				coded := newAgg(t, mem, keyTypes, argTypes, specs)
				plain := newAgg(t, mem, keyTypes, argTypes, specs)
				for range 6 {
					n := 1 + rng.IntN(300)
					dictKey, decoded := dictionaryColumn(t, g, vt, tc.dictSize, n)
					arg := g.array(arrow.PrimitiveTypes.Int64, n)
					ck, pk := []arrow.Array{dictKey}, []arrow.Array{decoded}
					if tc.withOther {
						other := g.array(arrow.PrimitiveTypes.Int64, n)
						ck, pk = append(ck, other), append(pk, other)
					}
					if err := coded.Add(ck, []arrow.Array{arg}); err != nil {
						t.Fatal(err)
					}
					if err := plain.Add(pk, []arrow.Array{arg}); err != nil {
						t.Fatal(err)
					}
					dictKey.Release()
					decoded.Release()
					arg.Release()
					if tc.withOther {
						ck[1].Release()
					}
				}
				got, want := resultRows(t, coded), resultRows(t, plain)
				if !slices.Equal(got, want) {
					t.Fatalf("grouped by codes:\n%s\nby values:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
				}
				if len(want) < 3 {
					t.Fatalf("only %d groups: the test data is too narrow", len(want))
				}
			})
		}
	}
}

// TestDictionaryKeyBadCode: a code past the dictionary is an error, and the
// aggregator keeps what it had.
func TestDictionaryKeyBadCode(t *testing.T) {
	mem := checked(t)
	h := newAgg(t, mem, []arrow.DataType{arrow.BinaryTypes.String}, nil, []Spec{{Func: CountStar}})
	for _, codes := range [][]int32{{0, 1, 1}, {0, 5}, {-1}} {
		db := array.NewDictionaryBuilder(mem, &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String})
		if err := db.(*array.BinaryDictionaryBuilder).AppendString("x"); err != nil {
			t.Fatal(err)
		}
		if err := db.(*array.BinaryDictionaryBuilder).AppendString("y"); err != nil {
			t.Fatal(err)
		}
		good := db.NewArray().(*array.Dictionary)
		db.Release()
		idx := array.NewInt32Builder(mem)
		idx.AppendValues(codes, nil)
		ia := idx.NewArray()
		idx.Release()
		d := array.NewDictionaryArray(good.DataType(), ia, good.Dictionary())
		good.Release()
		ia.Release()
		err := h.Add([]arrow.Array{d}, nil)
		d.Release()
		if bad := slices.ContainsFunc(codes, func(c int32) bool { return c < 0 || c > 1 }); bad != errors.Is(err, ErrInput) {
			t.Fatalf("codes %v: %v", codes, err)
		}
		if h.Groups() != 2 {
			t.Fatalf("codes %v: %d groups, want the 2 of the first batch", codes, h.Groups())
		}
	}
}

func newAgg(t *testing.T, mem memory.Allocator, keyTypes, argTypes []arrow.DataType, specs []Spec) *HashAggregator {
	h, err := NewHashAggregator(keyTypes, argTypes, specs, Options{Mem: mem})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Release)
	return h
}

// dictionaryColumn returns n rows as a dictionary of dictSize values of vt
// (drawn from gen's small domain, so values repeat, some NULL) with
// random, partly NULL, sliced codes, and the same rows decoded.
func dictionaryColumn(t *testing.T, g *gen, vt arrow.DataType, dictSize, n int) (*array.Dictionary, arrow.Array) {
	values := g.array(vt, dictSize)
	defer values.Release()
	ib := array.NewInt16Builder(g.mem)
	defer ib.Release()
	pad := g.rng.IntN(3)
	for i := range pad + n {
		if i >= pad && g.rng.IntN(8) == 0 {
			ib.AppendNull()
			continue
		}
		ib.Append(int16(g.rng.IntN(dictSize)))
	}
	all := ib.NewArray()
	defer all.Release()
	idx := array.NewSlice(all, int64(pad), int64(pad+n))
	defer idx.Release()
	dt := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int16, ValueType: vt}
	d := array.NewDictionaryArray(dt, idx, values)
	decoded, err := compute.TakeArray(compute.WithAllocator(context.Background(), g.mem), values, idx)
	if err != nil {
		t.Fatal(err)
	}
	return d, decoded
}

// resultRows renders h's result as sorted lines, one a group.
func resultRows(t *testing.T, h *HashAggregator) []string {
	recs, err := h.Result(1 << 10)
	if err != nil {
		t.Fatal(err)
	}
	defer releaseBatches(recs)
	var rows []string
	for _, rec := range recs {
		for i := range int(rec.NumRows()) {
			var sb strings.Builder
			for _, c := range rec.Columns() {
				sb.WriteString(c.ValueStr(i) + "|")
			}
			rows = append(rows, sb.String())
		}
	}
	slices.Sort(rows)
	return rows
}
