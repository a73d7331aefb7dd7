package meta

import (
	flatbuffers "github.com/google/flatbuffers/go"

	"github.com/quiverdb/quiver/internal/fb"
)

// The Footer table of the IPC file format (File.fbs):
//
//	Footer { version: MetadataVersion (short); schema: Schema;
//	         dictionaries: [Block]; recordBatches: [Block];
//	         custom_metadata: [KeyValue]; }
//	struct Block { offset: long; metaDataLength: int; (pad 4) bodyLength: long; }

// AppendFooter appends the Footer flatbuffer of f to dst (version V5,
// whatever f.Version says) and returns the extended slice. The caller
// writes the footer length and the magic after it.
func (e *Encoder) AppendFooter(dst []byte, f *Footer) ([]byte, error) {
	e.reset()
	schema, err := e.schema(f.Schema)
	if err != nil {
		return dst, err
	}
	dicts := e.blocks(f.Dictionaries)
	recs := e.blocks(f.Records)
	md := e.metadata(f.Metadata, nil)
	e.b.StartObject(footerSlots)
	e.b.PrependUOffsetTSlot(footerSchema, schema, 0)
	e.b.PrependUOffsetTSlot(footerDictionaries, dicts, 0)
	e.b.PrependUOffsetTSlot(footerRecordBatches, recs, 0)
	e.b.PrependUOffsetTSlot(footerCustomMetadata, md, 0)
	e.b.PrependInt16Slot(footerVersion, MetadataV5, -1)
	return e.finish(dst, e.b.EndObject()), nil
}

func (e *Encoder) blocks(bs []Block) flatbuffers.UOffsetT {
	e.b.StartVector(blockSize, len(bs), 8)
	for i := len(bs) - 1; i >= 0; i-- {
		e.b.Prep(8, blockSize)
		e.b.PrependInt64(bs[i].BodyLength)
		e.b.Pad(4)
		e.b.PrependInt32(bs[i].MetaDataLength)
		e.b.PrependInt64(bs[i].Offset)
	}
	return e.b.EndVector(len(bs))
}

// DecodeFooter decodes a Footer flatbuffer (the bytes before the footer
// length and the trailing magic). Errors and limits are as for
// DecodeMessage; each of the two Block vectors may hold up to
// lim.MaxNodes blocks. Blocks are checked for negative or overflowing
// values only: the caller checks them against the file's size.
func DecodeFooter(buf []byte, lim Limits) (*Footer, error) {
	d := newDecoder(buf, lim)
	t := d.r.Root()
	f := &Footer{Version: t.Int16(footerVersion, 0)}
	schema := t.Table(footerSchema)
	dicts := t.Vector(footerDictionaries, blockSize)
	recs := t.Vector(footerRecordBatches, blockSize)
	if err := readErr(&d.r, "Footer"); err != nil {
		return nil, err
	}
	if err := checkVersion(f.Version); err != nil {
		return nil, err
	}
	var err error
	if f.Schema, err = d.schema(schema); err != nil {
		return nil, err
	}
	if f.Dictionaries, err = d.blocks(dicts, "dictionaries"); err != nil {
		return nil, err
	}
	if f.Records, err = d.blocks(recs, "recordBatches"); err != nil {
		return nil, err
	}
	if f.Metadata, err = d.metadata(t, footerCustomMetadata, "Footer"); err != nil {
		return nil, err
	}
	return f, nil
}

func (d *decoder) blocks(v fb.Vector, what string) ([]Block, error) {
	if v.Len() == 0 {
		return nil, nil
	}
	if v.Len() > d.lim.MaxNodes {
		return nil, corruptf("Footer %s: %d blocks, limit %d", what, v.Len(), d.lim.MaxNodes)
	}
	bs := make([]Block, v.Len())
	for i := range bs {
		s := v.Struct(i)
		b := Block{Offset: s.Int64(blockOffset), MetaDataLength: s.Int32(blockMetaDataLength), BodyLength: s.Int64(blockBodyLength)}
		if b.Offset < 0 || b.MetaDataLength < 0 || b.BodyLength < 0 ||
			b.BodyLength > 1<<62 || b.Offset > 1<<62-b.BodyLength-int64(b.MetaDataLength) {
			return nil, corruptf("Footer %s block %d: offset %d, metadata %d, body %d", what, i, b.Offset, b.MetaDataLength, b.BodyLength)
		}
		bs[i] = b
	}
	return bs, nil
}
