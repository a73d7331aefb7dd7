package bufs

import (
	"bytes"
	"testing"
)

// TestExtend: spare capacity is reused in place, a short one gives a new
// buffer of exactly the length, and the prefix survives either way.
func TestExtend(t *testing.T) {
	dst := make([]byte, 3, 10)
	copy(dst, "abc")
	in := Extend(dst, 7)
	if len(in) != 10 || &in[0] != &dst[0] || string(in[:3]) != "abc" {
		t.Fatalf("within capacity: len %d, in place %v, prefix %q", len(in), &in[0] == &dst[0], in[:3])
	}
	out := Extend(dst, 8)
	if len(out) != 11 || cap(out) != 11 || &out[0] == &dst[0] || string(out[:3]) != "abc" || !bytes.Equal(out[3:], make([]byte, 8)) {
		t.Fatalf("past capacity: len %d cap %d, prefix %q", len(out), cap(out), out[:3])
	}
	if got := Extend(nil, 0); len(got) != 0 {
		t.Fatalf("Extend(nil, 0) has %d bytes", len(got))
	}
}
