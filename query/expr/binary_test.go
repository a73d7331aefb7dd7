package expr

import (
	"bytes"
	"testing"
)

// TestBlobText: BLOB text as DuckDB writes and reads it (the expected
// texts are DuckDB 1.4's CAST(… AS VARCHAR)).
func TestBlobText(t *testing.T) {
	for _, tc := range []struct {
		b    []byte
		text string
	}{
		{[]byte{0xAA, 0x00, 'a', 'b', '\'', '"', '~', ' '}, `\xAA\x00ab\x27\x22~ `},
		{[]byte{'A', 0x7F, '\\', '\\'}, `A\x7F\x5C\x5C`},
		{nil, ``},
	} {
		if got := formatBlob(tc.b); got != tc.text {
			t.Errorf("formatBlob(%x) = %q, want %q", tc.b, got, tc.text)
		}
		if got, ok := parseBlob(tc.text); !ok || !bytes.Equal(got, tc.b) {
			t.Errorf("parseBlob(%q) = %x, %v; want %x", tc.text, got, ok, tc.b)
		}
	}
	for _, bad := range []string{`\`, `\x`, `\x0`, `\x0G`, `\y00`, "é"} {
		if _, ok := parseBlob(bad); ok {
			t.Errorf("parseBlob(%q) accepted", bad)
		}
	}
}
