package meta

import (
	"fmt"
	"testing"
)

// Does metadata cost matter next to a batch body? These measure one
// RecordBatch message per op for batches of 16 and 1024 columns (3 nodes
// and 3 buffers per column), and the all-types Schema message.

func wideBatch(cols int) *Message {
	rb := &RecordBatch{Length: 8192, Compression: CompressionZstd}
	for i := range 3 * cols {
		rb.Nodes = append(rb.Nodes, FieldNode{8192, int64(i % 7)})
		rb.Buffers = append(rb.Buffers, Buffer{int64(i) * 4096, 4000})
	}
	return &Message{Header: HeaderRecordBatch, BodyLength: int64(3*cols) * 4096, Record: rb}
}

func BenchmarkAppendMessage(b *testing.B) {
	for _, cols := range []int{16, 1024} {
		b.Run(fmt.Sprintf("header=record/cols=%d", cols), func(b *testing.B) {
			m := wideBatch(cols)
			var e Encoder
			var dst []byte
			b.ReportAllocs()
			for b.Loop() {
				dst, _ = e.AppendMessage(dst[:0], m)
			}
			b.SetBytes(int64(len(dst)))
		})
	}
	b.Run("header=schema/all-types", func(b *testing.B) {
		m := &Message{Header: HeaderSchema, Schema: NewSchema(allTypesSchema())}
		var e Encoder
		var dst []byte
		b.ReportAllocs()
		for b.Loop() {
			dst, _ = e.AppendMessage(dst[:0], m)
		}
		b.SetBytes(int64(len(dst)))
	})
}

func BenchmarkDecodeMessage(b *testing.B) {
	for _, cols := range []int{16, 1024} {
		b.Run(fmt.Sprintf("header=record/cols=%d", cols), func(b *testing.B) {
			buf, err := EncodeMessage(wideBatch(cols))
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(buf)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := DecodeMessage(buf, Limits{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(3*cols), "ns/node")
		})
	}
	b.Run("header=schema/all-types", func(b *testing.B) {
		buf, err := EncodeMessage(&Message{Header: HeaderSchema, Schema: NewSchema(allTypesSchema())})
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(len(buf)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := DecodeMessage(buf, Limits{}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
