package expr

import (
	"context"
	"encoding/binary"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// substringExpr is substring(s, start[, length]), counting characters
// (UTF-8 code points; a byte of invalid UTF-8 counts as one, as in LIKE).
//
// The rule is DuckDB's general one, checked against it (query/difftest;
// its fast path for ASCII columns differed in the corners until
// duckdb#24766 was fixed): the characters kept are those of a window over
// the string's characters 0 … n-1, intersected with them:
//
//   - start > 0 puts the window's first character at start-1 (1-based);
//     start < 0 at n+start (counting from the end: -1 is the last); start 0
//     at -1, one before the first (so substring('hello', 0, 2) is 'h');
//   - length > 0 makes it [first, first+length); length < 0 the |length|
//     characters before first, [first+length, first) (DuckDB's reading;
//     standard SQL and Postgres reject a negative length); length 0, or a
//     window outside the string, gives the empty string; without a length
//     the window runs to the end.
//
// NULL in any argument gives NULL. No row fails: the window's ends
// saturate instead of overflowing (DuckDB refuses start and length past
// ±2^32-1, where quiver answers an empty or a whole string).
type substringExpr struct {
	s, start, length Expr // length nil: to the end of the string
}

// maxSubstringBytes bounds the bytes of one batch's substring results (a
// utf8 array has 32-bit offsets); only a literal string repeated on every
// row can pass it.
const maxSubstringBytes = math.MaxInt32

// Substring is substring(s, start, length), or substring(s, start) when
// length is nil. s must be a string and start and length integers (or
// untyped NULLs).
func Substring(s, start, length Expr) (Expr, error) {
	args := []Expr{s, start}
	if length != nil {
		args = append(args, length)
	}
	if err := checkEngine("substring", args...); err != nil {
		return nil, err
	}
	x := &substringExpr{s: nullAs(s, typString), start: nullAs(start, typInt64)}
	if length != nil {
		x.length = nullAs(length, typInt64)
	}
	if x.s.Type().ID() != arrow.STRING {
		return nil, errorf(ErrType, "substring needs a string, got %s (%s)", x.s.Type(), x)
	}
	if t := x.start.Type(); t.ID() != arrow.INT64 {
		return nil, errorf(ErrType, "substring: the start must be an integer, got %s (%s)", t, x)
	}
	if x.length != nil && x.length.Type().ID() != arrow.INT64 {
		return nil, errorf(ErrType, "substring: the length must be an integer, got %s (%s)", x.length.Type(), x)
	}
	return fold(x), nil
}

func (x *substringExpr) Type() arrow.DataType { return typString }
func (x *substringExpr) children() []Expr {
	if x.length == nil {
		return []Expr{x.s, x.start}
	}
	return []Expr{x.s, x.start, x.length}
}
func (x *substringExpr) String() string { return text(x) }
func (x *substringExpr) writeText(b *strings.Builder) {
	b.WriteString("substring(")
	for i, c := range x.children() {
		if i > 0 {
			b.WriteString(", ")
		}
		writeExpr(b, c)
	}
	b.WriteByte(')')
}

// Eval measures the results in one pass and copies them in a second, into
// one values buffer. When a batch's string bytes are all ASCII, characters
// are bytes and the window is sliced directly; otherwise each row is
// walked to its window's ends.
func (x *substringExpr) Eval(ctx context.Context, mem memory.Allocator, batch arrow.RecordBatch) (arrow.Array, error) {
	ops, err := evalOperands(ctx, mem, batch, x.children()...)
	if err != nil {
		return nil, err
	}
	defer releaseAll(ops)
	n := int(batch.NumRows())
	for _, o := range ops {
		if o.allNull() {
			return nullArray(mem, typString, n), nil
		}
	}
	intLit := func(l *literal) int64 { return l.i }
	s, start := stringSideOf(ops[0]), sideOf[int64](ops[1], intLit)
	length, hasLen := side[int64]{}, len(ops) == 3
	if hasLen {
		length = sideOf[int64](ops[2], intLit)
	}
	ascii := s.arr == nil && isASCII([]byte(s.lit)) || s.arr != nil && isASCII(s.arr.ValueBytes())
	window := func(i int) (int, int) {
		var l int64
		if hasLen {
			l = length.at(i)
		}
		return substrBytes(s.at(i), start.at(i), l, hasLen, ascii)
	}
	var arrs []arrow.Array
	for _, o := range ops {
		if o.arr != nil {
			arrs = append(arrs, o.arr)
		}
	}
	validity, nulls := combineValidity(mem, n, arrs...)
	valid := bitmap{}
	if validity != nil {
		valid = bitmap{bits: validity.Bytes()}
	}
	total := 0
	for i := range n {
		if valid.valid(i) {
			b0, b1 := window(i)
			if total += b1 - b0; total > maxSubstringBytes {
				releaseBufs(validity)
				return nil, errorf(ErrOverflow, "%s: the results of one batch pass %d bytes", x, maxSubstringBytes)
			}
		}
	}
	// A literal string repeats on every row: ask the query's budget first
	// (budget.go).
	if err := reserve(mem, int64(total)+4*int64(n+1), x); err != nil {
		releaseBufs(validity)
		return nil, err
	}
	offBuf, offs := newValues[int32](mem, n+1)
	dataBuf := memory.NewResizableBuffer(mem)
	dataBuf.Resize(total)
	data := dataBuf.Bytes()
	pos := 0
	for i := range n {
		offs[i] = int32(pos)
		if valid.valid(i) {
			b0, b1 := window(i)
			pos += copy(data[pos:], s.at(i)[b0:b1])
		}
	}
	offs[n] = int32(pos)
	return makeArray(typString, n, validity, nulls, offBuf, dataBuf), nil
}

// substrBytes returns the byte range [b0, b1) of s that substring(s,
// start, length) keeps (the rule is on substringExpr); hasLen is false for
// substring(s, start). ascii says s is all ASCII, so characters are bytes.
func substrBytes(s string, start, length int64, hasLen, ascii bool) (int, int) {
	if hasLen && length == 0 {
		return 0, 0
	}
	var first int64
	switch {
	case start > 0:
		first = start - 1
	case start < 0:
		chars := len(s)
		if !ascii {
			chars = utf8.RuneCountInString(s)
		}
		first = int64(chars) + start
	default:
		first = -1
	}
	lo, hi := first, int64(math.MaxInt64)
	switch {
	case hasLen && length > 0:
		hi = satAdd(first, length)
	case hasLen:
		lo, hi = satAdd(first, length), first
	}
	lo = max(lo, 0)
	if hi <= lo {
		return 0, 0
	}
	if ascii {
		if lo >= int64(len(s)) {
			return 0, 0
		}
		return int(lo), int(min(hi, int64(len(s))))
	}
	b0 := skipChars(s, 0, lo)
	return b0, skipChars(s, b0, hi-lo)
}

// skipChars returns the byte offset k characters after byte i of s, or
// len(s) when s ends first.
func skipChars(s string, i int, k int64) int {
	for ; k > 0 && i < len(s); k-- {
		if s[i] < utf8.RuneSelf {
			i++
			continue
		}
		_, w := utf8.DecodeRuneInString(s[i:])
		i += w
	}
	return i
}

// satAdd is a + b, saturated at the ends of int64.
func satAdd(a, b int64) int64 {
	s := a + b
	switch {
	case a > 0 && b > 0 && s < 0:
		return math.MaxInt64
	case a < 0 && b < 0 && s >= 0:
		return math.MinInt64
	}
	return s
}

// isASCII reports whether every byte of b is below 0x80, eight at a time.
func isASCII(b []byte) bool {
	for len(b) >= 8 {
		if binary.LittleEndian.Uint64(b)&0x8080808080808080 != 0 {
			return false
		}
		b = b[8:]
	}
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
