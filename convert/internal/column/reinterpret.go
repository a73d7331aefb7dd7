package column

import "unsafe"

// reinterpret views b as a slice of T: the one use of unsafe outside
// arrow's own helpers, for value shapes (byte arrays of 16 and 32) that
// arrow.GetData does not accept.
func reinterpret[T any](b []byte) []T {
	var z T
	size := int(unsafe.Sizeof(z))
	if len(b) < size {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/size)
}
