package colenc

import (
	"encoding/binary"
	"unsafe"
)

// The decoders' output loops write one value per iteration; through a
// []byte that is a slice header update and a bounds check per value, about
// half of their time in profiles. When the output is aligned for the value
// type and the machine is little-endian (the buffers' byte order), they
// write through a typed view of the same memory instead.

var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// view64 returns b as n uint64 values, or nil when it cannot.
func view64(b []byte, n int) []uint64 {
	if !littleEndian || n == 0 || len(b) < 8*n || uintptr(unsafe.Pointer(unsafe.SliceData(b)))%8 != 0 {
		return nil
	}
	return unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(b))), n)
}

// view32 returns b as n uint32 values, or nil when it cannot.
func view32(b []byte, n int) []uint32 {
	if !littleEndian || n == 0 || len(b) < 4*n || uintptr(unsafe.Pointer(unsafe.SliceData(b)))%4 != 0 {
		return nil
	}
	return unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(b))), n)
}
