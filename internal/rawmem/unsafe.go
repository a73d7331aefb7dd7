//go:build !purego

package rawmem

import (
	"encoding/binary"
	"unsafe"
)

// Fast reports whether these are the unsafe fast paths (false with the
// purego build tag).
const Fast = true

// String returns b's bytes as a string without copying them: b must not
// change while the string is in use.
func String(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// Bytes returns s's bytes without copying them: the caller must not write
// to them.
func Bytes(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// Words returns the first n words of b as a []T over the same memory, or
// nil when it cannot: n is 0, b holds fewer than n words, b's first byte is
// not aligned for T, or the machine is not little-endian (the byte order
// of every buffer quiver writes). The result never reaches past len(b).
func Words[T uint32 | uint64](b []byte, n int) []T {
	size := int(unsafe.Sizeof(T(0)))
	p := unsafe.SliceData(b)
	if !littleEndian || n <= 0 || len(b)/size < n || uintptr(unsafe.Pointer(p))%uintptr(size) != 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(p)), n)
}

// Load64 returns the little-endian word at b[off:off+8] without checking
// that those bytes are in b: the caller has checked that off+8 <= len(b).
func Load64(b []byte, off int) uint64 {
	return binary.LittleEndian.Uint64(unsafe.Slice((*byte)(unsafe.Add(unsafe.Pointer(unsafe.SliceData(b)), off)), 8))
}

// Addr returns the address of b's first element, as a number: for a
// buffer's identity and alignment, never to be made a pointer again.
func Addr(b []byte) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(b))) }

// Recap returns the n bytes from b's first, also when n passes cap(b): the
// caller knows that b starts an allocation of at least n bytes (it made
// it). ok is false when it cannot (purego, n > cap(b)).
func Recap(b []byte, n int) (full []byte, ok bool) { return unsafe.Slice(unsafe.SliceData(b), n), true }

// littleEndian is true on the machines whose memory order is the buffers'
// byte order: only there may Words view bytes as words.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// Sizeof returns the size of a T in bytes.
func Sizeof[T any]() int {
	var z T
	return int(unsafe.Sizeof(z))
}
