package expr

import (
	"sort"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
)

// The function registry: every scalar function a query can call by name,
// with its signatures. A signature lists the family of each argument; the
// first signature whose families take the arguments builds the call, so
// overloads resolve by argument types (abs(BIGINT) is BIGINT, abs(DOUBLE)
// DOUBLE). A call that fits no signature is ErrType listing the
// candidates: "no function left(varchar); candidates: left(varchar,
// bigint)". Each function's file documents its result type and its NULL
// rule; the rule, unless a function says otherwise, is NULL in, NULL out.

// Family is the kind of value one argument of a function takes.
type Family uint8

const (
	FamAny       Family = iota // any engine type
	FamString                  // VARCHAR
	FamInt                     // BIGINT
	FamNumeric                 // BIGINT, DOUBLE or DECIMAL, kept as it is
	FamDouble                  // BIGINT, DOUBLE or DECIMAL, computed as DOUBLE
	FamDate                    // DATE
	FamTimestamp               // TIMESTAMP or TIMESTAMP WITH TIME ZONE
	FamTemporal                // DATE or a timestamp
	FamBool                    // BOOLEAN
	FamTime                    // TIME
	FamInterval                // INTERVAL
	FamBinary                  // BLOB
)

var familyNames = [...]string{
	FamAny: "any", FamString: "varchar", FamInt: "bigint", FamNumeric: "numeric", FamDouble: "double",
	FamDate: "date", FamTimestamp: "timestamp", FamTemporal: "date|timestamp", FamBool: "boolean",
	FamTime: "time", FamInterval: "interval", FamBinary: "blob",
}

func (f Family) String() string { return familyNames[f] }

// accepts reports whether an argument of type t fits f; an untyped NULL
// fits every family.
func (f Family) accepts(t arrow.DataType) bool {
	id := t.ID()
	if id == arrow.NULL {
		return true
	}
	switch f {
	case FamAny:
		return true
	case FamString:
		return id == arrow.STRING
	case FamInt:
		return id == arrow.INT64
	case FamNumeric, FamDouble:
		return numeric(t)
	case FamDate:
		return id == arrow.DATE32
	case FamTimestamp:
		return id == arrow.TIMESTAMP
	case FamTemporal:
		return id == arrow.DATE32 || id == arrow.TIMESTAMP
	case FamBool:
		return id == arrow.BOOL
	case FamTime:
		return id == arrow.TIME64
	case FamInterval:
		return id == arrow.INTERVAL_MONTH_DAY_NANO
	case FamBinary:
		return id == arrow.BINARY
	}
	return false
}

// convert gives an argument of family f its type: an untyped NULL the
// family's type, a number DOUBLE for FamDouble.
func (f Family) convert(e Expr) (Expr, error) {
	switch f {
	case FamString:
		return nullAs(e, typString), nil
	case FamInt, FamNumeric:
		return nullAs(e, typInt64), nil
	case FamDouble:
		return coerceTo(nullAs(e, typFloat64), typFloat64)
	case FamDate, FamTemporal:
		return nullAs(e, typDate32), nil
	case FamTimestamp:
		return nullAs(e, typTimestamp), nil
	case FamBool:
		return nullAs(e, typBool), nil
	case FamTime:
		return nullAs(e, typTime), nil
	case FamInterval:
		return nullAs(e, typInterval), nil
	case FamBinary:
		return nullAs(e, typBinary), nil
	}
	return e, nil
}

// signature is one overload of a function.
type signature struct {
	args []Family
	// variadic: the last family repeats, any number of times (none
	// included).
	variadic bool
	// build makes the call from arguments already converted to their
	// families.
	build func(name string, args []Expr) (Expr, error)
}

func (s signature) fits(args []Expr) bool {
	n := len(s.args)
	if s.variadic {
		if len(args) < n-1 {
			return false
		}
	} else if len(args) != n {
		return false
	}
	for i, a := range args {
		if !s.args[min(i, n-1)].accepts(a.Type()) {
			return false
		}
	}
	return true
}

func (s signature) text(name string) string {
	parts := make([]string, len(s.args))
	for i, f := range s.args {
		parts[i] = f.String()
	}
	if s.variadic {
		parts[len(parts)-1] += ", …"
	}
	return name + "(" + strings.Join(parts, ", ") + ")"
}

// function is a registered name and its overloads.
type function struct {
	name string
	sigs []signature
	// volatile: its calls give other values each time they run
	// (random()), so the planner must not move or repeat them.
	volatile bool
}

var registry = map[string]*function{}

// Volatile reports whether name is a function whose calls give other
// values each time they run (random()): a planner may not move such a
// call to where it runs on other rows, or another number of times.
func Volatile(name string) bool {
	f, ok := registry[strings.ToLower(name)]
	return ok && f.volatile
}

// register adds a function under name and its aliases; a name registered
// twice is a bug.
func register(name string, sigs []signature, aliases ...string) {
	f := &function{name: name, sigs: sigs}
	for _, n := range append([]string{name}, aliases...) {
		if _, dup := registry[n]; dup {
			panic("expr: function " + n + " registered twice")
		}
		registry[n] = f
	}
}

// sig is a signature of fixed arguments.
func sig(build func(string, []Expr) (Expr, error), args ...Family) signature {
	return signature{args: args, build: build}
}

// variadic is a signature whose last family repeats.
func variadic(build func(string, []Expr) (Expr, error), args ...Family) signature {
	return signature{args: args, variadic: true, build: build}
}

// IsFunction reports whether name (lower case) is a function Call knows.
func IsFunction(name string) bool {
	_, ok := registry[name]
	return ok
}

// FunctionNames lists every name Call takes, aliases included, sorted.
func FunctionNames() []string {
	out := make([]string, 0, len(registry))
	for n := range registry {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Call builds the call name(args...) (name in lower case) by the first
// signature of name whose families take the arguments. An unknown name
// or arguments no signature takes are ErrType; the latter lists the
// candidates.
func Call(name string, args ...Expr) (Expr, error) {
	f, ok := registry[name]
	if !ok {
		return nil, errorf(ErrType, "no function %s", name)
	}
	if err := checkEngine(name, args...); err != nil {
		return nil, err
	}
	for _, s := range f.sigs {
		if !s.fits(args) {
			continue
		}
		conv := make([]Expr, len(args))
		for i, a := range args {
			var err error
			if conv[i], err = s.args[min(i, len(s.args)-1)].convert(a); err != nil {
				return nil, err
			}
		}
		return s.build(name, conv)
	}
	got := make([]string, len(args))
	for i, a := range args {
		got[i] = typeName(a.Type())
	}
	cands := make([]string, len(f.sigs))
	for i, s := range f.sigs {
		cands[i] = s.text(name)
	}
	return nil, errorf(ErrType, "no function %s(%s); candidates: %s", name, strings.Join(got, ", "), strings.Join(cands, ", "))
}

// typeName is the lower-case SQL name of an engine type, as signatures
// print them.
func typeName(t arrow.DataType) string {
	return strings.ToLower(sqlType(t))
}
