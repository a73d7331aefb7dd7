package column

import (
	"bytes"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/decimal"
)

// TestReinterpretStopsAtLen is the canary of the dictionary gather's
// views: the view of a buffer with spare capacity ends at len(b), so a
// slice of it past the length panics instead of writing the spare bytes.
func TestReinterpretStopsAtLen(t *testing.T) {
	mem := bytes.Repeat([]byte{0xAA}, 64)
	b := mem[:32]
	v := reinterpret[decimal.Decimal128](b)
	if len(v) != 2 || cap(v) != 2 {
		t.Fatalf("len %d cap %d, want 2 and 2", len(v), cap(v))
	}
	v[0], v[1] = decimal.Decimal128{}, decimal.Decimal128{}
	if bytes.Count(mem[32:], []byte{0xAA}) != 32 {
		t.Fatalf("bytes past len(b) changed: % x", mem[32:])
	}
	if w := reinterpret[uint64](mem[:7]); len(w) != 0 {
		t.Fatalf("7 bytes gave %d words", len(w))
	}
}
