//go:build purego

package rawmem

import (
	"encoding/binary"
	"reflect"
)

// Fast reports whether these are the unsafe fast paths (false with the
// purego build tag).
const Fast = false

// String returns a copy of b as a string.
func String(b []byte) string { return string(b) }

// Bytes returns a copy of s's bytes.
func Bytes(s string) []byte { return []byte(s) }

// Words returns nil: plain Go cannot view bytes as words; callers take
// their byte-by-byte path.
func Words[T uint32 | uint64](b []byte, n int) []T { return nil }

// Load64 returns the little-endian word at b[off:off+8], bounds-checked: a
// caller whose range check is wrong panics here.
func Load64(b []byte, off int) uint64 { return binary.LittleEndian.Uint64(b[off : off+8]) }

// Addr returns the address of b's first element, as a number.
func Addr(b []byte) uintptr { return reflect.ValueOf(b).Pointer() }

// Recap returns b[:n:n] when n fits in cap(b); past it plain Go cannot
// reach, and ok is false.
func Recap(b []byte, n int) (full []byte, ok bool) {
	if n > cap(b) {
		return nil, false
	}
	return b[:n:n], true
}

// Sizeof returns the size of a T in bytes.
func Sizeof[T any]() int { return int(reflect.TypeFor[T]().Size()) }
