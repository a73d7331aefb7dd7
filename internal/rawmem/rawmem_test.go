package rawmem

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// The tests run under both builds (go test, go test -tags purego): the
// same inputs, the same results, except where the doc says purego cannot.

const guard = 0xAA

// guarded returns a buffer of n bytes whose first byte is 8-byte aligned,
// followed by 16 guard bytes, and the whole backing slice.
func guarded(n int) (b, all []byte) {
	all = bytes.Repeat([]byte{guard}, n+8+16)
	off := int((8 - Addr(all)%8) % 8)
	return all[off : off+n], all[off:]
}

func untouched(t *testing.T, what string, tail []byte) {
	t.Helper()
	for i, c := range tail {
		if c != guard {
			t.Fatalf("%s wrote guard byte %d past len(dst): %#x", what, i, c)
		}
	}
}

// TestWordsNeverPassLen is the canary of the views: writing every word
// of a view leaves the bytes after len(b) as they were.
func TestWordsNeverPassLen(t *testing.T) {
	for _, n := range []int{1, 2, 3, 7} {
		b, all := guarded(8 * n)
		w64 := Words[uint64](b, n)
		if (w64 != nil) != Fast || (Fast && (len(w64) != n || cap(w64) != n)) {
			t.Fatalf("Words[uint64](%d bytes, %d): len %d cap %d, fast build %v", len(b), n, len(w64), cap(w64), Fast)
		}
		for i := range w64 {
			w64[i] = ^uint64(i)
		}
		for i := range w64 {
			if got := binary.LittleEndian.Uint64(b[8*i:]); got != ^uint64(i) {
				t.Fatalf("word %d reads back as %#x from the bytes", i, got)
			}
		}
		untouched(t, "Words[uint64]", all[8*n:])

		b, all = guarded(4 * n)
		w32 := Words[uint32](b, n)
		if (w32 != nil) != Fast || (Fast && (len(w32) != n || cap(w32) != n)) {
			t.Fatalf("Words[uint32](%d bytes, %d): len %d cap %d, fast build %v", len(b), n, len(w32), cap(w32), Fast)
		}
		for i := range w32 {
			w32[i] = ^uint32(i)
		}
		untouched(t, "Words[uint32]", all[4*n:])
	}
}

// TestWordsRefuses: too short, misaligned or empty gives nil, never a
// view that would reach past the bytes.
func TestWordsRefuses(t *testing.T) {
	b, _ := guarded(64)
	for _, c := range []struct {
		name string
		w    []uint64
	}{
		{"short", Words[uint64](b[:15], 2)},
		{"misaligned", Words[uint64](b[1:], 2)},
		{"none", Words[uint64](b, 0)},
		{"negative", Words[uint64](b, -1)},
		{"nil", Words[uint64](nil, 1)},
	} {
		if c.w != nil {
			t.Errorf("%s: got a view of %d words", c.name, len(c.w))
		}
	}
	if w := Words[uint32](b[2:], 1); w != nil {
		t.Errorf("misaligned uint32: got a view of %d words", len(w))
	}
}

// TestLoad64 agrees with encoding/binary at every offset in range.
func TestLoad64(t *testing.T) {
	b := make([]byte, 40)
	for i := range b {
		b[i] = byte(i*37 + 1)
	}
	for off := 0; off+8 <= len(b); off++ {
		if got, want := Load64(b, off), binary.LittleEndian.Uint64(b[off:]); got != want {
			t.Fatalf("Load64 at %d: %#x, want %#x", off, got, want)
		}
	}
}

// TestRecap gives back the allocation with capacity exactly n: appending
// to it reallocates rather than writing past n.
func TestRecap(t *testing.T) {
	all := bytes.Repeat([]byte{guard}, 128)
	full, ok := Recap(all[:10:10], 64)
	if ok != Fast {
		t.Fatalf("Recap past cap: ok %v, fast build %v", ok, Fast)
	}
	if ok {
		if len(full) != 64 || cap(full) != 64 || Addr(full) != Addr(all) {
			t.Fatalf("Recap: len %d cap %d, same memory %v", len(full), cap(full), Addr(full) == Addr(all))
		}
		clear(full)
		full = append(full, 1)
		untouched(t, "append after Recap", all[64:])
	}
	within, ok := Recap(all[:10], 32)
	if !ok || len(within) != 32 || cap(within) != 32 || Addr(within) != Addr(all) {
		t.Fatalf("Recap within cap: ok %v len %d cap %d", ok, len(within), cap(within))
	}
}

// TestStringBytes: the conversions keep the bytes, empty ones included.
func TestStringBytes(t *testing.T) {
	for _, s := range []string{"", "a", "quiver\x00\xff"} {
		if got := String([]byte(s)); got != s {
			t.Errorf("String(%q) = %q", s, got)
		}
		if got := Bytes(s); string(got) != s || len(got) != len(s) {
			t.Errorf("Bytes(%q) = %q", s, got)
		}
	}
	if String(nil) != "" {
		t.Error("String(nil) is not empty")
	}
}

func TestSizeof(t *testing.T) {
	for _, c := range []struct{ got, want int }{
		{Sizeof[int32](), 4}, {Sizeof[int64](), 8}, {Sizeof[[16]byte](), 16}, {Sizeof[struct{ a, b uint64 }](), 16},
	} {
		if c.got != c.want {
			t.Errorf("Sizeof: %d, want %d", c.got, c.want)
		}
	}
}
