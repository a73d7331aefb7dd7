package store

import (
	"errors"
	"math"
	"testing"

	"github.com/quiverdb/quiver/cache"
)

// TestCheckBatchRefusesWrappingSizes: chunk lengths whose sum wraps
// around int64 to a range inside the file were accepted, and the loader
// then sliced past the small buffer the wrapped sum sized.
func TestCheckBatchRefusesWrappingSizes(t *testing.T) {
	m := &manifest{
		files: []fileRef{{seq: 1, size: 1000}},
		locs:  []batchLoc{{file: 0, offset: int64(chunkHeader)}},
		img:   cache.Image{Batches: []cache.BatchImage{{Sizes: []int64{math.MaxInt64, math.MaxInt64 - 50, 100}}}},
	}
	if err := m.checkBatch(0); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("wrapping sizes: %v, want ErrCorrupt", err)
	}
	m.img.Batches[0].Sizes = []int64{100, 200}
	if err := m.checkBatch(0); err != nil {
		t.Fatalf("sizes inside the file: %v", err)
	}
}
