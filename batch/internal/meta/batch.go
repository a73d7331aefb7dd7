package meta

import (
	"strconv"

	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/quiverdb/quiver/internal/fb"
)

// The RecordBatch table (also the data of a DictionaryBatch):
//
//	RecordBatch { length: long; nodes: [FieldNode]; buffers: [Buffer];
//	              compression: BodyCompression; variadicBufferCounts: [long]; }
//	BodyCompression { codec: CompressionType (byte); method: BUFFER (byte); }
//	DictionaryBatch { id: long; data: RecordBatch; isDelta: bool; }

// String returns the format's name of the codec.
func (c Compression) String() string {
	switch c {
	case CompressionNone:
		return "none"
	case CompressionLZ4:
		return "LZ4_FRAME"
	case CompressionZstd:
		return "ZSTD"
	}
	return "Compression(" + strconv.Itoa(int(c)) + ")"
}

// recordBatch decodes a RecordBatch table. Buffers must lie within the
// message body of bodyLen bytes.
func (d *decoder) recordBatch(t fb.Table, bodyLen int64) (*RecordBatch, error) {
	if !t.Exists() {
		return nil, corruptf("missing RecordBatch table")
	}
	rb := &RecordBatch{Length: t.Int64(recordLength, 0), Compression: CompressionNone}
	nodes := t.Vector(recordNodes, fieldNodeSize)
	bufs := t.Vector(recordBuffers, bufferSize)
	counts := t.Vector(recordVariadicCounts, 8)
	comp := t.Table(recordCompression)
	if err := readErr(&d.r, "RecordBatch"); err != nil {
		return nil, err
	}
	switch {
	case rb.Length < 0:
		return nil, corruptf("RecordBatch length %d", rb.Length)
	case nodes.Len() > d.lim.MaxNodes:
		return nil, corruptf("RecordBatch has %d field nodes, limit %d", nodes.Len(), d.lim.MaxNodes)
	case bufs.Len() > d.lim.MaxBuffers:
		return nil, corruptf("RecordBatch has %d buffers, limit %d", bufs.Len(), d.lim.MaxBuffers)
	case counts.Len() > d.lim.MaxNodes:
		return nil, corruptf("RecordBatch has %d variadic buffer counts, limit %d", counts.Len(), d.lim.MaxNodes)
	}
	if comp.Exists() {
		var err error
		if rb.Compression, err = d.compression(comp); err != nil {
			return nil, err
		}
	}
	var err error
	if rb.Nodes, err = decodeNodes(nodes); err != nil {
		return nil, err
	}
	if rb.Buffers, err = decodeBuffers(bufs, bodyLen); err != nil {
		return nil, err
	}
	if rb.VariadicCounts, err = d.variadicCounts(counts); err != nil {
		return nil, err
	}
	return rb, nil
}

func decodeNodes(v fb.Vector) ([]FieldNode, error) {
	if v.Len() == 0 {
		return nil, nil
	}
	nodes := make([]FieldNode, v.Len())
	for i := range nodes {
		s := v.Struct(i)
		n := FieldNode{Length: s.Int64(fieldNodeLength), NullCount: s.Int64(fieldNodeNullCount)}
		if n.Length < 0 || n.NullCount < 0 || n.NullCount > n.Length {
			return nil, corruptf("field node %d: length %d, null count %d", i, n.Length, n.NullCount)
		}
		nodes[i] = n
	}
	return nodes, nil
}

func decodeBuffers(v fb.Vector, bodyLen int64) ([]Buffer, error) {
	if v.Len() == 0 {
		return nil, nil
	}
	bufs := make([]Buffer, v.Len())
	for i := range bufs {
		s := v.Struct(i)
		b := Buffer{Offset: s.Int64(bufferOffset), Length: s.Int64(bufferLength)}
		if b.Offset < 0 || b.Length < 0 || b.Offset > bodyLen || b.Length > bodyLen-b.Offset {
			return nil, corruptf("buffer %d: offset %d, length %d outside body of %d bytes", i, b.Offset, b.Length, bodyLen)
		}
		bufs[i] = b
	}
	return bufs, nil
}

func (d *decoder) variadicCounts(v fb.Vector) ([]int64, error) {
	if v.Len() == 0 {
		return nil, nil
	}
	counts := make([]int64, v.Len())
	for i := range counts {
		c := v.Int64(i)
		if c < 0 || c > int64(d.lim.MaxBuffers) {
			return nil, corruptf("variadic buffer count %d: %d (limit %d)", i, c, d.lim.MaxBuffers)
		}
		counts[i] = c
	}
	return counts, nil
}

func (d *decoder) compression(t fb.Table) (Compression, error) {
	codec, method := t.Int8(bodyCompressionCodec, 0), t.Int8(bodyCompressionMethod, compressionMethodBuffer)
	if err := readErr(&d.r, "BodyCompression"); err != nil {
		return 0, err
	}
	switch {
	case method != compressionMethodBuffer:
		return 0, unsupportedf("body compression method %d", method)
	case codec != int8(CompressionLZ4) && codec != int8(CompressionZstd):
		return 0, unsupportedf("body compression codec %d", codec)
	}
	return Compression(codec), nil
}

// dictionaryBatch decodes a DictionaryBatch table.
func (d *decoder) dictionaryBatch(t fb.Table, bodyLen int64) (*DictionaryBatch, error) {
	if !t.Exists() {
		return nil, corruptf("missing DictionaryBatch table")
	}
	db := &DictionaryBatch{ID: t.Int64(dictBatchID, 0), IsDelta: t.Bool(dictBatchIsDelta, false)}
	data := t.Table(dictBatchData)
	if err := readErr(&d.r, "DictionaryBatch"); err != nil {
		return nil, err
	}
	if db.ID < 0 {
		return nil, corruptf("DictionaryBatch id %d", db.ID)
	}
	rb, err := d.recordBatch(data, bodyLen)
	if err != nil {
		return nil, err
	}
	db.Data = *rb
	return db, nil
}

// recordBatch writes a RecordBatch table.
func (e *Encoder) recordBatch(rb *RecordBatch) flatbuffers.UOffsetT {
	e.b.StartVector(fieldNodeSize, len(rb.Nodes), 8)
	for i := len(rb.Nodes) - 1; i >= 0; i-- {
		e.b.Prep(8, fieldNodeSize)
		e.b.PrependInt64(rb.Nodes[i].NullCount)
		e.b.PrependInt64(rb.Nodes[i].Length)
	}
	nodes := e.b.EndVector(len(rb.Nodes))
	e.b.StartVector(bufferSize, len(rb.Buffers), 8)
	for i := len(rb.Buffers) - 1; i >= 0; i-- {
		e.b.Prep(8, bufferSize)
		e.b.PrependInt64(rb.Buffers[i].Length)
		e.b.PrependInt64(rb.Buffers[i].Offset)
	}
	bufs := e.b.EndVector(len(rb.Buffers))
	var counts flatbuffers.UOffsetT
	if len(rb.VariadicCounts) > 0 {
		e.b.StartVector(8, len(rb.VariadicCounts), 8)
		for i := len(rb.VariadicCounts) - 1; i >= 0; i-- {
			e.b.PrependInt64(rb.VariadicCounts[i])
		}
		counts = e.b.EndVector(len(rb.VariadicCounts))
	}
	var comp flatbuffers.UOffsetT
	switch rb.Compression {
	case CompressionNone:
	case CompressionLZ4, CompressionZstd:
		e.b.StartObject(bodyCompressionSlots)
		e.b.PrependInt8Slot(bodyCompressionCodec, int8(rb.Compression), -1)
		e.b.PrependInt8Slot(bodyCompressionMethod, compressionMethodBuffer, -1)
		comp = e.b.EndObject()
	default:
		panic("meta: RecordBatch with " + rb.Compression.String())
	}
	e.b.StartObject(recordSlots)
	e.b.PrependInt64Slot(recordLength, rb.Length, 0)
	e.b.PrependUOffsetTSlot(recordNodes, nodes, 0)
	e.b.PrependUOffsetTSlot(recordBuffers, bufs, 0)
	e.b.PrependUOffsetTSlot(recordCompression, comp, 0)
	e.b.PrependUOffsetTSlot(recordVariadicCounts, counts, 0)
	return e.b.EndObject()
}

// dictionaryBatch writes a DictionaryBatch table.
func (e *Encoder) dictionaryBatch(db *DictionaryBatch) flatbuffers.UOffsetT {
	data := e.recordBatch(&db.Data)
	e.b.StartObject(dictBatchSlots)
	e.b.PrependInt64Slot(dictBatchID, db.ID, 0)
	e.b.PrependUOffsetTSlot(dictBatchData, data, 0)
	e.b.PrependBoolSlot(dictBatchIsDelta, db.IsDelta, false)
	return e.b.EndObject()
}
