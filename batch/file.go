package batch

import (
	"encoding/binary"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/batch/internal/meta"
)

// fileMagic opens and closes an Arrow IPC file.
var fileMagic = []byte("ARROW1")

// FileWriter writes records as an Arrow IPC file: magic, the stream
// messages, the footer that indexes them, footer length, magic.
type FileWriter struct {
	writer
	w       io.Writer
	pos     int64
	dicts   []meta.Block
	records []meta.Block
	scratch []byte
}

// NewFileWriter returns a writer of records of schema to w. The IPC file
// format cannot replace a dictionary; writing a record whose dictionary
// differs from an earlier one's fails with ErrUnsupported.
func NewFileWriter(w io.Writer, schema *arrow.Schema, opts WriteOptions) (*FileWriter, error) {
	enc, err := NewEncoder(schema, opts)
	if err != nil {
		return nil, err
	}
	enc.fileMode = true
	f := &FileWriter{w: w}
	f.writer = writer{enc: enc, what: "file", prelude: f.writeHead}
	return f, nil
}

func (f *FileWriter) writeRaw(b []byte) error {
	n, err := f.w.Write(b)
	f.pos += int64(n)
	return err
}

func (f *FileWriter) writeMessage(m Message) (meta.Block, error) {
	start := f.pos
	n, metaLen, scratch, err := writeMessage(f.w, m, f.scratch)
	f.scratch = scratch
	f.pos += n
	return meta.Block{Offset: start, MetaDataLength: metaLen, BodyLength: int64(len(m.Body))}, err
}

// writeHead writes the magic (padded to 8 bytes) and the schema.
func (f *FileWriter) writeHead() error {
	if err := f.writeRaw(append(fileMagic[:len(fileMagic):len(fileMagic)], 0, 0)); err != nil {
		return err
	}
	_, err := f.writeMessage(f.enc.SchemaMessage())
	return err
}

// Write encodes and writes one record.
func (f *FileWriter) Write(rec arrow.RecordBatch) error {
	return f.encode(rec, func(msgs []Message) error {
		for i, m := range msgs {
			blk, err := f.writeMessage(m)
			if err != nil {
				return err
			}
			if i < len(msgs)-1 {
				f.dicts = append(f.dicts, blk)
			} else {
				f.records = append(f.records, blk)
			}
		}
		return nil
	})
}

// Close writes the end-of-stream marker, the footer and the trailing
// magic. It does not close the underlying writer.
func (f *FileWriter) Close() error {
	return f.close(f.writeTail)
}

// writeTail writes the end-of-stream marker, the footer indexing the
// messages written, its length and the magic.
func (f *FileWriter) writeTail() error {
	footer, err := meta.EncodeFooter(&meta.Footer{
		Version:      meta.MetadataV5,
		Schema:       f.enc.ms,
		Dictionaries: f.dicts,
		Records:      f.records,
	})
	if err != nil {
		return err
	}
	tail := append([]byte(nil), endOfStream...)
	tail = append(tail, footer...)
	tail = binary.LittleEndian.AppendUint32(tail, uint32(len(footer)))
	tail = append(tail, fileMagic...)
	return f.writeRaw(tail)
}

// FileReader reads an Arrow IPC file written by any Arrow implementation,
// treating every byte as untrusted. Record is safe for concurrent use, so
// batches can be decoded in parallel.
type FileReader struct {
	r      io.ReaderAt
	size   int64
	footer *meta.Footer
	dec    *Decoder
	lim    Limits
}

// NewFileReader reads the footer and the dictionaries of the file r of
// size bytes.
func NewFileReader(r io.ReaderAt, size int64, opts ReadOptions) (*FileReader, error) {
	lim := opts.Limits.withDefaults()
	const trailer = 4 + 6
	if size < int64(8+trailer) {
		return nil, corruptf("file of %d bytes is too short for an Arrow IPC file", size)
	}
	var head [6]byte
	if _, err := r.ReadAt(head[:], 0); err != nil {
		return nil, fmt.Errorf("batch: reading file magic: %w", err)
	}
	var tail [trailer]byte
	if _, err := r.ReadAt(tail[:], size-trailer); err != nil {
		return nil, fmt.Errorf("batch: reading file trailer: %w", err)
	}
	if string(head[:]) != string(fileMagic) || string(tail[4:]) != string(fileMagic) {
		return nil, corruptf("not an Arrow IPC file (magic %q ... %q)", head[:], tail[4:])
	}
	footerLen := int64(int32(binary.LittleEndian.Uint32(tail[:4])))
	if footerLen <= 0 || footerLen > size-8-trailer {
		return nil, corruptf("footer length %d in a file of %d bytes", footerLen, size)
	}
	if footerLen > lim.MaxMetadata {
		return nil, limitf("footer length %d exceeds limit %d", footerLen, lim.MaxMetadata)
	}
	buf := make([]byte, footerLen)
	if _, err := r.ReadAt(buf, size-trailer-footerLen); err != nil {
		return nil, fmt.Errorf("batch: reading footer: %w", err)
	}
	f := &FileReader{r: r, size: size, lim: lim}
	footer, err := meta.DecodeFooter(buf, f.lim.meta())
	if err != nil {
		return nil, classify(err)
	}
	f.footer = footer
	if f.dec, err = newDecoderFromMeta(footer.Schema, opts); err != nil {
		return nil, err
	}
	for i, blk := range footer.Dictionaries {
		if _, err := f.readBlock(blk, meta.HeaderDictionaryBatch); err != nil {
			f.dec.Release()
			return nil, fmt.Errorf("dictionary batch %d: %w", i, err)
		}
	}
	return f, nil
}

// Schema returns the schema of the records Record returns (projected).
func (f *FileReader) Schema() *arrow.Schema { return f.dec.Schema() }

// NumRecords is the number of record batches in the file.
func (f *FileReader) NumRecords() int { return len(f.footer.Records) }

// Record decodes record batch i, which the caller must Release.
func (f *FileReader) Record(i int) (arrow.RecordBatch, error) {
	if i < 0 || i >= len(f.footer.Records) {
		return nil, fmt.Errorf("batch: record %d of %d", i, len(f.footer.Records))
	}
	rec, err := f.readBlock(f.footer.Records[i], meta.HeaderRecordBatch)
	if err != nil {
		return nil, fmt.Errorf("record batch %d: %w", i, err)
	}
	return rec, nil
}

// readBlock reads and decodes the message a footer block points at.
func (f *FileReader) readBlock(blk meta.Block, want meta.HeaderType) (arrow.RecordBatch, error) {
	msg, bodyStart, err := f.readBlockMeta(blk, want)
	if err != nil {
		return nil, err
	}
	return f.decodeBody(msg, bodyStart)
}

// readBlockMeta checks a block against the file and reads its metadata.
func (f *FileReader) readBlockMeta(blk meta.Block, want meta.HeaderType) (*meta.Message, int64, error) {
	if blk.Offset < 8 || blk.MetaDataLength < prefixLen || blk.BodyLength < 0 ||
		blk.Offset > f.size || int64(blk.MetaDataLength) > f.size-blk.Offset ||
		blk.BodyLength > f.size-blk.Offset-int64(blk.MetaDataLength) {
		return nil, 0, corruptf("block at %d (metadata %d, body %d bytes) outside the %d-byte file", blk.Offset, blk.MetaDataLength, blk.BodyLength, f.size)
	}
	if int64(blk.MetaDataLength) > f.lim.MaxMetadata {
		return nil, 0, limitf("metadata length %d exceeds limit %d", blk.MetaDataLength, f.lim.MaxMetadata)
	}
	if err := checkBodyLen(blk.BodyLength, f.lim); err != nil {
		return nil, 0, err
	}
	buf := make([]byte, blk.MetaDataLength)
	if _, err := f.r.ReadAt(buf, blk.Offset); err != nil {
		return nil, 0, fmt.Errorf("batch: reading message at %d: %w", blk.Offset, err)
	}
	mb, _, err := splitMetaPrefix(buf, f.lim)
	if err != nil {
		return nil, 0, err
	}
	msg, err := meta.DecodeMessage(mb, f.lim.meta())
	if err != nil {
		return nil, 0, classify(err)
	}
	if msg.Header != want {
		return nil, 0, corruptf("block holds message type %d, footer says %d", msg.Header, want)
	}
	if msg.BodyLength != blk.BodyLength {
		return nil, 0, corruptf("message body length %d, footer says %d", msg.BodyLength, blk.BodyLength)
	}
	return msg, blk.Offset + int64(blk.MetaDataLength), nil
}

// decodeBody reads the part of the body the selected columns need and
// decodes it.
func (f *FileReader) decodeBody(msg *meta.Message, start int64) (arrow.RecordBatch, error) {
	rb := msg.Record
	if msg.Dictionary != nil {
		rb = &msg.Dictionary.Data
	}
	if msg.Header == meta.HeaderRecordBatch && f.dec.cols != nil && len(f.dec.cols) == 0 {
		return f.dec.decodeMessage(msg, body{total: msg.BodyLength})
	}
	lo, hi := f.neededRange(msg, rb)
	if rb.Compression != meta.CompressionNone {
		b := make([]byte, hi-lo)
		if _, err := f.r.ReadAt(b, start+lo); err != nil {
			return nil, fmt.Errorf("batch: reading body at %d: %w", start+lo, err)
		}
		return f.dec.decodeMessage(msg, body{bytes: b, base: lo, total: msg.BodyLength})
	}
	owner := memory.NewResizableBuffer(f.dec.opts.alloc())
	defer owner.Release()
	owner.Resize(int(hi - lo))
	if _, err := f.r.ReadAt(owner.Bytes(), start+lo); err != nil {
		return nil, fmt.Errorf("batch: reading body at %d: %w", start+lo, err)
	}
	return f.dec.decodeMessage(msg, body{bytes: owner.Bytes(), owner: owner, base: lo, total: msg.BodyLength})
}

// neededRange is the byte range of the body that holds the buffers of the
// selected columns (the whole body when the metadata does not let us tell).
func (f *FileReader) neededRange(msg *meta.Message, rb *meta.RecordBatch) (int64, int64) {
	if msg.Header != meta.HeaderRecordBatch || f.dec.cols == nil {
		return 0, msg.BodyLength
	}
	spans, err := columnSpans(f.dec.types, rb, f.lim.MaxDepth)
	if err != nil {
		return 0, msg.BodyLength // decoding reports the error
	}
	lo, hi := msg.BodyLength, int64(0)
	for _, c := range f.dec.cols {
		for _, b := range rb.Buffers[spans[c].buf:spans[c].bufEnd] {
			if b.Length == 0 {
				continue
			}
			if b.Offset < 0 || b.Length < 0 || b.Offset > msg.BodyLength || b.Length > msg.BodyLength-b.Offset {
				return 0, msg.BodyLength
			}
			lo, hi = min(lo, b.Offset), max(hi, b.Offset+b.Length)
		}
	}
	if lo >= hi {
		return 0, 0
	}
	return lo, hi
}

// Release drops the dictionaries the reader holds.
func (f *FileReader) Release() { f.dec.Release() }
