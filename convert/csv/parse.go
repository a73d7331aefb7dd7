package csv

import (
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal"

	"github.com/quiverdb/quiver/convert"
	"github.com/quiverdb/quiver/convert/internal/column"
	"github.com/quiverdb/quiver/convert/internal/parse"
)

// Each column is parsed on its own, down all the rows of a chunk, into
// its builder: one loop per type, writing values by index into memory
// reserved once for the chunk, so that a field costs its parse and a
// store (nulls touch the validity bitmap, valid rows nothing else).

// parseCtx is one chunk's fields and the null tokens.
type parseCtx struct {
	data   []byte
	f      *fields
	tokens []string
	// emptyNull: the empty field is a null token.
	emptyNull bool
	maxTok    int
	// stringsNull: string and binary columns have nulls (unquoted null
	// tokens); false is Options.StringsNeverNull.
	stringsNull bool
	names       []string
	skip        bool
}

func (x *parseCtx) field(row, col int) []byte {
	s, e := x.f.field(row, col)
	return x.data[s:e]
}

func (x *parseCtx) isNull(b []byte) bool {
	if len(b) == 0 {
		return x.emptyNull
	}
	if len(b) > x.maxTok {
		return false
	}
	for _, t := range x.tokens {
		if string(b) == t {
			return true
		}
	}
	return false
}

// isNullString reports whether the field at s, b is null in a string
// or binary column: an unquoted null token. A quoted field is a value
// whatever it holds, since quoting is how CSV writes the string "" (or
// "NULL"). The token test comes first: it fails fast on most fields.
func (x *parseCtx) isNullString(s uint32, b []byte) bool {
	return x.stringsNull && x.isNull(b) && !x.quoted(s)
}

// quoted reports whether the field starting at s was quoted. The
// tokenizer unquotes a quoted field in place from just past its opening
// quote, which it leaves where it was, so the byte before the field is
// that quote; a raw field starts a record or follows a delimiter, and
// the delimiter cannot be a quote (Options.Validate).
func (x *parseCtx) quoted(s uint32) bool {
	return s > 0 && x.data[s-1] == '"'
}

// bad builds the error of a field that does not parse as dt.
func (x *parseCtx) bad(row, col int, b []byte, dt arrow.DataType, err error) rowError {
	kind := convert.ErrMalformed
	if errors.Is(err, parse.ErrRange) {
		kind = convert.ErrRange
	}
	return rowError{row: row, err: &ParseError{Line: x.f.lines[row], Column: col + 1, Name: x.names[col],
		Err: fmt.Errorf("%w: %s is not a %s", kind, quote(b), dt)}}
}

// parser parses one column.
type parser func(b column.Builder, x *parseCtx, col int) []rowError

// parserFor returns the parser for a column of type dt.
func parserFor(dt arrow.DataType) (parser, error) {
	switch t := dt.(type) {
	case *arrow.Int8Type:
		return intParser[int8](8), nil
	case *arrow.Int16Type:
		return intParser[int16](16), nil
	case *arrow.Int32Type:
		return intParser[int32](32), nil
	case *arrow.Int64Type:
		return intParser[int64](64), nil
	case *arrow.Uint8Type:
		return uintParser[uint8](8), nil
	case *arrow.Uint16Type:
		return uintParser[uint16](16), nil
	case *arrow.Uint32Type:
		return uintParser[uint32](32), nil
	case *arrow.Uint64Type:
		return uintParser[uint64](64), nil
	case *arrow.Float32Type:
		return fixedParser(func(b []byte) (float32, error) { return parse.Float32(b) }), nil
	case *arrow.Float64Type:
		return fixedParser(parse.Float64), nil
	case *arrow.BooleanType:
		return parseBool, nil
	case *arrow.Decimal32Type:
		p, s := t.Precision, t.Scale
		return fixedParser(func(b []byte) (decimal.Decimal32, error) {
			v, err := parse.Decimal(b, p, s)
			return decimal.Decimal32(int32(v.LowBits())), err
		}), nil
	case *arrow.Decimal64Type:
		p, s := t.Precision, t.Scale
		return fixedParser(func(b []byte) (decimal.Decimal64, error) {
			v, err := parse.Decimal(b, p, s)
			return decimal.Decimal64(int64(v.LowBits())), err
		}), nil
	case *arrow.Decimal128Type:
		p, s := t.Precision, t.Scale
		return fixedParser(func(b []byte) (decimal.Decimal128, error) { return parse.Decimal(b, p, s) }), nil
	case *arrow.Date32Type:
		return fixedParser(func(b []byte) (int32, error) { return parse.Date32(b) }), nil
	case *arrow.Date64Type:
		return fixedParser(func(b []byte) (int64, error) {
			d, err := parse.Date32(b)
			return int64(d) * 86_400_000, err
		}), nil
	case *arrow.TimestampType:
		unit, zonedType := t.Unit, t.TimeZone != ""
		return fixedParser(func(b []byte) (int64, error) {
			v, zoned, err := parse.Timestamp(b, unit)
			if err == nil && zoned && !zonedType {
				return 0, errZoned
			}
			return v, err
		}), nil
	case *arrow.StringType:
		return binaryParser[int32](true), nil
	case *arrow.LargeStringType:
		return binaryParser[int64](true), nil
	case *arrow.BinaryType:
		return binaryParser[int32](false), nil
	case *arrow.LargeBinaryType:
		return binaryParser[int64](false), nil
	case *arrow.NullType:
		return parseNull, nil
	}
	return nil, fmt.Errorf("%w: %s in CSV", convert.ErrUnsupported, dt)
}

var errZoned = errors.New("has a time zone offset but the column's timestamp type has none")

// fixedParser parses a fixed-width column with conv.
func fixedParser[T arrow.FixedWidthType](conv func([]byte) (T, error)) parser {
	return func(cb column.Builder, x *parseCtx, col int) []rowError {
		b := cb.(*column.Fixed)
		n := x.f.rows
		b.Reserve(n)
		at := b.Len()
		vals := column.Values[T](b)[at : at+n]
		var errs []rowError
		for i := range vals {
			fb := x.field(i, col)
			if x.isNull(fb) {
				b.SetNull(at + i)
				var z T
				vals[i] = z
				continue
			}
			v, err := conv(fb)
			if err != nil {
				errs = append(errs, x.bad(i, col, fb, b.Type(), err))
				if !x.skip {
					break
				}
				b.SetNull(at + i)
				continue
			}
			vals[i] = v
		}
		b.Advance(n)
		return errs
	}
}

func intParser[T int8 | int16 | int32 | int64](bits int) parser {
	return fixedParser(func(b []byte) (T, error) {
		v, err := parse.Int(b, bits)
		return T(v), err
	})
}

func uintParser[T uint8 | uint16 | uint32 | uint64](bits int) parser {
	return fixedParser(func(b []byte) (T, error) {
		v, err := parse.Uint(b, bits)
		return T(v), err
	})
}

func parseBool(cb column.Builder, x *parseCtx, col int) []rowError {
	b := cb.(*column.Bool)
	n := x.f.rows
	b.Reserve(n)
	at := b.Len()
	var errs []rowError
	for i := range n {
		fb := x.field(i, col)
		if x.isNull(fb) {
			b.SetNull(at + i)
			continue
		}
		v, err := parse.Bool(fb)
		if err != nil {
			errs = append(errs, x.bad(i, col, fb, b.Type(), err))
			if !x.skip {
				break
			}
			b.SetNull(at + i)
			continue
		}
		b.Set(at+i, v)
	}
	b.Advance(n)
	return errs
}

func parseNull(cb column.Builder, x *parseCtx, col int) []rowError {
	var errs []rowError
	for i := range x.f.rows {
		if fb := x.field(i, col); !x.isNull(fb) {
			errs = append(errs, x.bad(i, col, fb, cb.Type(), parse.ErrSyntax))
			if !x.skip {
				break
			}
		}
	}
	cb.AppendNulls(x.f.rows)
	return errs
}

// binaryParser copies the fields' bytes; for strings it also checks
// they are UTF-8: once over all the bytes a chunk adds to the column,
// plus a check that no field starts inside a character, which together
// prove each field valid; only when that fails are the fields checked
// one by one to name the bad ones.
func binaryParser[O column.Offset](checkUTF8 bool) parser {
	return func(cb column.Builder, x *parseCtx, col int) []rowError {
		b := cb.(*column.Binary[O])
		n := x.f.rows
		total := 0
		for i := range n {
			s, e := x.f.field(i, col)
			total += int(e - s)
		}
		b.Reserve(n, total)
		d0 := b.DataLen()
		split := false
		var errs []rowError
		for i := range n {
			s, e := x.f.field(i, col)
			fb := x.data[s:e]
			if x.isNullString(s, fb) {
				b.AppendNull()
				continue
			}
			if len(fb) > 0 && fb[0]&0xc0 == 0x80 {
				split = true
			}
			if err := b.Append(fb); err != nil {
				errs = append(errs, rowError{row: i, err: &ParseError{Line: x.f.lines[i], Column: col + 1, Name: x.names[col],
					Err: fmt.Errorf("%w: the column's data passes 2^31-1 bytes (use large_string)", convert.ErrLimit)}})
				b.AppendNull()
				if !x.skip {
					break
				}
			}
		}
		if checkUTF8 && (split || !utf8.Valid(b.Data()[d0:])) {
			for i := range n {
				s, e := x.f.field(i, col)
				if fb := x.data[s:e]; !utf8.Valid(fb) && !x.isNullString(s, fb) {
					errs = append(errs, rowError{row: i, err: &ParseError{Line: x.f.lines[i], Column: col + 1, Name: x.names[col],
						Err: fmt.Errorf("%w: %s is not UTF-8 (read the column as binary)", convert.ErrMalformed, quote(fb))}})
					if !x.skip {
						break
					}
				}
			}
		}
		return errs
	}
}
