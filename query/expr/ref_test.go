package expr

import (
	"errors"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// ref evaluates e on one row of Go values (see goValue), independently of
// the kernels: exact big.Int / big.Rat arithmetic, regexp for LIKE, the
// time package for dates. It walks the tree through Inspect. Operands are
// evaluated strictly (an error anywhere is an error) except in CASE and
// COALESCE, which evaluate lazily, as the engine does.
func ref(e Expr, row []any) (any, error) {
	n := Inspect(e)
	args := func() ([]any, error) {
		out := make([]any, len(n.Args))
		for i, a := range n.Args {
			v, err := ref(a, row)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	}
	switch n.Kind {
	case KindColumn:
		return row[n.Column], nil
	case KindLiteral:
		return refLiteral(n.Value, e.Type()), nil
	case KindCase:
		for i := 0; i+1 < len(n.Args); i += 2 {
			c, err := ref(n.Args[i], row)
			if err != nil {
				return nil, err
			}
			if c == true {
				return ref(n.Args[i+1], row)
			}
		}
		return ref(n.Args[len(n.Args)-1], row)
	case KindCoalesce:
		for _, a := range n.Args {
			v, err := ref(a, row)
			if err != nil || v != nil {
				return v, err
			}
		}
		return nil, nil
	}
	vs, err := args()
	if err != nil {
		return nil, err
	}
	switch n.Kind {
	case KindAnd, KindOr:
		return refKleene(n.Kind == KindAnd, vs[0], vs[1]), nil
	case KindNot:
		if vs[0] == nil {
			return nil, nil
		}
		return !vs[0].(bool), nil
	case KindIsNull:
		return vs[0] == nil, nil
	case KindIsNotNull:
		return vs[0] != nil, nil
	case KindCompare:
		if vs[0] == nil || vs[1] == nil {
			return nil, nil
		}
		return cmpHolds(n.CmpOp, refCmp(vs[0], vs[1])), nil
	case KindBetween:
		if vs[0] == nil {
			return nil, nil
		}
		var ge, le any
		if vs[1] != nil {
			ge = refCmp(vs[0], vs[1]) >= 0
		}
		if vs[2] != nil {
			le = refCmp(vs[0], vs[2]) <= 0
		}
		return refKleene(true, ge, le), nil
	case KindIn:
		if vs[0] == nil {
			return nil, nil
		}
		var out any = false
		for _, v := range vs[1:] {
			var eq any
			if v != nil {
				eq = refCmp(vs[0], v) == 0
			}
			out = refKleene(false, out, eq)
		}
		return out, nil
	case KindLike:
		if vs[0] == nil {
			return nil, nil
		}
		return likeRegexp(n.Pattern).MatchString(vs[0].(string)) != n.Negated, nil
	case KindNegate:
		if vs[0] == nil {
			return nil, nil
		}
		switch x := vs[0].(type) {
		case int64:
			if x == math.MinInt64 {
				return nil, ErrOverflow
			}
			return -x, nil
		case float64:
			return -x, nil
		}
		return new(big.Rat).Neg(vs[0].(*big.Rat)), nil
	case KindArith:
		if vs[0] == nil || vs[1] == nil {
			return nil, nil
		}
		return refArith(n.ArithOp, vs[0], vs[1], e.Type())
	case KindCast:
		if vs[0] == nil {
			return nil, nil
		}
		return refCast(vs[0], n.Args[0].Type(), e.Type())
	case KindAddInterval:
		if vs[0] == nil {
			return nil, nil
		}
		return refInterval(vs[0].(int32), n.Months, n.Days)
	case KindExtract:
		if vs[0] == nil {
			return nil, nil
		}
		return refExtract(n.Part, vs[0].(int32)), nil
	case KindSubstring:
		for _, v := range vs {
			if v == nil {
				return nil, nil
			}
		}
		length, hasLen := int64(0), len(vs) == 3
		if hasLen {
			length = vs[2].(int64)
		}
		return refSubstring(vs[0].(string), vs[1].(int64), length, hasLen), nil
	case KindCall: // date arithmetic (dateArith) is what random trees build
		if vs[0] == nil || vs[1] == nil {
			return nil, nil
		}
		return refDateArith(n.Name, vs[0], vs[1])
	}
	panic("ref: unknown expression " + e.String())
}

func refLiteral(v any, typ arrow.DataType) any {
	if d, ok := v.(decimal128.Num); ok {
		return new(big.Rat).SetFrac(d.BigInt(), pow10[typ.(*arrow.Decimal128Type).Scale].BigInt())
	}
	return v
}

func refKleene(and bool, a, b any) any {
	if and {
		if a == false || b == false {
			return false
		}
		if a == nil || b == nil {
			return nil
		}
		return true
	}
	if a == true || b == true {
		return true
	}
	if a == nil || b == nil {
		return nil
	}
	return false
}

func cmpHolds(op CmpOp, c int) bool {
	return [...]bool{c == 0, c != 0, c < 0, c <= 0, c > 0, c >= 0}[op]
}

func refCmp(a, b any) int {
	switch x := a.(type) {
	case int64:
		y := b.(int64)
		return cmpOrdered(x, y)
	case int32:
		return cmpOrdered(x, b.(int32))
	case string:
		return strings.Compare(x, b.(string))
	case bool:
		y := b.(bool)
		return cmpOrdered(boolInt(x), boolInt(y))
	case *big.Rat:
		return x.Cmp(b.(*big.Rat))
	case float64:
		y := b.(float64)
		xn, yn := math.IsNaN(x), math.IsNaN(y)
		switch {
		case xn && yn:
			return 0
		case xn:
			return 1
		case yn:
			return -1
		}
		return cmpOrdered(x, y)
	}
	panic("refCmp")
}

func cmpOrdered[T int | int32 | int64 | float64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func likeRegexp(p string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString(`^(?s:`)
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\\':
			i++
			b.WriteString(regexp.QuoteMeta(p[i : i+1]))
		case '%':
			b.WriteString(`.*`)
		case '_':
			b.WriteString(`.`)
		default:
			b.WriteString(regexp.QuoteMeta(p[i : i+1]))
		}
	}
	b.WriteString(`)$`)
	return regexp.MustCompile(b.String())
}

var (
	minInt64 = big.NewInt(math.MinInt64)
	maxInt64 = big.NewInt(math.MaxInt64)
)

func refArith(op ArithOp, a, b any, typ arrow.DataType) (any, error) {
	switch typ.ID() {
	case arrow.INT64:
		x, y := big.NewInt(a.(int64)), big.NewInt(b.(int64))
		r := new(big.Int)
		switch op {
		case Add:
			r.Add(x, y)
		case Sub:
			r.Sub(x, y)
		case Mul:
			r.Mul(x, y)
		case Div, Mod:
			if y.Sign() == 0 {
				return nil, ErrDivisionByZero
			}
			if op == Div {
				r.Quo(x, y)
			} else {
				r.Rem(x, y)
			}
		}
		if r.Cmp(minInt64) < 0 || r.Cmp(maxInt64) > 0 {
			return nil, ErrOverflow
		}
		return r.Int64(), nil
	case arrow.FLOAT64:
		x, y := a.(float64), b.(float64)
		switch op {
		case Add:
			return x + y, nil
		case Sub:
			return x - y, nil
		case Mul:
			return x * y, nil
		}
		if y == 0 {
			return nil, ErrDivisionByZero
		}
		if op == Div {
			return x / y, nil
		}
		return math.Mod(x, y), nil
	}
	d := typ.(*arrow.Decimal128Type)
	x, y := a.(*big.Rat), b.(*big.Rat)
	r := new(big.Rat)
	switch op {
	case Add:
		r.Add(x, y)
	case Sub:
		r.Sub(x, y)
	case Mul:
		r.Mul(x, y)
	case Div, Mod:
		if y.Sign() == 0 {
			return nil, ErrDivisionByZero
		}
		q := new(big.Rat).Quo(x, y)
		if op == Div {
			r.Set(q)
		} else {
			t := new(big.Int).Quo(q.Num(), q.Denom()) // truncated quotient
			r.Sub(x, new(big.Rat).Mul(y, new(big.Rat).SetInt(t)))
		}
	}
	return fitDecimal(r, d.Precision, d.Scale)
}

// fitDecimal rounds r half away from zero to scale s and checks precision
// p.
func fitDecimal(r *big.Rat, p, s int32) (any, error) {
	scaled := new(big.Rat).Mul(r, new(big.Rat).SetInt(pow10[s].BigInt()))
	u := roundHalfAway(scaled)
	if new(big.Int).Abs(u).Cmp(pow10[p].BigInt()) >= 0 {
		return nil, ErrOverflow
	}
	return new(big.Rat).SetFrac(u, pow10[s].BigInt()), nil
}

func roundHalfAway(r *big.Rat) *big.Int {
	num := new(big.Int).Abs(r.Num())
	q, m := new(big.Int).QuoRem(num, r.Denom(), new(big.Int))
	if m.Lsh(m, 1).Cmp(r.Denom()) >= 0 {
		q.Add(q, big.NewInt(1))
	}
	if r.Sign() < 0 {
		q.Neg(q)
	}
	return q
}

func refInterval(days int32, months, ddays int32) (any, error) {
	t := time.Unix(int64(days)*86400, 0).UTC()
	first := time.Date(t.Year(), t.Month()+time.Month(months), 1, 0, 0, 0, 0, time.UTC)
	last := time.Date(first.Year(), first.Month()+1, 0, 0, 0, 0, 0, time.UTC).Day()
	out := time.Date(first.Year(), first.Month(), min(t.Day(), last), 0, 0, 0, 0, time.UTC)
	d := out.Unix()/86400 + int64(ddays)
	if d < math.MinInt32 || d > math.MaxInt32 {
		return nil, ErrOverflow
	}
	return int32(d), nil
}

var (
	decimalText = regexp.MustCompile(`^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$`)
	dateText    = regexp.MustCompile(`^(-?)(\d{4,9})-(\d{1,2})-(\d{1,2})$`)
)

func refCast(v any, from, to arrow.DataType) (any, error) {
	if to.ID() == arrow.STRING {
		switch x := v.(type) {
		case int64:
			return strconv.FormatInt(x, 10), nil
		case float64:
			return formatFloat(x), nil
		case *big.Rat:
			return x.FloatString(int(from.(*arrow.Decimal128Type).Scale)), nil
		case int32:
			t := time.Unix(int64(x)*86400, 0).UTC()
			if t.Year() < 0 || t.Year() > 9999 {
				return formatDate(x), nil // time formats such years differently
			}
			return t.Format("2006-01-02"), nil
		case bool:
			return strconv.FormatBool(x), nil
		}
		return v, nil
	}
	if s, ok := v.(string); ok {
		return refParse(s, to)
	}
	switch to.ID() {
	case arrow.BOOL:
		return v.(int64) != 0, nil
	case arrow.FLOAT64:
		switch x := v.(type) {
		case int64:
			return float64(x), nil
		case *big.Rat:
			f, _ := x.Float64()
			return f, nil
		}
	case arrow.INT64:
		var r *big.Rat
		switch x := v.(type) {
		case bool:
			return int64(boolInt(x)), nil
		case float64:
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, ErrOverflow
			}
			// DuckDB rounds a DOUBLE half to even (nearbyint), a DECIMAL
			// half away from zero
			r = new(big.Rat).SetFloat64(math.RoundToEven(x))
		case *big.Rat:
			r = x
		}
		i := roundHalfAway(r)
		if i.Cmp(minInt64) < 0 || i.Cmp(maxInt64) > 0 {
			return nil, ErrOverflow
		}
		return i.Int64(), nil
	case arrow.DECIMAL128:
		d := to.(*arrow.Decimal128Type)
		var r *big.Rat
		switch x := v.(type) {
		case int64:
			r = new(big.Rat).SetInt64(x)
		case float64:
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, ErrOverflow
			}
			r = new(big.Rat).SetFloat64(x)
		case *big.Rat:
			r = x
		}
		return fitDecimal(r, d.Precision, d.Scale)
	}
	panic("refCast " + from.String() + " to " + to.String())
}

func refParse(s string, to arrow.DataType) (any, error) {
	t := strings.TrimSpace(s)
	switch to.ID() {
	case arrow.INT64:
		v, err := strconv.ParseInt(t, 10, 64)
		if errors.Is(err, strconv.ErrRange) {
			return nil, ErrOverflow
		} else if err != nil {
			return nil, ErrInvalidCast
		}
		return v, nil
	case arrow.FLOAT64:
		if strings.ContainsAny(t, "xX_") {
			return nil, ErrInvalidCast
		}
		v, err := strconv.ParseFloat(t, 64)
		if errors.Is(err, strconv.ErrRange) {
			return nil, ErrOverflow
		} else if err != nil {
			return nil, ErrInvalidCast
		}
		return v, nil
	case arrow.DECIMAL128:
		if !decimalText.MatchString(t) {
			return nil, ErrInvalidCast
		}
		r, _ := new(big.Rat).SetString(t)
		d := to.(*arrow.Decimal128Type)
		return fitDecimal(r, d.Precision, d.Scale)
	case arrow.DATE32:
		m := dateText.FindStringSubmatch(t)
		if m == nil {
			return nil, ErrInvalidCast
		}
		y, _ := strconv.Atoi(m[2])
		if m[1] == "-" {
			y = -y
		}
		mo, _ := strconv.Atoi(m[3])
		d, _ := strconv.Atoi(m[4])
		tm := time.Date(y, time.Month(mo), d, 0, 0, 0, 0, time.UTC)
		if tm.Year() != y || int(tm.Month()) != mo || tm.Day() != d {
			return nil, ErrInvalidCast
		}
		days := tm.Unix() / 86400
		if days < math.MinInt32 || days > math.MaxInt32 {
			return nil, ErrInvalidCast
		}
		return int32(days), nil
	case arrow.BOOL:
		switch strings.ToLower(t) {
		case "t", "true", "y", "yes", "on", "1":
			return true, nil
		case "f", "false", "n", "no", "off", "0":
			return false, nil
		}
		return nil, ErrInvalidCast
	}
	panic("refParse")
}

// refExtract takes part from a date with the time package.
func refExtract(part DatePart, days int32) int64 {
	t := time.Unix(int64(days)*86400, 0).UTC()
	y := int64(t.Year())
	isoYear, week := t.ISOWeek()
	switch part {
	case PartYear:
		return y
	case PartQuarter:
		return int64(t.Month()+2) / 3
	case PartMonth:
		return int64(t.Month())
	case PartDay:
		return int64(t.Day())
	case PartDayOfWeek:
		return int64(t.Weekday())
	case PartISODayOfWeek:
		if t.Weekday() == time.Sunday {
			return 7
		}
		return int64(t.Weekday())
	case PartDayOfYear:
		return int64(t.YearDay())
	case PartWeek:
		return int64(week)
	case PartISOYear:
		return int64(isoYear)
	case PartYearWeek:
		if isoYear < 0 {
			return int64(isoYear)*100 - int64(week)
		}
		return int64(isoYear)*100 + int64(week)
	case PartDecade:
		return y / 10
	case PartCentury, PartMillennium:
		per := int64(100)
		if part == PartMillennium {
			per = 1000
		}
		if y > 0 {
			return (y + per - 1) / per
		}
		return -(-y/per + 1)
	case PartEra:
		if y > 0 {
			return 1
		}
		return 0
	case PartHour, PartMinute, PartSecond, PartMillisecond, PartMicrosecond:
		return 0 // a date is at midnight
	}
	panic("refExtract: " + part.String())
}

// refSubstring keeps the characters of s whose 0-based index k lies in
// the window substringExpr describes, computed in big integers.
func refSubstring(s string, start, length int64, hasLen bool) string {
	var chars []string
	for i := 0; i < len(s); {
		_, w := utf8.DecodeRuneInString(s[i:])
		chars = append(chars, s[i:i+w])
		i += w
	}
	n := big.NewInt(int64(len(chars)))
	first := big.NewInt(start)
	switch {
	case start > 0:
		first.Sub(first, big.NewInt(1))
	case start < 0:
		first.Add(first, n)
	default:
		first.SetInt64(-1)
	}
	lo, hi := new(big.Int).Set(first), new(big.Int).Add(first, big.NewInt(length))
	switch {
	case !hasLen:
		hi.Set(n)
	case length < 0:
		lo, hi = hi, first
	}
	var b strings.Builder
	for k, c := range chars {
		if kk := big.NewInt(int64(k)); kk.Cmp(lo) >= 0 && kk.Cmp(hi) < 0 {
			b.WriteString(c)
		}
	}
	return b.String()
}

// refDateArith is DATE - DATE (days), DATE ± BIGINT and BIGINT + DATE in
// big integers.
func refDateArith(op string, a, b any) (any, error) {
	if x, ok := a.(int32); ok {
		if y, ok := b.(int32); ok {
			return int64(x) - int64(y), nil
		}
	}
	var d int32
	var k int64
	switch x := a.(type) {
	case int32:
		d, k = x, b.(int64)
	case int64:
		d, k = b.(int32), x
	}
	v := new(big.Int).SetInt64(k)
	if op == "-" {
		v.Neg(v)
	}
	v.Add(v, big.NewInt(int64(d)))
	if !v.IsInt64() || v.Int64() < math.MinInt32 || v.Int64() > math.MaxInt32 {
		return nil, ErrOverflow
	}
	return int32(v.Int64()), nil
}
