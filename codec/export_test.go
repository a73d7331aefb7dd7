package codec

import "github.com/pierrec/lz4/v4"

// Internals the external tests and benchmarks use.
var (
	XXH32 = xxh32

	// LZ4CCompat is the LZ4 codec with pierrec's C-compatible compressor,
	// kept only to benchmark the choice lz4Shared makes.
	LZ4CCompat Codec = newLZ4Codec(func() blockCompressor { return new(lz4.CompressorCCompat) })
)
