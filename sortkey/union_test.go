package sortkey_test

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/sortkey"
)

// unionRow is what a union row holds: its member and the member's value
// (nil for NULL).
type unionRow struct {
	member int
	i      *int64
	s      *string
}

// unionCmp is DuckDB's order of UNION(i BIGINT, s VARCHAR): by member,
// then by the member's value, a NULL value last.
func unionCmp(a, b unionRow) int {
	if a.member != b.member {
		return a.member - b.member
	}
	switch {
	case a.member == 0 && (a.i == nil || b.i == nil):
		return boolCmp(a.i == nil, b.i == nil)
	case a.member == 0:
		return int(min(max(*a.i-*b.i, -1), 1))
	case a.s == nil || b.s == nil:
		return boolCmp(a.s == nil, b.s == nil)
	}
	return bytes.Compare([]byte(*a.s), []byte(*b.s))
}

func boolCmp(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// TestUnionKeys encodes random sparse and dense unions (sliced, NULL
// member values, type codes that are not positions): the keys order as
// DuckDB orders the values, and decode back to the same keys.
func TestUnionKeys(t *testing.T) {
	for _, mode := range []arrow.UnionMode{arrow.SparseMode, arrow.DenseMode} {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		ut := arrow.UnionOf(mode, []arrow.Field{
			{Name: "i", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
			{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		}, []arrow.UnionTypeCode{5, 2})
		rng := rand.New(rand.NewPCG(9, uint64(mode)))
		b := array.NewBuilder(mem, ut).(array.UnionBuilder)
		var rows []unionRow
		strs := []string{"", "a", "ab", "b", "\x00", "\xff"}
		for range 300 {
			r := unionRow{member: rng.IntN(2)}
			b.Append(ut.TypeCodes()[r.member])
			null := rng.IntN(6) == 0
			switch r.member {
			case 0:
				if null {
					b.Child(0).AppendNull()
				} else {
					v := rng.Int64N(7) - 3
					r.i = &v
					b.Child(0).(*array.Int64Builder).Append(v)
				}
				if mode == arrow.SparseMode {
					b.Child(1).AppendEmptyValue()
				}
			case 1:
				if null {
					b.Child(1).AppendNull()
				} else {
					v := strs[rng.IntN(len(strs))]
					r.s = &v
					b.Child(1).(*array.StringBuilder).Append(v)
				}
				if mode == arrow.SparseMode {
					b.Child(0).AppendEmptyValue()
				}
			}
			rows = append(rows, r)
		}
		full := b.NewArray()
		b.Release()
		col := array.NewSlice(full, 7, 300)
		full.Release()
		rows = rows[7:]
		for _, desc := range []bool{false, true} {
			enc, err := sortkey.NewEncoder([]sortkey.SortField{{Type: ut, Desc: desc}})
			if err != nil {
				t.Fatal(err)
			}
			var keys sortkey.Rows
			if err := enc.Encode(&keys, []arrow.Array{col}); err != nil {
				t.Fatal(err)
			}
			for x := range rows {
				for y := range rows {
					want := unionCmp(rows[x], rows[y])
					if desc {
						want = -want
					}
					got := bytes.Compare(keys.Row(x), keys.Row(y))
					if max(min(got, 1), -1) != want {
						t.Fatalf("%s desc=%v: rows %d and %d (%v, %v): key order %d, want %d", ut, desc, x, y, rows[x], rows[y], got, want)
					}
				}
			}
			if desc {
				continue
			}
			back := array.NewBuilder(mem, ut)
			for x := range rows {
				if err := sortkey.AppendDecoded(back, ut, keys.Row(x)[1:]); err != nil {
					t.Fatal(err)
				}
			}
			dec := back.NewArray()
			back.Release()
			var again sortkey.Rows
			if err := enc.Encode(&again, []arrow.Array{dec}); err != nil {
				t.Fatal(err)
			}
			for x := range rows {
				if !slices.Equal(keys.Row(x), again.Row(x)) {
					t.Fatalf("%s row %d: key %x, decoded and encoded again %x", ut, x, keys.Row(x), again.Row(x))
				}
			}
			dec.Release()
		}
		col.Release()
		mem.AssertSize(t, 0)
	}
}
