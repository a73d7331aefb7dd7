package expr

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
)

// TestASCIICase: appendASCIICase, eight bytes at a time, agrees with
// strings.ToLower and ToUpper on ASCII strings of every length around
// the word size, with every byte near the letters' edges, and refuses a
// string with a byte past ASCII wherever it is.
func TestASCIICase(t *testing.T) {
	edges := []byte("@AZ[`az{\x00\x7f09 ~_mM")
	rng := rand.New(rand.NewPCG(1, 2))
	for n := range 40 {
		for range 50 {
			b := make([]byte, n)
			for i := range b {
				if rng.IntN(2) == 0 {
					b[i] = edges[rng.IntN(len(edges))]
				} else {
					b[i] = byte(rng.IntN(128))
				}
			}
			s := string(b)
			lo, ok := appendASCIICase([]byte("pre"), s, 'A')
			if !ok || string(lo) != "pre"+strings.ToLower(s) {
				t.Fatalf("lower %q = %q, %v", s, lo, ok)
			}
			up, ok := appendASCIICase(nil, s, 'a')
			if !ok || string(up) != strings.ToUpper(s) {
				t.Fatalf("upper %q = %q, %v", s, up, ok)
			}
			if n > 0 {
				b[rng.IntN(n)] = 0x80 + byte(rng.IntN(128))
				if out, ok := appendASCIICase([]byte("pre"), string(b), 'A'); ok || string(out) != "pre" {
					t.Fatalf("non-ASCII %q: %q, %v", b, out, ok)
				}
			}
		}
	}
}

// TestLikeLowered: lower(s) LIKE p, matched on each value lowered into a
// scratch buffer, agrees with LIKE over lower()'s array, for ASCII and
// non-ASCII values, NULLs and NOT LIKE.
func TestLikeLowered(t *testing.T) {
	vals := []any{"Carefully", "CAREFULLY quick", "xcarefullyx", "careful", nil, "", "ÉCOLE carefully", "Straße", "K\u212a", "ab"}
	js, _ := json.Marshal(vals)
	cols := []jcol{{"s", arrow.BinaryTypes.String, string(js)}}
	for _, pat := range []string{"%carefully%", "care%", "%é%", "k%", "_b", "%ss%", ""} {
		for _, neg := range []bool{false, true} {
			low, err := Call("lower", jexpr(cols, "s"))
			if err != nil {
				t.Fatal(err)
			}
			fused, err := Like(low, pat, neg)
			if err != nil {
				t.Fatal(err)
			}
			if fused.(*likeExpr).lowered == nil {
				t.Fatal("LIKE over lower() not fused")
			}
			// The same LIKE over lower()'s array.
			toks, err := compileLike(pat)
			if err != nil {
				t.Fatal(err)
			}
			plain := &likeExpr{e: low, pattern: pat, negate: neg, match: likeMatcher(toks)}
			got, err := evalValues(t, fused, cols...)
			if err != nil {
				t.Fatal(err)
			}
			want, err := evalValues(t, plain, cols...)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("lower(s) LIKE %q (not %v):\n got %v\nwant %v", pat, neg, got, want)
			}
		}
	}
}
