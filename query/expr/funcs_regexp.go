package expr

import (
	"regexp"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Regular expressions use Go's regexp package, whose syntax is RE2's —
// the syntax DuckDB uses too (no backreferences in patterns, no
// lookaround; https://github.com/google/re2/wiki/Syntax). The pattern
// (and options) must be constants, compiled once when the query is
// planned; a pattern that does not compile is an error naming the
// function and the pattern.
//
//   - regexp_matches(s, p[, options]): whether p matches anywhere in s;
//     regexp_full_match(s, p[, options]): whether it matches all of s.
//   - regexp_replace(s, p, r[, options]): s with the first match of p
//     replaced by r (every match with option 'g'); \1 … \9 in r are the
//     groups, \0 the whole match.
//   - regexp_extract(s, p[, group]): the group (0: the whole match) of
//     p's first match in s, '' when there is none.
//
// Options are DuckDB's letters: 'i' ignores case, 'c' does not; as in
// DuckDB, '.' matches a newline unless 'n', 'p' or 'm' (newline
// sensitive: ^ and $ then match at line ends too) is given ('s' restores
// the default); 'g' is for regexp_replace. Other letters are an error.

func init() {
	matches := func(full bool) func(string, []Expr) (Expr, error) {
		return func(name string, a []Expr) (Expr, error) {
			re, _, err := constRegexp(name, a[1], a[2:], full)
			if err != nil {
				return nil, err
			}
			k := &kernel{eval: func(x *callExpr, mem memory.Allocator, ops []operand, n int) (arrow.Array, error) {
				s := strArg(ops[0])
				return mapBoolRows(x, mem, ops, n, func(i int) bool { return re.MatchString(s.at(i)) })
			}}
			return newCall(name, typBool, k, a...), nil
		}
	}
	register("regexp_matches", []signature{sig(matches(false), FamString, FamString), sig(matches(false), FamString, FamString, FamString)})
	register("regexp_full_match", []signature{sig(matches(true), FamString, FamString), sig(matches(true), FamString, FamString, FamString)})
	register("regexp_replace", []signature{sig(buildRegexpReplace, FamString, FamString, FamString), sig(buildRegexpReplace, FamString, FamString, FamString, FamString)})
	register("regexp_extract", []signature{sig(buildRegexpExtract, FamString, FamString), sig(buildRegexpExtract, FamString, FamString, FamInt)})
}

// constRegexp compiles the constant pattern p with the constant options
// opts (at most one); global reports option 'g'.
func constRegexp(name string, p Expr, opts []Expr, full bool) (re *regexp.Regexp, global bool, err error) {
	pl, ok := p.(*literal)
	if !ok || pl.null {
		return nil, false, errorf(ErrType, "%s: the pattern must be a string constant (got %s)", name, p)
	}
	flags := "s"
	if len(opts) > 0 {
		ol, ok := opts[0].(*literal)
		if !ok || ol.null {
			return nil, false, errorf(ErrType, "%s: the options must be a string constant (got %s)", name, opts[0])
		}
		for _, c := range ol.s {
			switch c {
			case 'i':
				flags += "i"
			case 'c':
				flags = strings.ReplaceAll(flags, "i", "")
			case 's':
				flags = strings.ReplaceAll(strings.ReplaceAll(flags, "s", ""), "m", "") + "s"
			case 'n', 'p', 'm':
				flags = strings.ReplaceAll(strings.ReplaceAll(flags, "s", ""), "m", "") + "m"
			case 'g':
				global = true
			default:
				return nil, false, errorf(ErrType, "%s: unknown option %q in %s (want i, c, s, n, p, m or g)", name, c, quote(ol.s))
			}
		}
	}
	src := pl.s
	if full {
		src = `^(?:` + src + `)$`
	}
	if flags != "" {
		src = "(?" + flags + ")" + src
	}
	re, err = regexp.Compile(src)
	if err != nil {
		return nil, false, errorf(ErrType, "%s: invalid pattern %s: %v", name, quote(pl.s), err)
	}
	return re, global, nil
}

func buildRegexpReplace(name string, a []Expr) (Expr, error) {
	re, global, err := constRegexp(name, a[1], a[3:], false)
	if err != nil {
		return nil, err
	}
	k := &kernel{eval: func(x *callExpr, mem memory.Allocator, ops []operand, n int) (arrow.Array, error) {
		s, r := strArg(ops[0]), strArg(ops[2])
		validity, nulls := opsValidity(mem, n, ops)
		lastRepl, tmpl := "", ""
		return mapStringRows(x, mem, ops, n, validity, nulls, nil, func(i int, dst []byte) ([]byte, error) {
			if repl := r.at(i); repl != lastRepl {
				lastRepl, tmpl = repl, goTemplate(repl)
			}
			v := s.at(i)
			if global {
				return append(dst, re.ReplaceAllString(v, tmpl)...), nil
			}
			m := re.FindStringSubmatchIndex(v)
			if m == nil {
				return append(dst, v...), nil
			}
			dst = append(dst, v[:m[0]]...)
			dst = re.ExpandString(dst, tmpl, v, m)
			return append(dst, v[m[1]:]...), nil
		})
	}}
	return newCall(name, typString, k, a...), nil
}

// goTemplate turns RE2's replacement syntax (\1, \\) into Go's (${1}, $$
// for a literal $).
func goTemplate(r string) string {
	var b strings.Builder
	for i := 0; i < len(r); i++ {
		switch c := r[i]; {
		case c == '$':
			b.WriteString("$$")
		case c == '\\' && i+1 < len(r) && r[i+1] >= '0' && r[i+1] <= '9':
			b.WriteString("${" + r[i+1:i+2] + "}")
			i++
		case c == '\\' && i+1 < len(r) && r[i+1] == '\\':
			b.WriteByte('\\')
			i++
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func buildRegexpExtract(name string, a []Expr) (Expr, error) {
	re, _, err := constRegexp(name, a[1], nil, false)
	if err != nil {
		return nil, err
	}
	k := &kernel{fails: true, eval: func(x *callExpr, mem memory.Allocator, ops []operand, n int) (arrow.Array, error) {
		s := strArg(ops[0])
		group := side[int64]{konst: true}
		if len(ops) == 3 {
			group = intArg(ops[2])
		}
		validity, nulls := opsValidity(mem, n, ops)
		return mapStringRows(x, mem, ops, n, validity, nulls, nil, func(i int, dst []byte) ([]byte, error) {
			g := group.at(i)
			if g < 0 || g > int64(re.NumSubexp()) {
				return nil, x.errorf(ErrInvalid, "group %d out of range: the pattern has %d groups", g, re.NumSubexp())
			}
			v := s.at(i)
			m := re.FindStringSubmatchIndex(v)
			if m == nil || m[2*g] < 0 {
				return dst, nil
			}
			return append(dst, v[m[2*g]:m[2*g+1]]...), nil
		})
	}}
	return newCall(name, typString, k, a...), nil
}
