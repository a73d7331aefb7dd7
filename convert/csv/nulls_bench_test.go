package csv

import (
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
)

// BenchmarkStringNulls: what the null rule costs string columns, next
// to StringsNeverNull (no test per field), on short strings (each
// compared with the tokens) and longer ones, 10% of them empty.
func BenchmarkStringNulls(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	var sb strings.Builder
	sb.WriteString("a,b,c\n")
	field := func(n int) string {
		if r.IntN(10) == 0 {
			return ""
		}
		return strings.Repeat(string(rune('a'+r.IntN(26))), 1+r.IntN(n))
	}
	for sb.Len() < 8<<20 {
		fmt.Fprintf(&sb, "%s,%s,%s\n", field(4), field(4), field(40))
	}
	in := sb.String()
	for _, never := range []bool{false, true} {
		b.Run(fmt.Sprintf("strings-never-null=%v", never), func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			for b.Loop() {
				rd, err := NewReader(strings.NewReader(in), Options{Schema: strSchema(3), StringsNeverNull: never, Concurrency: 1})
				if err != nil {
					b.Fatal(err)
				}
				for {
					rec, err := rd.Next()
					if err == io.EOF {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
					rec.Release()
				}
				rd.Release()
			}
		})
	}
}
