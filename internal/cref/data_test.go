//go:build cref

package cref

import (
	"encoding/binary"
	"math/rand/v2"
)

// Inputs shared by the interop tests, from a fixed seed.

// seqInt64 is n bytes of little-endian int64s counting from 0.
func seqInt64(n int) []byte {
	b := make([]byte, n/8*8)
	for i := range len(b) / 8 {
		binary.LittleEndian.PutUint64(b[8*i:], uint64(i))
	}
	return b
}

// text is n bytes of words from a 5,000-word vocabulary, as in
// reference/codecs.md's str-values.
func text(n int) []byte {
	r := rand.New(rand.NewPCG(42, 1))
	vocab := make([][]byte, 5000)
	for i := range vocab {
		w := make([]byte, 3+r.IntN(8))
		for j := range w {
			w[j] = byte('a' + r.IntN(26))
		}
		vocab[i] = w
	}
	b := make([]byte, 0, n+16)
	for len(b) < n {
		b = append(append(b, vocab[r.IntN(len(vocab))]...), ' ')
	}
	return b[:n]
}

// random is n incompressible bytes: LZ4 stores its blocks raw.
func random(n int) []byte {
	r := rand.New(rand.NewPCG(7, 7))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

type input struct {
	name string
	data []byte
}

// inputs cover empty, tiny, one block, several 4 MiB blocks, and raw
// (stored) blocks.
func inputs() []input {
	return []input{
		{"empty", nil},
		{"tiny", []byte("hello, hello, hello")},
		{"seq-1MiB", seqInt64(1 << 20)},
		{"text-1MiB", text(1 << 20)},
		{"random-300KiB", random(300 << 10)},
		{"text-9MiB", text(9 << 20)}, // three 4 MiB blocks
	}
}
