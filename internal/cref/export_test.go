//go:build cref

package cref

// The external benchmark package shares the interop tests' inputs.
var (
	SeqInt64 = seqInt64
	Text     = text
)
