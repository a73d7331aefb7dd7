package meta

import (
	"errors"
	"testing"
)

// TestDecodeMessageHead: the head decoder reads the body length and
// custom metadata DecodeMessage reads, and rejects bytes that are not a
// flatbuffer.
func TestDecodeMessageHead(t *testing.T) {
	var e Encoder
	msgs := sampleMessages()
	msgs = append(msgs, &Message{Version: MetadataV5, Header: HeaderSchema, Schema: NewSchema(allTypesSchema()), Metadata: md("k", "v")})
	for i, m := range msgs {
		out, err := e.AppendMessage(nil, m)
		if err != nil {
			t.Fatal(err)
		}
		n, got, err := DecodeMessageHead(out, Limits{})
		if err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
		if n != m.BodyLength || !got.Equal(m.Metadata) {
			t.Fatalf("message %d: body %d, metadata %v; want %d, %v", i, n, got, m.BodyLength, m.Metadata)
		}
		for cut := range len(out) - 1 {
			if _, _, err := DecodeMessageHead(out[:cut], Limits{}); err == nil {
				// A cut may still hold every field the head reads; it
				// must then agree with the whole.
				if n2, md2, _ := DecodeMessageHead(out[:cut], Limits{}); n2 != n || !md2.Equal(got) {
					t.Fatalf("message %d cut at %d: body %d, metadata %v", i, cut, n2, md2)
				}
			} else if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("message %d cut at %d: %v, want ErrCorrupt", i, cut, err)
			}
		}
	}
	if _, _, err := DecodeMessageHead([]byte{1, 2}, Limits{}); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("2 bytes: %v", err)
	}
}
