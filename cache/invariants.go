package cache

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/quiverdb/quiver/internal/arrowsize"
	"github.com/quiverdb/quiver/internal/invariants"
)

// checkChunks, in invariants builds, decodes every chunk of an entry just
// encoded and panics unless it gives back the column it was made from,
// with the decoded size recorded. The encoder's re-aligning, rebasing,
// null filling, encodings and compression are the fast paths this
// cross-checks.
func checkChunks(dec *chunkDecoder, cols []arrow.Array, e *entry) {
	if !invariants.Enabled {
		return
	}
	for i, col := range cols {
		got, err := dec.decode(col.DataType(), e.chunks[i], e.decoded[i])
		if err != nil {
			panic(fmt.Sprintf("cache invariants: column %d: cannot decode own chunk: %v", i, err))
		}
		same, size := sameArray(col, got), arrowsize.Data(got.Data())
		got.Release()
		if !same {
			panic(fmt.Sprintf("cache invariants: column %d (%s) decodes to other values", i, col.DataType()))
		}
		if size != e.decoded[i] {
			panic(fmt.Sprintf("cache invariants: column %d decodes to %d bytes, recorded %d", i, size, e.decoded[i]))
		}
	}
}

// sameArray is array.Equal except that floats compare by their bits, so
// NaN equals NaN (the cache stores bits; Equal says NaN != NaN).
func sameArray(a, b arrow.Array) bool {
	if array.Equal(a, b) {
		return true
	}
	f := formOf(a.DataType())
	switch a.DataType().ID() {
	case arrow.FLOAT16, arrow.FLOAT32, arrow.FLOAT64:
	default:
		return false
	}
	if !arrow.TypeEqual(a.DataType(), b.DataType()) || a.Len() != b.Len() || a.NullN() != b.NullN() {
		return false
	}
	av, bv := a.Data().Buffers()[1].Bytes(), b.Data().Buffers()[1].Bytes()
	ao, bo, w := a.Data().Offset()*f.width, b.Data().Offset()*f.width, f.width
	for i := range a.Len() {
		if a.IsNull(i) != b.IsNull(i) {
			return false
		}
		if a.IsValid(i) && string(av[ao+i*w:ao+i*w+w]) != string(bv[bo+i*w:bo+i*w+w]) {
			return false
		}
	}
	return true
}
