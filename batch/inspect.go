package batch

import (
	"encoding/binary"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/quiverdb/quiver/batch/internal/meta"
	"github.com/quiverdb/quiver/codec"
)

// MessageInfo describes one dictionary or record batch message as stored.
type MessageInfo struct {
	Dictionary bool  // a DictionaryBatch; else a RecordBatch
	Index      int   // record batch number, or dictionary batch number
	DictID     int64 // dictionary batches only
	Delta      bool  // dictionary batches only
	Rows       int64
	Codec      codec.Kind
	MetaBytes  int64 // metadata flatbuffer
	BodyBytes  int64
	Columns    []ColumnInfo // one per top-level column (one for a dictionary)
}

// ColumnInfo is one column's share of a message body.
type ColumnInfo struct {
	Name    string
	Stored  int64 // bytes in the body: prefixes and codec frames, no padding
	Decoded int64 // bytes after decompression
	Buffers int   // non-empty buffers
	Raw     int   // of which stored raw (the -1 prefix)
}

// Inspect walks every message of the Arrow IPC stream or file in r and
// calls fn with its description, in order. With verify set every buffer is
// decompressed and every array checked as a full read would, and the
// first failure is returned naming the batch and column. The schema is
// returned even when a later message fails.
func Inspect(r io.ReaderAt, size int64, opts ReadOptions, verify bool, fn func(*MessageInfo) error) (*arrow.Schema, bool, error) {
	opts.Columns = nil
	var magic [6]byte
	n, _ := r.ReadAt(magic[:], 0)
	if n == len(magic) && string(magic[:]) == string(fileMagic) {
		s, err := inspectFile(r, size, opts, verify, fn)
		return s, true, err
	}
	if n < 4 || binary.LittleEndian.Uint32(magic[:]) != continuationMarker {
		return nil, false, corruptf("not an Arrow IPC file or stream: starts with % x, not ARROW1 or FFFFFFFF", magic[:n])
	}
	s, err := inspectStream(io.NewSectionReader(r, 0, size), opts, verify, fn)
	return s, false, err
}

func inspectStream(r io.Reader, opts ReadOptions, verify bool, fn func(*MessageInfo) error) (*arrow.Schema, error) {
	s, err := NewStreamReader(r, opts)
	if err != nil {
		return nil, err
	}
	defer s.Release()
	dicts := 0
	for {
		msg, err := s.readMeta()
		if err == io.EOF {
			return s.dec.schema, nil
		}
		if err != nil {
			return s.dec.schema, fmt.Errorf("after record batch %d: %w", s.index, err)
		}
		s.bodyBuf, err = readBody(s.r, msg.BodyLength, "body", s.bodyBuf[:0], func(b []byte, n int) []byte { return resizeKeeping(b, n) })
		if err != nil {
			return s.dec.schema, fmt.Errorf("after record batch %d: %w", s.index, err)
		}
		info, err := describe(s.dec, msg, s.bodyBuf, int64(len(s.metaBuf)))
		if err == nil && verify {
			err = verifyMessage(s.dec, msg, s.bodyBuf)
		}
		where := fmt.Sprintf("record batch %d", s.index)
		if msg.Header == meta.HeaderDictionaryBatch {
			where = fmt.Sprintf("dictionary batch %d", dicts)
		}
		if info != nil {
			if info.Dictionary {
				info.Index = dicts
				dicts++
			} else {
				info.Index = s.index
				s.index++
			}
			if ferr := fn(info); ferr != nil {
				return s.dec.schema, ferr
			}
		}
		if err != nil {
			return s.dec.schema, fmt.Errorf("%s: %w", where, err)
		}
	}
}

func inspectFile(r io.ReaderAt, size int64, opts ReadOptions, verify bool, fn func(*MessageInfo) error) (*arrow.Schema, error) {
	f, err := NewFileReader(r, size, opts) // loads and so verifies the dictionaries
	if err != nil {
		return nil, err
	}
	defer f.Release()
	visit := func(blk meta.Block, want meta.HeaderType, i int) error {
		msg, start, err := f.readBlockMeta(blk, want)
		if err != nil {
			return err
		}
		b := make([]byte, msg.BodyLength)
		if _, err := r.ReadAt(b, start); err != nil {
			return fmt.Errorf("batch: reading body at %d: %w", start, err)
		}
		info, err := describe(f.dec, msg, b, int64(blk.MetaDataLength))
		if err == nil && verify && want == meta.HeaderRecordBatch {
			err = verifyMessage(f.dec, msg, b)
		}
		if info != nil {
			info.Index = i
			if ferr := fn(info); ferr != nil {
				return ferr
			}
		}
		return err
	}
	for i, blk := range f.footer.Dictionaries {
		if err := visit(blk, meta.HeaderDictionaryBatch, i); err != nil {
			return f.dec.schema, fmt.Errorf("dictionary batch %d: %w", i, err)
		}
	}
	for i, blk := range f.footer.Records {
		if err := visit(blk, meta.HeaderRecordBatch, i); err != nil {
			return f.dec.schema, fmt.Errorf("record batch %d: %w", i, err)
		}
	}
	return f.dec.schema, nil
}

// verifyMessage decodes msg fully: dictionaries go into the decoder's
// memo (later batches need them), records are built and dropped.
func verifyMessage(d *Decoder, msg *meta.Message, b []byte) error {
	rec, err := d.decodeMessage(msg, body{bytes: b})
	if rec != nil {
		rec.Release()
	}
	return err
}

// describe reports the stored and decoded size of every column of msg
// from its metadata and the buffers' length prefixes, without
// decompressing anything.
func describe(d *Decoder, msg *meta.Message, b []byte, metaLen int64) (*MessageInfo, error) {
	info := &MessageInfo{MetaBytes: metaLen, BodyBytes: msg.BodyLength}
	var rb *meta.RecordBatch
	var types []arrow.DataType
	var names []string
	switch msg.Header {
	case meta.HeaderRecordBatch:
		rb, types, names = msg.Record, d.types, d.colNames
	case meta.HeaderDictionaryBatch:
		e, ok := d.dicts[msg.Dictionary.ID]
		if !ok {
			return nil, corruptf("dictionary batch for id %d, which the schema does not have", msg.Dictionary.ID)
		}
		rb, types, names = &msg.Dictionary.Data, []arrow.DataType{e.typ.ValueType}, []string{fmt.Sprintf("dictionary %d", msg.Dictionary.ID)}
		info.Dictionary, info.DictID, info.Delta = true, msg.Dictionary.ID, msg.Dictionary.IsDelta
	default:
		return nil, corruptf("unexpected %s message", msg.Header)
	}
	info.Rows = rb.Length
	switch rb.Compression {
	case meta.CompressionLZ4:
		info.Codec = codec.LZ4
	case meta.CompressionZstd:
		info.Codec = codec.Zstd
	}
	spans, err := columnSpans(types, rb, d.lim.MaxDepth)
	if err != nil {
		return info, err
	}
	for i, s := range spans {
		ci := ColumnInfo{Name: names[i]}
		for j := s.buf; j < s.bufEnd; j++ {
			spec := rb.Buffers[j]
			if spec.Length == 0 {
				continue
			}
			if spec.Offset < 0 || spec.Length < 0 || spec.Offset > int64(len(b)) || spec.Length > int64(len(b))-spec.Offset {
				return info, corruptf("column %q: buffer %d at [%d, +%d) outside the %d-byte body", names[i], j, spec.Offset, spec.Length, len(b))
			}
			ci.Buffers++
			ci.Stored += spec.Length
			decoded := spec.Length
			if rb.Compression != meta.CompressionNone && spec.Length >= 8 {
				switch claim := int64(binary.LittleEndian.Uint64(b[spec.Offset:])); {
				case claim == -1:
					decoded = spec.Length - 8
					ci.Raw++
				case claim >= 0:
					decoded = claim
				}
			}
			ci.Decoded += decoded
		}
		info.Columns = append(info.Columns, ci)
	}
	return info, nil
}

// Totals returns the stored and decoded bytes of all columns.
func (m *MessageInfo) Totals() (stored, decoded int64) {
	for _, c := range m.Columns {
		stored += c.Stored
		decoded += c.Decoded
	}
	return stored, decoded
}
