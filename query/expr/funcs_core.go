package expr

import "github.com/apache/arrow-go/v18/arrow"

// The registry's entries for the functions with nodes of their own:
// date_part and its one-field functions (extract.go), substring
// (substring.go), coalesce and ifnull (case.go), nullif.

// partFuncNames are DuckDB's one-argument functions that take a part of
// a date: year(d) is date_part('year', d). The names are DuckDB's, not
// MySQL's: dayofweek and weekday count from Sunday 0, week is ISO.
var partFuncNames = []string{
	"year", "month", "day", "quarter", "week", "weekofyear", "dayofmonth", "dayofweek", "weekday",
	"dayofyear", "isodow", "yearweek", "isoyear", "decade", "century", "millennium", "era",
	"hour", "minute", "second", "millisecond", "microsecond", "epoch",
}

func init() {
	register("date_part", []signature{sig(buildDatePart, FamString, FamTemporal), sig(buildDatePart, FamString, FamTime), sig(buildDatePart, FamString, FamInterval)}, "datepart")
	for _, name := range partFuncNames {
		part, err := ParseDatePart(name)
		if err != nil {
			panic("expr: " + err.Error())
		}
		build := func(_ string, args []Expr) (Expr, error) { return Extract(part, args[0]) }
		sigs := []signature{sig(build, FamTemporal)}
		if part.ofTime() {
			sigs = append(sigs, sig(build, FamTime))
		}
		register(name, sigs)
	}
	register("substring", []signature{
		sig(func(_ string, a []Expr) (Expr, error) { return Substring(a[0], a[1], nil) }, FamString, FamInt),
		sig(func(_ string, a []Expr) (Expr, error) { return Substring(a[0], a[1], a[2]) }, FamString, FamInt, FamInt),
	}, "substr")
	register("coalesce", []signature{variadic(func(_ string, a []Expr) (Expr, error) { return Coalesce(a...) }, FamAny)})
	register("ifnull", []signature{sig(func(_ string, a []Expr) (Expr, error) { return Coalesce(a...) }, FamAny, FamAny)})
	register("nullif", []signature{sig(func(_ string, a []Expr) (Expr, error) { return NullIf(a[0], a[1]) }, FamAny, FamAny)})
}

// buildDatePart is date_part('part', d): the part must be a string
// constant.
func buildDatePart(name string, args []Expr) (Expr, error) {
	l, ok := args[0].(*literal)
	if !ok || l.null {
		return nil, errorf(ErrType, "%s: the part must be a string constant, such as 'year' (got %s)", name, args[0])
	}
	part, err := ParseDatePart(l.s)
	if err != nil {
		return nil, errorf(ErrType, "%s: %v", name, err)
	}
	return Extract(part, args[1])
}

// NullIf is nullif(a, b): NULL when a = b, else a (CASE WHEN a = b THEN
// NULL ELSE a END), of a's type coerced with b's.
func NullIf(a, b Expr) (Expr, error) {
	eq, err := Compare(Eq, a, b)
	if err != nil {
		return nil, errorf(ErrType, "nullif: %v", err)
	}
	t := a.Type()
	if t.ID() == arrow.NULL {
		return NullLiteral(typNull), nil
	}
	return Case([]When{{Cond: eq, Then: NullLiteral(t)}}, a)
}
