package expr

import (
	"context"
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
// are bytes and each row's window is sliced from the array's offsets;
// otherwise each row is walked to its window's ends.
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
	var arrs []arrow.Array
	for _, o := range ops {
		if o.arr != nil {
			arrs = append(arrs, o.arr)
		}
	}
	validity, nulls := combineValidity(mem, n, arrs...)
	w := x.windows(ops)
	if s0, s1, ok := w.prefixWindow(); ok {
		return x.sliceASCII(mem, n, w, s0, s1, validity, nulls)
	}
	return buildStrings(mem, x, n, validity, nulls, maxSubstringBytes,
		func(i int) int {
			b0, b1 := w.bytes(i)
			return b1 - b0
		},
		func(i int, dst []byte) int {
			b0, b1 := w.bytes(i)
			if w.offs != nil {
				return copy(dst, w.vals[b0:b1])
			}
			return copy(dst, w.s.at(i)[b0:b1])
		})
}

// prefixWindow reports whether every row of an ASCII string array keeps
// the bytes [s0, s1) clamped to its length: a constant start ≥ 1 and a
// constant length ≥ 0 or none, as in TPC-H's substring(c_phone FROM 1
// FOR 2).
func (w *substrWindows) prefixWindow() (s0, s1 int64, ok bool) {
	if w.offs == nil || !w.start.konst || w.start.c < 1 || w.hasLen && (!w.length.konst || w.length.c < 0) {
		return 0, 0, false
	}
	s0, s1 = w.start.c-1, int64(math.MaxInt64)
	if w.hasLen {
		s1 = satAdd(s0, w.length.c)
	}
	return s0, s1, true
}

// sliceASCII is Eval for prefixWindow's case: two loops without a branch
// per row. Rows under NULL get their slot's bytes too, which Arrow allows
// and which saves testing validity.
func (x *substringExpr) sliceASCII(mem memory.Allocator, n int, w substrWindows, s0, s1 int64, validity *memory.Buffer, nulls int) (arrow.Array, error) {
	offs := w.offs
	total := int64(0)
	for i := range n {
		l := int64(offs[i+1] - offs[i])
		total += min(l, s1) - min(l, s0)
	}
	// total is at most the input's bytes, which fit a utf8 array.
	if err := reserve(mem, total+4*int64(n+1), x); err != nil {
		releaseBufs(validity)
		return nil, err
	}
	offBuf, out := newValues[int32](mem, n+1)
	dataBuf := memory.NewResizableBuffer(mem)
	dataBuf.Resize(int(total))
	data := dataBuf.Bytes()
	pos, base := int64(0), offs[0]
	for i := range n {
		out[i] = int32(pos)
		first, l := int64(offs[i]-base), int64(offs[i+1]-offs[i])
		pos += int64(copy(data[pos:], w.vals[first+min(l, s0):first+min(l, s1)]))
	}
	out[n] = int32(pos)
	return makeArray(typString, n, validity, nulls, offBuf, dataBuf), nil
}

// substrWindows finds each row's result in one batch: bytes(i) is the
// byte range of src(i) that row i keeps.
type substrWindows struct {
	s             stringSide
	start, length side[int64]
	hasLen        bool
	// ascii: every string byte of the batch is ASCII. Then, for a string
	// array, offs and vals are its offsets and bytes, and bytes(i) is a
	// range of vals.
	ascii bool
	offs  []int32
	vals  []byte
}

func (x *substringExpr) windows(ops []operand) substrWindows {
	intLit := func(l *literal) int64 { return l.i }
	w := substrWindows{s: stringSideOf(ops[0]), start: sideOf[int64](ops[1], intLit), hasLen: len(ops) == 3}
	if w.hasLen {
		w.length = sideOf[int64](ops[2], intLit)
	}
	if w.s.arr == nil {
		w.ascii = isASCII(w.s.lit)
		return w
	}
	offs := w.s.arr.ValueOffsets()
	if vals := w.s.arr.ValueBytes(); isASCII(vals) {
		w.ascii, w.offs, w.vals = true, offs, vals
	}
	return w
}

func (w *substrWindows) bytes(i int) (int, int) {
	var l int64
	if w.hasLen {
		l = w.length.at(i)
	}
	if w.offs != nil { // ASCII array: positions in w.vals
		first := int(w.offs[i] - w.offs[0])
		lo, hi := substrWindow(int64(w.offs[i+1]-w.offs[i]), w.start.at(i), l, w.hasLen)
		return first + int(lo), first + int(hi)
	}
	return substrBytes(w.s.at(i), w.start.at(i), l, w.hasLen, w.ascii)
}

// substrWindow returns the characters [lo, hi) that substring(s, start,
// length) keeps of a string of n characters, 0 ≤ lo ≤ hi ≤ n (the rule
// is on substringExpr); hasLen is false for substring(s, start).
func substrWindow(n, start, length int64, hasLen bool) (lo, hi int64) {
	var first int64
	switch {
	case start > 0:
		first = start - 1
	case start < 0:
		first = n + start
	default:
		first = -1
	}
	lo, hi = first, n
	switch {
	case !hasLen:
	case length > 0:
		hi = satAdd(first, length)
	default:
		lo, hi = satAdd(first, length), first
	}
	lo, hi = max(lo, 0), min(hi, n)
	if hi <= lo {
		return 0, 0
	}
	return lo, hi
}

// substrBytes returns the byte range [b0, b1) of s that substring(s,
// start, length) keeps; ascii says s is all ASCII, so characters are
// bytes.
func substrBytes(s string, start, length int64, hasLen, ascii bool) (int, int) {
	if ascii {
		lo, hi := substrWindow(int64(len(s)), start, length, hasLen)
		return int(lo), int(hi)
	}
	lo, hi := substrWindow(int64(utf8.RuneCountInString(s)), start, length, hasLen)
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
func isASCII[T string | []byte](b T) bool {
	for len(b) >= 8 {
		if le64(b)&0x8080808080808080 != 0 {
			return false
		}
		b = b[8:]
	}
	for i := range len(b) {
		if b[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// le64 reads the first 8 bytes of b as a little-endian word (the compiler
// turns this into one load).
func le64[T string | []byte](b T) uint64 {
	_ = b[7]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}
