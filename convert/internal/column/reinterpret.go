package column

import "github.com/apache/arrow-go/v18/arrow"

// reinterpret views b as a slice of T, with capacity as well as length
// len(b)/size: a slice expression on the result can never reach the bytes
// past len(b) (arrow.GetData alone keeps b's capacity).
func reinterpret[T arrow.FixedWidthType](b []byte) []T {
	return arrow.GetData[T](b[:len(b):len(b)])
}
