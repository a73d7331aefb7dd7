package hll

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"testing"
)

// TestEstimateError holds the estimate within 5% (about three standard
// errors at p = 12) from 10^3 to 10^6 distinct values, each inserted
// twice (duplicates must not count), and within 2 of the truth below 100.
func TestEstimateError(t *testing.T) {
	for _, n := range []int{0, 1, 2, 10, 50, 99, 1_000, 10_000, 100_000, 1_000_000} {
		for seed := uint64(0); seed < 3; seed++ {
			var s Sketch
			for i := range n {
				h := Mix(uint64(i) + seed<<40)
				s.Insert(h)
				s.Insert(h)
			}
			got := float64(s.Estimate())
			tol := 0.05 * float64(n)
			if n < 100 {
				tol = 2
			}
			if math.Abs(got-float64(n)) > tol {
				t.Errorf("n=%d seed=%d: estimate %.0f, off by %.2f%%", n, seed, got, 100*(got-float64(n))/float64(n))
			}
		}
	}
}

// TestMergeIsUnion: the merge of two sketches is the sketch of the union,
// register for register, overlapping or not, whichever way round.
func TestMergeIsUnion(t *testing.T) {
	var a, b, union Sketch
	for i := range 30_000 {
		h := Mix(uint64(i))
		union.Insert(h)
		if i < 20_000 {
			a.Insert(h)
		}
		if i >= 10_000 {
			b.Insert(h)
		}
	}
	ab := a.Clone()
	ab.Merge(&b)
	ba := b.Clone()
	ba.Merge(&a)
	if !ab.Equal(&union) || !ba.Equal(&union) {
		t.Fatal("merge differs from the sketch of the union")
	}
	if a.Equal(&union) {
		t.Fatal("a sketch of part equals the union's: the test proves nothing")
	}
	var empty Sketch
	c := a.Clone()
	c.Merge(&empty)
	c.Merge(nil)
	if !c.Equal(&a) {
		t.Fatal("merging an empty sketch changed it")
	}
	empty.Merge(&a)
	if !empty.Equal(&a) {
		t.Fatal("an empty sketch merged with a is not a")
	}
}

func TestRho(t *testing.T) {
	for _, tc := range []struct {
		h    uint64
		i    int
		want uint8
	}{
		{0x005 | 1<<12, 5, 1},
		{0x005 | 1<<14, 5, 3},
		{0xfff, 0xfff, maxRho}, // the 52 high bits all zero
		{1 << 63, 0, 52},
	} {
		var s Sketch
		s.Insert(tc.h)
		if s.regs[tc.i] != tc.want {
			t.Errorf("hash %#x: register %d = %d, want %d", tc.h, tc.i, s.regs[tc.i], tc.want)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	for _, n := range []int{0, 1, 10, 500, 2_000, 100_000} {
		var s Sketch
		for i := range n {
			s.Insert(Mix(uint64(i)))
		}
		prefix := []byte("prefix")
		b := s.AppendBinary(append([]byte(nil), prefix...))
		if !bytes.HasPrefix(b, prefix) {
			t.Fatalf("n=%d: prefix lost", n)
		}
		b = b[len(prefix):]
		form := Form(b[2])
		if n <= 500 && form != Sparse || n >= 100_000 && form != Dense {
			t.Errorf("n=%d: form %s", n, form)
		}
		if form == Dense && len(b) != 3+registers || form == Sparse && len(b) > 3+registers {
			t.Errorf("n=%d: %s sketch of %d bytes", n, form, len(b))
		}
		got, err := Parse(b)
		if err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		if !got.Equal(&s) || got.Estimate() != s.Estimate() {
			t.Fatalf("n=%d: round trip differs", n)
		}
	}
}

func TestGoldenBytes(t *testing.T) {
	var s Sketch
	if got := fmt.Sprintf("% x", s.AppendBinary(nil)); got != "01 0c 02 00" {
		t.Errorf("empty sketch: %s", got)
	}
	s.Insert(0x005 | 1<<14)
	if got := fmt.Sprintf("% x", s.AppendBinary(nil)); got != "01 0c 02 01 05 03" {
		t.Errorf("one hash: %s", got)
	}
}

func TestParseCorrupt(t *testing.T) {
	dense := make([]byte, 3+registers)
	dense[0], dense[1], dense[2] = Version, Precision, byte(Dense)
	over := bytes.Clone(dense)
	over[100] = maxRho + 1
	for name, b := range map[string][]byte{
		"short":           {1, 12},
		"version":         {2, 12, 2, 0},
		"precision":       {1, 14, 2, 0},
		"form":            {1, 12, 9, 0},
		"dense short":     dense[:len(dense)-1],
		"dense long":      append(bytes.Clone(dense), 0),
		"dense register":  over,
		"sparse count":    {1, 12, 2, 0x80},
		"sparse too many": {1, 12, 2, 0x81, 0x40},
		"sparse cut":      {1, 12, 2, 2, 5, 3},
		"sparse repeat":   {1, 12, 2, 2, 5, 3, 0, 4},
		"sparse past end": {1, 12, 2, 1, 0x80, 0x20, 1},
		"sparse zero":     {1, 12, 2, 1, 5, 0},
		"sparse big":      {1, 12, 2, 1, 5, 54},
		"sparse trailing": {1, 12, 2, 1, 5, 3, 0},
	} {
		if _, err := Parse(b); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: error %v, want ErrCorrupt", name, err)
		}
	}
}

func FuzzParse(f *testing.F) {
	var s Sketch
	f.Add(s.AppendBinary(nil))
	for i := range 100 {
		s.Insert(Mix(uint64(i)))
	}
	f.Add(s.AppendBinary(nil))
	for i := range 5000 {
		s.Insert(Mix(uint64(i)))
	}
	f.Add(s.AppendBinary(nil))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := Parse(b)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error %v does not wrap ErrCorrupt", err)
			}
			return
		}
		again, err := Parse(s.AppendBinary(nil))
		if err != nil || !again.Equal(s) {
			t.Fatalf("re-encoding a parsed sketch does not round trip: %v", err)
		}
		s.Estimate()
	})
}

func BenchmarkInsert(b *testing.B) {
	hs := make([]uint64, 8192)
	for i := range hs {
		hs[i] = Mix(uint64(i))
	}
	var s Sketch
	b.SetBytes(8 * int64(len(hs)))
	b.ReportAllocs()
	for b.Loop() {
		s.InsertMany(hs)
	}
}
