package shuffle

import "math"

// Block sizes travel as one byte each, Spark's MapStatus.compressSize:
// b = ceil(log_1.1(size)), capped at 255, with 0 for an empty block and
// 1 for a block of one byte, so a non-empty block never reads back as 0
// (reducers skip blocks of size 0). DecompressSize(b) = floor(1.1^b) is
// never below the size (b rounds up) and at most 10% above it, up to
// 1.1^255 ≈ 35 GB; larger blocks read back as 35 GB.

const logBase = 1.1

// CompressSize returns the one-byte form of a block size (Spark's
// MapStatus.compressSize). Negative sizes count as empty.
func CompressSize(size int64) byte {
	switch {
	case size <= 0:
		return 0
	case size == 1:
		return 1
	}
	b := math.Ceil(math.Log(float64(size)) / math.Log(logBase))
	if b >= 255 {
		return 255
	}
	return byte(b)
}

// DecompressSize returns the size a one-byte form stands for (Spark's
// MapStatus.decompressSize): 0 for 0, floor(1.1^b) otherwise.
func DecompressSize(b byte) int64 { return decompressTable[b] }

var decompressTable = func() (t [256]int64) {
	for b := 1; b < 256; b++ {
		t[b] = int64(math.Pow(logBase, float64(b)))
	}
	return t
}()
