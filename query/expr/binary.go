package expr

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// BLOB is Arrow's binary: bytes, compared and sorted bytewise (unsigned,
// a shorter prefix first), as DuckDB compares BLOBs. large_binary,
// binary_view and fixed_size_binary columns convert to it when an
// expression reads them (and string_view columns to VARCHAR). It meets
// only BLOB; casts to and from VARCHAR use DuckDB's escapes: printable
// ASCII but ', " and \ as it is, every other byte \xHH
// ('\xAA\x00ab'); octet_length counts its bytes. x'0AFF' is a BLOB
// literal.

var typBinary = arrow.BinaryTypes.Binary

// BinaryType is the engine type BLOB.
func BinaryType() arrow.DataType { return typBinary }

// BinaryLiteral is the BLOB b.
func BinaryLiteral(b []byte) Expr { return newLiteral(literal{typ: typBinary, s: string(b)}) }

// formatBlob is b as DuckDB's CAST(blob AS VARCHAR) writes it.
func formatBlob(b []byte) string {
	const hex = "0123456789ABCDEF"
	var sb strings.Builder
	for _, c := range b {
		if c >= 32 && c <= 126 && c != '\'' && c != '"' && c != '\\' {
			sb.WriteByte(c)
			continue
		}
		sb.WriteString(`\x`)
		sb.WriteByte(hex[c>>4])
		sb.WriteByte(hex[c&15])
	}
	return sb.String()
}

// parseBlob reads text as DuckDB's CAST(text AS BLOB) does: \xHH is the
// byte HH, any other ASCII byte is itself, and a backslash not starting
// \xHH or a byte past ASCII (non-ASCII text must be written \xHH) is an
// error.
func parseBlob(s string) ([]byte, bool) {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return nil, false
		}
		if s[i] != '\\' {
			out = append(out, s[i])
			continue
		}
		if i+3 >= len(s) || s[i+1] != 'x' && s[i+1] != 'X' {
			return nil, false
		}
		hi, ok1 := unhex(s[i+2])
		lo, ok2 := unhex(s[i+3])
		if !ok1 || !ok2 {
			return nil, false
		}
		out = append(out, hi<<4|lo)
		i += 3
	}
	return out, true
}

func unhex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// bytesToEngine converts a large_binary, binary_view or fixed_size_binary
// column to BLOB, and a string_view column to VARCHAR.
func bytesToEngine(mem memory.Allocator, a arrow.Array) (arrow.Array, error) {
	type byteser interface {
		Value(int) []byte
	}
	if sv, ok := a.(*array.StringView); ok {
		b := array.NewStringBuilder(mem)
		defer b.Release()
		b.Reserve(a.Len())
		for i := range a.Len() {
			if a.IsNull(i) {
				b.AppendNull()
			} else {
				b.Append(sv.Value(i))
			}
		}
		return b.NewArray(), nil
	}
	x, ok := a.(byteser)
	if !ok {
		return nil, errorf(ErrType, "column type %s is not bytes", a.DataType())
	}
	b := array.NewBinaryBuilder(mem, typBinary)
	defer b.Release()
	b.Reserve(a.Len())
	for i := range a.Len() {
		if a.IsNull(i) {
			b.AppendNull()
		} else {
			b.Append(x.Value(i))
		}
	}
	return b.NewArray(), nil
}

// bytesFromEngine converts BLOB (VARCHAR) back to the stored type dt; a
// value of another width than a fixed_size_binary's is ErrOverflow.
func bytesFromEngine(mem memory.Allocator, a arrow.Array, dt arrow.DataType) (arrow.Array, error) {
	get := func(i int) []byte { return a.(*array.Binary).Value(i) }
	if s, ok := a.(*array.String); ok {
		get = func(i int) []byte { return []byte(s.Value(i)) }
	}
	b := array.NewBuilder(mem, dt)
	defer b.Release()
	for i := range a.Len() {
		if a.IsNull(i) {
			b.AppendNull()
			continue
		}
		v := get(i)
		switch bb := b.(type) {
		case *array.FixedSizeBinaryBuilder:
			if w := dt.(*arrow.FixedSizeBinaryType).ByteWidth; len(v) != w {
				return nil, errorf(ErrOverflow, "a BLOB of %d bytes does not fit %s", len(v), dt)
			}
			bb.Append(v)
		case *array.BinaryBuilder:
			bb.Append(v)
		case *array.BinaryViewBuilder:
			bb.Append(v)
		case *array.StringViewBuilder:
			bb.Append(string(v))
		default:
			return nil, errorf(ErrType, "cannot store %s as %s", a.DataType(), dt)
		}
	}
	return b.NewArray(), nil
}

// evalBlobLength is octet_length(blob): its bytes.
func evalBlobLength(x *callExpr, mem memory.Allocator, ops []operand, n int) (arrow.Array, error) {
	if ops[0].lit != nil {
		k := int64(len(ops[0].lit.s))
		return mapFixedRows(x, mem, ops, n, func(int) (int64, error) { return k, nil })
	}
	offs := ops[0].arr.(*array.Binary).ValueOffsets()
	return mapFixedRows(x, mem, ops, n, func(i int) (int64, error) { return int64(offs[i+1] - offs[i]), nil })
}
