package colenc

import (
	"math/rand/v2"
	"testing"
)

// TestPackUnpack checks every bit width against a bit-at-a-time reference.
func TestPackUnpack(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for bits := uint(0); bits <= 64; bits++ {
		for _, n := range []int{0, 1, 2, 7, 8, 9, 63, 64, 65, 130} {
			vals := make([]uint64, n)
			for i := range vals {
				if bits > 0 {
					vals[i] = r.Uint64() >> (64 - bits)
				}
			}
			got := pack([]byte("x"), vals, bits)[1:]
			if len(got) != packedLen(n, bits) {
				t.Fatalf("bits %d n %d: packed %d bytes, want %d", bits, n, len(got), packedLen(n, bits))
			}
			want := make([]byte, packedLen(n, bits))
			for i, v := range vals {
				for b := range bits {
					p := uint(i)*bits + b
					want[p/8] |= byte(v>>b&1) << (p % 8)
				}
			}
			if string(got) != string(want) {
				t.Fatalf("bits %d n %d: packed bytes differ from the reference", bits, n)
			}
			out := make([]uint64, n)
			unpack(out, got, bits)
			for i := range vals {
				if out[i] != vals[i] {
					t.Fatalf("bits %d n %d: value %d = %#x, want %#x", bits, n, i, out[i], vals[i])
				}
			}
		}
	}
}

func BenchmarkPack(b *testing.B) {
	for _, bits := range []uint{1, 2, 4, 8, 10, 16, 24, 32, 33, 64} {
		vals := make([]uint64, 8192)
		r := rand.New(rand.NewPCG(1, 2))
		for i := range vals {
			vals[i] = r.Uint64() >> (64 - bits)
		}
		buf := pack(nil, vals, bits)
		b.Run("bits="+itoa(bits)+"/op=pack", func(b *testing.B) {
			b.SetBytes(8 * int64(len(vals)))
			dst := make([]byte, 0, len(buf))
			for b.Loop() {
				dst = pack(dst[:0], vals, bits)
			}
		})
		b.Run("bits="+itoa(bits)+"/op=unpack", func(b *testing.B) {
			b.SetBytes(8 * int64(len(vals)))
			out := make([]uint64, len(vals))
			for b.Loop() {
				unpack(out, buf, bits)
			}
		})
	}
}

func itoa(u uint) string {
	if u < 10 {
		return string(rune('0' + u))
	}
	return itoa(u/10) + string(rune('0'+u%10))
}
