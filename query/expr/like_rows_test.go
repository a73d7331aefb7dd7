package expr

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestLikeRowsMatchesRowByRow: LIKE over a batch's whole value buffer
// (one search for the literal after a leading '%', then the row matcher
// on the rows that hold it) gives, for random values from a small
// alphabet (so literals recur and straddle values), NULLs, empty values
// and sliced arrays, what likeMatch gives value by value; with and
// without lower() and NOT.
func TestLikeRowsMatchesRowByRow(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rng := rand.New(rand.NewPCG(7, 8))
	word := func(alpha string, max int) string {
		b := make([]byte, rng.IntN(max+1))
		for i := range b {
			b[i] = alpha[rng.IntN(len(alpha))]
		}
		return string(b)
	}
	ctx := context.Background()
	for round := range 300 {
		n := 1 + rng.IntN(40)
		vals := make([]*string, n)
		for i := range vals {
			if rng.IntN(6) > 0 {
				s := word("abAB c", 12)
				vals[i] = &s
			}
		}
		pat := "%" + word("ab_%", 4)
		if rng.IntN(2) == 0 {
			pat = "%" + word("ab", 3) + "%"
		}
		lo, hi := rng.IntN(n), n
		if rng.IntN(2) == 0 {
			hi = lo + rng.IntN(n-lo+1)
		}
		b := array.NewStringBuilder(mem)
		for _, v := range vals {
			if v == nil {
				b.AppendNull()
			} else {
				b.Append(*v)
			}
		}
		whole := b.NewArray()
		b.Release()
		arr := array.NewSlice(whole, int64(lo), int64(hi))
		whole.Release()
		rec := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true}}, nil), []arrow.Array{arr}, int64(arr.Len()))
		arr.Release()
		for _, lowered := range []bool{false, true} {
			for _, neg := range []bool{false, true} {
				e := Column(0, "s", arrow.BinaryTypes.String)
				if lowered {
					var err error
					if e, err = Call("lower", e); err != nil {
						t.Fatal(err)
					}
				}
				x, err := Like(e, pat, neg)
				if err != nil {
					t.Fatal(err)
				}
				got, err := x.Eval(ctx, mem, rec)
				if err != nil {
					t.Fatal(err)
				}
				toks, _ := compileLike(pat)
				for i := range hi - lo {
					v := vals[lo+i]
					if v == nil {
						if !got.IsNull(i) {
							t.Fatalf("round %d: NULL row %d not NULL", round, i)
						}
						continue
					}
					s := *v
					if lowered {
						s = strings.ToLower(s)
					}
					want := likeMatch(toks, s) != neg
					if got.IsNull(i) || got.(*array.Boolean).Value(i) != want {
						t.Fatalf("round %d: %q LIKE %q (lower %v, not %v) = %v, want %v", round, *v, pat, lowered, neg, got, want)
					}
				}
				got.Release()
			}
		}
		rec.Release()
	}
}

// TestContainsRows: occurrences that straddle two values, sit at a
// value's very end, or repeat within one value each report the row once.
func TestContainsRows(t *testing.T) {
	vals := []string{"xa", "b", "", "ab", "abab", "a", "bab"}
	var data []byte
	offs := []int32{0}
	for _, v := range vals {
		data = append(data, v...)
		offs = append(offs, int32(len(data)))
	}
	var rows []int
	containsRows(data, offs, "ab", func(i int) { rows = append(rows, i) })
	if want := []int{3, 4, 6}; !equalInts(rows, want) {
		t.Fatalf("rows %v, want %v", rows, want)
	}
	// offsets that do not start at 0 (a sliced array)
	rows = rows[:0]
	containsRows(data[offs[1]:], offs[1:], "ab", func(i int) { rows = append(rows, i) })
	if want := []int{2, 3, 5}; !equalInts(rows, want) {
		t.Fatalf("sliced rows %v, want %v", rows, want)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
