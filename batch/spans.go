package batch

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/quiverdb/quiver/batch/internal/meta"
)

// span is the range of field nodes, buffers and variadic counts one
// top-level column takes in a RecordBatch.
type span struct {
	node, nodeEnd int
	buf, bufEnd   int
	vari, variEnd int
}

// cursor walks nodes, buffers and variadic counts in IPC order.
type cursor struct {
	node, buf, vari int
}

// columnSpans checks that the batch's nodes, buffers and variadic counts
// are exactly what the types need and returns each column's span. It reads
// only metadata, so projection can skip unselected columns cheaply.
func columnSpans(types []arrow.DataType, rb *meta.RecordBatch, depthLimit int) ([]span, error) {
	spans := make([]span, len(types))
	var c cursor
	for i, dt := range types {
		start := c
		if err := c.skip(dt, rb, 0, depthLimit); err != nil {
			return nil, err
		}
		spans[i] = span{start.node, c.node, start.buf, c.buf, start.vari, c.vari}
	}
	if c.node != len(rb.Nodes) || c.buf != len(rb.Buffers) || c.vari != len(rb.VariadicCounts) {
		return nil, corruptf("batch has %d field nodes, %d buffers and %d variadic counts; schema needs %d, %d and %d",
			len(rb.Nodes), len(rb.Buffers), len(rb.VariadicCounts), c.node, c.buf, c.vari)
	}
	return spans, nil
}

// skip advances c past one field of type dt and its children.
func (c *cursor) skip(dt arrow.DataType, rb *meta.RecordBatch, depth, limit int) error {
	if depth > limit {
		return limitf("type nesting deeper than %d", limit)
	}
	lay, width := layoutOf(dt)
	if width < 0 {
		return unsupportedType(dt)
	}
	if c.node >= len(rb.Nodes) {
		return corruptf("batch has %d field nodes, schema needs more", len(rb.Nodes))
	}
	c.node++
	n := lay.bufferCount()
	if lay == layoutView {
		if c.vari >= len(rb.VariadicCounts) {
			return corruptf("batch has %d variadic buffer counts, schema needs more", len(rb.VariadicCounts))
		}
		v := rb.VariadicCounts[c.vari]
		if v < 0 || v > int64(len(rb.Buffers)) {
			return corruptf("variadic buffer count %d with %d buffers in the batch", v, len(rb.Buffers))
		}
		c.vari++
		n += int(v)
	}
	if c.buf+n > len(rb.Buffers) {
		return corruptf("batch has %d buffers, schema needs more", len(rb.Buffers))
	}
	c.buf += n
	for _, ct := range childTypes(dt) {
		if err := c.skip(ct, rb, depth+1, limit); err != nil {
			return err
		}
	}
	return nil
}
