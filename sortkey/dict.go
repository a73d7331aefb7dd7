package sortkey

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// dictColumn encodes a dictionary column as its values: the dictionary's
// keys are encoded once per batch, and each row copies its value's key.
type dictColumn struct {
	values column
	enc    *Encoder // of the one value field
	keys   Rows     // of the current batch's dictionary
}

// prepare encodes the dictionary of col.
func (c *dictColumn) prepare(col *array.Dictionary) error {
	if c.enc == nil {
		enc, err := NewEncoder([]SortField{c.values.f})
		if err != nil {
			return err
		}
		c.enc = enc
	}
	c.keys.Reset()
	return c.enc.Encode(&c.keys, []arrow.Array{col.Dictionary()})
}

// index returns row i's dictionary index, or -1 for a NULL index.
func index(col *array.Dictionary, i int) int {
	if col.IsNull(i) {
		return -1
	}
	return col.GetValueIndex(i)
}

// addLengths adds each row's key length; an index past the dictionary
// fails with ErrInput (write then trusts the indices).
func (c *dictColumn) addLengths(col *array.Dictionary, null []byte, lens []uint32) error {
	n := c.keys.Len()
	for i := range lens {
		k := index(col, i)
		switch {
		case k < 0:
			lens[i] += uint32(len(null))
		case k < n:
			lens[i] += uint32(len(c.keys.Row(k)))
		default:
			return fmt.Errorf("%w: row %d has dictionary index %d, the dictionary has %d values", ErrInput, i, k, n)
		}
	}
	return nil
}

func (c *dictColumn) write(col *array.Dictionary, null []byte, buf []byte, cur []uint32) {
	for i, o := range cur {
		key := null
		if k := index(col, i); k >= 0 {
			key = c.keys.Row(k)
		}
		cur[i] = o + uint32(copy(buf[o:], key))
	}
}
