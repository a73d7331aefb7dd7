package expr

import (
	"encoding/binary"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/internal/rawmem"
)

// String functions, with DuckDB's names and semantics (query/difftest
// compares them with DuckDB). Lengths and positions count characters
// (UTF-8 code points; a byte of invalid UTF-8 counts as one) except
// octet_length and strlen, which count bytes. NULL in any argument gives
// NULL, except in concat and concat_ws (see there). Case mapping is Go's
// unicode tables (simple, one code point to one), except that upper('ß')
// is 'ẞ' as in DuckDB.

func init() {
	str := func(k *kernel) func(string, []Expr) (Expr, error) {
		return func(name string, a []Expr) (Expr, error) { return newCall(name, typString, k, a...), nil }
	}
	integer := func(k *kernel) func(string, []Expr) (Expr, error) {
		return func(name string, a []Expr) (Expr, error) { return newCall(name, typInt64, k, a...), nil }
	}
	boolean := func(k *kernel) func(string, []Expr) (Expr, error) {
		return func(name string, a []Expr) (Expr, error) { return newCall(name, typBool, k, a...), nil }
	}
	register("length", []signature{sig(integer(&kernel{eval: evalLength}), FamString)}, "char_length", "character_length", "len")
	register("octet_length", []signature{sig(integer(&kernel{eval: evalOctetLength}), FamString),
		sig(integer(&kernel{eval: evalBlobLength}), FamBinary)}, "strlen") // binary.go
	register("lower", []signature{sig(str(&kernel{eval: mapString(appendLower)}), FamString)}, "lcase")
	register("upper", []signature{sig(str(&kernel{eval: mapString(appendUpper)}), FamString)}, "ucase")
	register("reverse", []signature{sig(str(&kernel{eval: mapString(func(dst []byte, s string) []byte {
		return append(dst, reverseString(s)...)
	})}), FamString)})
	for _, t := range []struct {
		name        string
		left, right bool
	}{{"trim", true, true}, {"ltrim", true, false}, {"rtrim", false, true}} {
		k := &kernel{eval: trimKernel(t.left, t.right)}
		register(t.name, []signature{sig(str(k), FamString), sig(str(k), FamString, FamString)})
	}
	register("left", []signature{sig(str(&kernel{eval: leftRight(true)}), FamString, FamInt)})
	register("right", []signature{sig(str(&kernel{eval: leftRight(false)}), FamString, FamInt)})
	register("lpad", []signature{sig(str(&kernel{eval: pad(true), fails: true}), FamString, FamInt, FamString)})
	register("rpad", []signature{sig(str(&kernel{eval: pad(false), fails: true}), FamString, FamInt, FamString)})
	register("replace", []signature{sig(str(&kernel{eval: evalReplace}), FamString, FamString, FamString)})
	register("repeat", []signature{sig(str(&kernel{eval: evalRepeat, fails: true}), FamString, FamInt)})
	register("split_part", []signature{sig(str(&kernel{eval: evalSplitPart}), FamString, FamString, FamInt)})
	register("strpos", []signature{sig(integer(&kernel{eval: evalStrpos}), FamString, FamString)}, "instr")
	register("starts_with", []signature{sig(boolean(&kernel{eval: matchKernel(strings.HasPrefix)}), FamString, FamString)}, "prefix")
	register("ends_with", []signature{sig(boolean(&kernel{eval: matchKernel(strings.HasSuffix)}), FamString, FamString)}, "suffix")
	register("contains", []signature{sig(boolean(&kernel{eval: matchKernel(strings.Contains)}), FamString, FamString)})
	register("concat", []signature{variadic(buildConcat, FamAny)})
	register("concat_ws", []signature{variadic(buildConcatWS, FamString, FamAny)})
}

func evalLength(x *callExpr, mem memory.Allocator, ops []operand, n int) (arrow.Array, error) {
	s := strArg(ops[0])
	return mapFixedRows(x, mem, ops, n, func(i int) (int64, error) { return int64(utf8.RuneCountInString(s.at(i))), nil })
}

func evalOctetLength(x *callExpr, mem memory.Allocator, ops []operand, n int) (arrow.Array, error) {
	s := strArg(ops[0])
	return mapFixedRows(x, mem, ops, n, func(i int) (int64, error) { return int64(s.len(i)), nil })
}

// mapString is the kernel of a function of one string, f appending its
// result to dst.
func mapString(f func(dst []byte, s string) []byte) func(*callExpr, memory.Allocator, []operand, int) (arrow.Array, error) {
	return func(x *callExpr, mem memory.Allocator, ops []operand, n int) (arrow.Array, error) {
		s := strArg(ops[0])
		validity, nulls := opsValidity(mem, n, ops)
		return mapStringRows(x, mem, ops, n, validity, nulls, nil, func(i int, dst []byte) ([]byte, error) {
			return f(dst, s.at(i)), nil
		})
	}
}

// appendUpper appends s in upper case; ß becomes ẞ (U+1E9E), as in
// DuckDB, where Go's tables keep it. ASCII text maps byte by byte.
func appendUpper(dst []byte, s string) []byte {
	if d, ok := appendASCIICase(dst, s, 'a'); ok {
		return d
	}
	return append(dst, strings.ReplaceAll(strings.ToUpper(s), "ß", "ẞ")...)
}

// appendLower appends s in lower case (ASCII text byte by byte).
func appendLower(dst []byte, s string) []byte {
	if d, ok := appendASCIICase(dst, s, 'A'); ok {
		return d
	}
	return append(dst, strings.ToLower(s)...)
}

// appendASCIICase appends s with the 26 letters from first flipped to the
// other case (first 'A': lower case; 'a': upper case), when s is ASCII;
// ok is false, and dst unchanged, at its first byte that is not. One pass
// that writes by index: checking for ASCII first and then appending byte
// by byte cost lower() most of a string-filter query's time.
func appendASCIICase(dst []byte, s string, first byte) ([]byte, bool) {
	n := len(dst)
	out := slices.Grow(dst, len(s))[:n+len(s)]
	to := out[n:]
	src := rawmem.Bytes(s)
	// Eight bytes at a time: a word of ASCII bytes gets 0x20 flipped in
	// the bytes within first…first+25. Each byte is below 0x80, so adding
	// 0x80-first sets its top bit exactly when it is ≥ first, and adding
	// 0x80-(first+26) when it is past the letters; no sum carries into
	// the next byte.
	const ones, tops = 0x0101010101010101, 0x8080808080808080
	from, past := ones*uint64(0x80-first), ones*uint64(0x80-first-26)
	i := 0
	for ; i+8 <= len(src); i += 8 {
		w := rawmem.Load64(src, i)
		if w&tops != 0 {
			return dst, false
		}
		letters := (w + from) &^ (w + past) & tops
		binary.LittleEndian.PutUint64(to[i:], w^letters>>2)
	}
	for ; i < len(src); i++ {
		c := src[i]
		if c >= utf8.RuneSelf {
			return dst, false
		}
		if c-first < 26 {
			c ^= 0x20
		}
		to[i] = c
	}
	return out, true
}

// reverseString reverses the characters of s.
func reverseString(s string) string {
	r := []rune(s)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return string(r)
}

// trimKernel removes spaces, or the characters of the second argument,
// from the left and/or right end.
func trimKernel(left, right bool) func(*callExpr, memory.Allocator, []operand, int) (arrow.Array, error) {
	return func(x *callExpr, mem memory.Allocator, ops []operand, n int) (arrow.Array, error) {
		s := strArg(ops[0])
		chars := stringSide{lit: " "}
		if len(ops) == 2 {
			chars = strArg(ops[1])
		}
		validity, nulls := opsValidity(mem, n, ops)
		return mapStringRows(x, mem, ops, n, validity, nulls, nil, func(i int, dst []byte) ([]byte, error) {
			v, cut := s.at(i), chars.at(i)
			if left {
				v = strings.TrimLeft(v, cut)
			}
			if right {
				v = strings.TrimRight(v, cut)
			}
			return append(dst, v...), nil
		})
	}
}

// leftRight is left(s, k) (the first k characters; all but the last |k|
// when k < 0) or right(s, k) (the last k; all but the first |k|).
func leftRight(isLeft bool) func(*callExpr, memory.Allocator, []operand, int) (arrow.Array, error) {
	return func(x *callExpr, mem memory.Allocator, ops []operand, n int) (arrow.Array, error) {
		s, k := strArg(ops[0]), intArg(ops[1])
		validity, nulls := opsValidity(mem, n, ops)
		return mapStringRows(x, mem, ops, n, validity, nulls, nil, func(i int, dst []byte) ([]byte, error) {
			v, c := s.at(i), k.at(i)
			chars := int64(utf8.RuneCountInString(v))
			keep := c
			if c < 0 {
				keep = max(chars+c, 0)
			}
			keep = min(keep, chars)
			if isLeft {
				return append(dst, v[:skipChars(v, 0, keep)]...), nil
			}
			return append(dst, v[skipChars(v, 0, chars-keep):]...), nil
		})
	}
}

// pad is lpad(s, k, p) or rpad: s cut or filled with repeats of p to k
// characters (an empty result for k ≤ 0); filling with an empty p is an
// error, as in DuckDB.
func pad(isLeft bool) func(*callExpr, memory.Allocator, []operand, int) (arrow.Array, error) {
	return func(x *callExpr, mem memory.Allocator, ops []operand, n int) (arrow.Array, error) {
		s, k, p := strArg(ops[0]), intArg(ops[1]), strArg(ops[2])
		validity, nulls := opsValidity(mem, n, ops)
		size := func(i int) int64 { return max(k.at(i), 0)*int64(max(p.len(i), 1)) + int64(s.len(i)) }
		return mapStringRows(x, mem, ops, n, validity, nulls, size, func(i int, dst []byte) ([]byte, error) {
			v, want, fill := s.at(i), k.at(i), p.at(i)
			if want <= 0 {
				return dst, nil
			}
			chars := int64(utf8.RuneCountInString(v))
			if chars >= want {
				return append(dst, v[:skipChars(v, 0, want)]...), nil
			}
			if fill == "" {
				return nil, x.errorf(ErrInvalid, "the padding is empty but %s needs %d characters", quote(v), want-chars)
			}
			var padding []byte
			for need := want - chars; need > 0; {
				take := min(need, int64(utf8.RuneCountInString(fill)))
				padding = append(padding, fill[:skipChars(fill, 0, take)]...)
				need -= take
			}
			if isLeft {
				return append(append(dst, padding...), v...), nil
			}
			return append(append(dst, v...), padding...), nil
		})
	}
}

func evalReplace(x *callExpr, mem memory.Allocator, ops []operand, n int) (arrow.Array, error) {
	s, from, to := strArg(ops[0]), strArg(ops[1]), strArg(ops[2])
	validity, nulls := opsValidity(mem, n, ops)
	// at most every len(from) bytes become len(to): bounded before
	// anything is built, as repeat's
	size := func(i int) int64 {
		l, f, t := int64(s.len(i)), int64(from.len(i)), int64(to.len(i))
		if f == 0 || t <= f {
			return l
		}
		return l + l/f*(t-f)
	}
	return mapStringRows(x, mem, ops, n, validity, nulls, size, func(i int, dst []byte) ([]byte, error) {
		v, f, t := s.at(i), from.at(i), to.at(i)
		if f == "" {
			return append(dst, v...), nil // DuckDB: an empty pattern replaces nothing
		}
		for {
			k := strings.Index(v, f)
			if k < 0 {
				return append(dst, v...), nil
			}
			dst = append(append(dst, v[:k]...), t...)
			v = v[k+len(f):]
		}
	})
}

// evalRepeat is repeat(s, k): s k times, ” for k ≤ 0. The result's size
// is checked against the bounds before anything is built.
func evalRepeat(x *callExpr, mem memory.Allocator, ops []operand, n int) (arrow.Array, error) {
	s, k := strArg(ops[0]), intArg(ops[1])
	validity, nulls := opsValidity(mem, n, ops)
	size := func(i int) int64 {
		c := max(k.at(i), 0)
		if l := int64(s.len(i)); l > 0 && c > maxStringResult/l {
			return maxStringResult + 1
		}
		return c * int64(s.len(i))
	}
	return mapStringRows(x, mem, ops, n, validity, nulls, size, func(i int, dst []byte) ([]byte, error) {
		v := s.at(i)
		for c := k.at(i); c > 0; c-- {
			dst = append(dst, v...)
		}
		return dst, nil
	})
}

// evalSplitPart is split_part(s, delim, k): the k-th field (from the end
// when k < 0), ” past the fields or for k = 0; an empty delimiter splits
// into characters.
func evalSplitPart(x *callExpr, mem memory.Allocator, ops []operand, n int) (arrow.Array, error) {
	s, d, k := strArg(ops[0]), strArg(ops[1]), intArg(ops[2])
	validity, nulls := opsValidity(mem, n, ops)
	return mapStringRows(x, mem, ops, n, validity, nulls, nil, func(i int, dst []byte) ([]byte, error) {
		var parts []string
		if sep := d.at(i); sep == "" {
			for _, r := range s.at(i) {
				parts = append(parts, string(r))
			}
		} else {
			parts = strings.Split(s.at(i), sep)
		}
		idx := k.at(i)
		switch {
		case idx > 0 && idx <= int64(len(parts)):
			return append(dst, parts[idx-1]...), nil
		case idx < 0 && -idx <= int64(len(parts)):
			return append(dst, parts[int64(len(parts))+idx]...), nil
		}
		return dst, nil
	})
}

// evalStrpos is strpos(s, needle): the character position of needle's
// first occurrence, 1-based, 0 when absent (1 for an empty needle).
func evalStrpos(x *callExpr, mem memory.Allocator, ops []operand, n int) (arrow.Array, error) {
	s, needle := strArg(ops[0]), strArg(ops[1])
	return mapFixedRows(x, mem, ops, n, func(i int) (int64, error) {
		v := s.at(i)
		b := strings.Index(v, needle.at(i))
		if b < 0 {
			return 0, nil
		}
		return int64(utf8.RuneCountInString(v[:b])) + 1, nil
	})
}

// matchKernel is a test of a string against a second one.
func matchKernel(f func(s, t string) bool) func(*callExpr, memory.Allocator, []operand, int) (arrow.Array, error) {
	return func(x *callExpr, mem memory.Allocator, ops []operand, n int) (arrow.Array, error) {
		s, t := strArg(ops[0]), strArg(ops[1])
		return mapBoolRows(x, mem, ops, n, func(i int) bool { return f(s.at(i), t.at(i)) })
	}
}

// buildConcat is concat(args...): the arguments as CAST(… AS VARCHAR)
// would write them, one after another, NULLs skipped (DuckDB and
// PostgreSQL; || instead is NULL when either side is): never NULL.
func buildConcat(name string, args []Expr) (Expr, error) {
	if len(args) == 0 {
		return nil, errorf(ErrType, "%s needs at least one argument", name)
	}
	strs, err := asStrings(args)
	if err != nil {
		return nil, err
	}
	return newCall(name, typString, &kernel{eval: evalConcat(false), keepNulls: true}, strs...), nil
}

// buildConcatWS is concat_ws(sep, args...): the non-NULL arguments joined
// by sep; NULL when sep is.
func buildConcatWS(name string, args []Expr) (Expr, error) {
	if len(args) < 2 {
		return nil, errorf(ErrType, "%s needs a separator and at least one argument", name)
	}
	strs, err := asStrings(args)
	if err != nil {
		return nil, err
	}
	return newCall(name, typString, &kernel{eval: evalConcat(true), keepNulls: true}, strs...), nil
}

// asStrings converts every argument to VARCHAR (an untyped NULL too).
func asStrings(args []Expr) ([]Expr, error) {
	out := make([]Expr, len(args))
	for i, a := range args {
		var err error
		if out[i], err = coerceTo(nullAs(a, typString), typString); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func evalConcat(ws bool) func(*callExpr, memory.Allocator, []operand, int) (arrow.Array, error) {
	return func(x *callExpr, mem memory.Allocator, ops []operand, n int) (arrow.Array, error) {
		parts := ops
		var validity *memory.Buffer
		nulls := 0
		if ws {
			validity, nulls = opsValidity(mem, n, ops[:1])
			if ops[0].allNull() {
				releaseBufs(validity)
				return nullArray(mem, typString, n), nil
			}
			parts = ops[1:]
		}
		sides := make([]stringSide, len(parts))
		valid := make([]bitmap, len(parts))
		for k, o := range parts {
			if o.allNull() {
				valid[k] = bitmap{none: true}
				continue
			}
			sides[k] = strArg(o)
			valid[k] = validityOf(o.arr)
		}
		var sep stringSide
		if ws {
			sep = strArg(ops[0])
		}
		return mapStringRows(x, mem, ops, n, validity, nulls, nil, func(i int, dst []byte) ([]byte, error) {
			first := true
			for k := range parts {
				if !valid[k].valid(i) {
					continue
				}
				if ws && !first {
					dst = append(dst, sep.at(i)...)
				}
				dst = append(dst, sides[k].at(i)...)
				first = false
			}
			return dst, nil
		})
	}
}
