package agg

import (
	"context"
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/internal/take"
)

// A key column may arrive dictionary-encoded: Add takes, for a key of type
// V, a dictionary<integer, V> as well (a column the cache keeps as
// dictionaries, handed over without decoding). When it is the only key,
// the batch is grouped by its codes:
//
//	codes    [2 0 2 2 ∅ 0 2]     dictionary ["b" "a" "c"]
//	used     2→entry 0, 0→entry 1; a NULL row
//	entries  ["c" "b"] and a NULL: grouped as values, 3 rows → groups g0 g1 g2
//	rows     [g0 g1 g0 g0 g2 g1 g0]
//
// so the hash table sees each value the batch uses once, however many rows
// hold it, and the rows are never hashed or compared one by one. Two codes
// of one value (a dictionary may repeat a value) land in one group, since
// the entries are grouped by value. With more keys, the dictionary is
// decoded first (decodeKeys), as is a dictionary larger than a few times
// the batch, whose codes would cost more to number than the rows to hash.

// dictScratch is groupDictionary's per-batch scratch.
type dictScratch struct {
	slot  []uint32 // per code: 1 + its entry, 0 for a code the batch does not use
	used  []int32  // per entry: its code
	egids []uint32 // per entry: its group
}

// maxDictPerRow bounds the dictionary groupDictionary takes: at most this
// many values per row of the batch.
const maxDictPerRow = 4

// decodeKeys returns keys with every dictionary decoded to its values (a
// NULL code is a NULL value), and whether it made new arrays the caller
// must release.
func decodeKeys(mem memory.Allocator, keys []arrow.Array) ([]arrow.Array, bool, error) {
	var out []arrow.Array
	for i, k := range keys {
		d, ok := k.(*array.Dictionary)
		if !ok {
			continue
		}
		if out == nil {
			out = slices.Clone(keys)
			for j := range out {
				out[j].Retain()
			}
		}
		v, err := compute.TakeArray(compute.WithAllocator(context.Background(), mem), d.Dictionary(), d.Indices())
		if err != nil {
			for _, a := range out {
				a.Release()
			}
			return nil, false, fmt.Errorf("%w: decoding dictionary key %d: %v", ErrInput, i, err)
		}
		out[i].Release()
		out[i] = v
	}
	if out == nil {
		return keys, false, nil
	}
	return out, true, nil
}

// groupDictionary is group's path for a lone dictionary-encoded key.
func (h *HashAggregator) groupDictionary(n int, d *array.Dictionary) error {
	switch a := d.Indices().(type) {
	case *array.Int8:
		return groupCodes(h, d, a.Int8Values(), n)
	case *array.Int16:
		return groupCodes(h, d, a.Int16Values(), n)
	case *array.Int32:
		return groupCodes(h, d, a.Int32Values(), n)
	case *array.Int64:
		return groupCodes(h, d, a.Int64Values(), n)
	case *array.Uint8:
		return groupCodes(h, d, a.Uint8Values(), n)
	case *array.Uint16:
		return groupCodes(h, d, a.Uint16Values(), n)
	case *array.Uint32:
		return groupCodes(h, d, a.Uint32Values(), n)
	case *array.Uint64:
		return groupCodes(h, d, a.Uint64Values(), n)
	}
	return fmt.Errorf("%w: dictionary indices of type %v", ErrUnsupported, d.Indices().DataType())
}

type code interface {
	int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64
}

// groupCodes groups the rows of d, whose codes are codes[:n].
func groupCodes[T code](h *HashAggregator, d *array.Dictionary, codes []T, n int) error {
	codes = codes[:n]
	dict := d.Dictionary()
	if h.dict == nil {
		h.dict = &dictScratch{}
	}
	ds := h.dict
	var err error
	if ds.slot, err = scratch(&h.acct, ds.slot, dict.Len()); err != nil {
		return err
	}
	clear(ds.slot)
	if ds.used, err = scratch(&h.acct, ds.used, dict.Len()); err != nil {
		return err
	}
	nu := 0
	idx := d.Indices()
	var bits []byte // nil: no NULL row
	off := idx.Data().Offset()
	if idx.NullN() > 0 {
		bits = idx.NullBitmapBytes()
	}
	// Number the codes the batch uses, checking each against the
	// dictionary before anything reads through it.
	size := uint64(len(ds.slot))
	hasNull := false
	for r, c := range codes {
		if bits != nil && !bitutil.BitIsSet(bits, off+r) {
			hasNull = true
			continue
		}
		if uint64(c) >= size { // a negative code wraps past any size
			return fmt.Errorf("%w: dictionary code %d at row %d, past its %d values", ErrInput, c, r, size)
		}
		if ds.slot[c] == 0 {
			ds.used[nu] = int32(c)
			nu++
			ds.slot[c] = uint32(nu)
		}
	}
	used := ds.used[:nu]
	// Group the used values, then a NULL if a row is NULL.
	entries := take.Rows(h.mem, dict, used)
	if entries == nil {
		return fmt.Errorf("%w: no row copy for a dictionary of %v", ErrUnsupported, dict.DataType())
	}
	err = h.group(nu, []arrow.Array{entries})
	entries.Release()
	if err != nil {
		return err
	}
	if ds.egids, err = scratch(&h.acct, ds.egids, nu); err != nil {
		return err
	}
	copy(ds.egids, h.gids[:nu])
	var nullGid uint32
	if hasNull {
		nulls := array.MakeArrayOfNull(h.mem, dict.DataType(), 1)
		err = h.group(1, []arrow.Array{nulls})
		nulls.Release()
		if err != nil {
			return err
		}
		nullGid = h.gids[0]
	}
	// Every row takes its code's group.
	if h.gids, err = scratch(&h.acct, h.gids, n); err != nil {
		return err
	}
	if err := h.growIota(n); err != nil {
		return err
	}
	gids := h.gids[:n]
	for r, c := range codes {
		if bits != nil && !bitutil.BitIsSet(bits, off+r) {
			gids[r] = nullGid
			continue
		}
		gids[r] = ds.egids[ds.slot[c]-1]
	}
	return nil
}
