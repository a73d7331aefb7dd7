package query

import (
	"errors"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/quiverdb/quiver/query/expr"
)

// castByName plans quiver$cast(x, 'T') and quiver$try_cast(x, 'T'), the
// casts whose type the grammar lacks (parse_cast.go), with DuckDB's type
// names. Every integer type computes as BIGINT, the engine's integer, and
// a value outside the named type's range fails (TRY_CAST: NULL), as in
// DuckDB; FLOAT and REAL compute as DOUBLE; DECIMAL without a precision
// is DECIMAL(18,3), DuckDB's default.
func (b *builder) castByName(x *ast.FuncCallExpr, sc scope) (expr.Expr, error) {
	if len(x.Args) != 2 {
		return nil, b.at(ErrInvalid, x, "%s takes a value and a type name", x.FnName.O)
	}
	name, ok := stringLiteral(x.Args[1])
	if !ok {
		return nil, b.at(ErrInvalid, x, "%s: the type is a name", x.FnName.O)
	}
	try := x.FnName.L == tryCastFunc
	v, err := b.expr(x.Args[0], sc)
	if err != nil {
		return nil, err
	}
	t, err := castTarget(name)
	if err != nil {
		kind := ErrUnsupported
		if err == errDecimalRange {
			kind = ErrInvalid
		}
		return nil, b.at(kind, x, "CAST to %s: %v", name, err)
	}
	out, err := expr.CastIn(v, t.to, b.zone(), try)
	if err == nil && t.hi > t.lo {
		out, err = expr.IntRange(out, t.lo, t.hi, t.name, try)
	}
	return wrap(b, x)(out, err)
}

// castType is what a type name casts to: the engine type, and for an
// integer type narrower than BIGINT its range (lo < hi) and name.
type castType struct {
	to     arrow.DataType
	lo, hi int64
	name   string
}

// typeWithArgs splits a type name into its words and its numbers in
// parentheses.
var typeWithArgs = regexp.MustCompile(`^([A-Z_0-9 ]+?)\s*(?:\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\))?$`)

// castTarget maps a DuckDB or PostgreSQL type name to what a cast to it
// computes as.
func castTarget(name string) (castType, error) {
	m := typeWithArgs.FindStringSubmatch(strings.ToUpper(strings.TrimSpace(name)))
	if m == nil {
		return castType{}, errUnknownType
	}
	word := strings.Join(strings.Fields(m[1]), " ")
	ints := func(n string, lo, hi int64) (castType, error) {
		return castType{to: arrow.PrimitiveTypes.Int64, lo: lo, hi: hi, name: n}, nil
	}
	switch word {
	case "TINYINT", "INT1":
		return ints("TINYINT", math.MinInt8, math.MaxInt8)
	case "SMALLINT", "INT2", "INT16", "SHORT":
		return ints("SMALLINT", math.MinInt16, math.MaxInt16)
	case "INT", "INTEGER", "INT4", "INT32", "SIGNED":
		return ints("INTEGER", math.MinInt32, math.MaxInt32)
	case "BIGINT", "INT8", "INT64", "LONG":
		return castType{to: arrow.PrimitiveTypes.Int64}, nil
	case "UTINYINT":
		return ints("UTINYINT", 0, math.MaxUint8)
	case "USMALLINT":
		return ints("USMALLINT", 0, math.MaxUint16)
	case "UINTEGER":
		return ints("UINTEGER", 0, math.MaxUint32)
	case "HUGEINT", "INT128":
		return castType{to: &arrow.Decimal128Type{Precision: 38, Scale: 0}}, nil
	case "BOOLEAN", "BOOL", "LOGICAL":
		return castType{to: arrow.FixedWidthTypes.Boolean}, nil
	case "DOUBLE", "DOUBLE PRECISION", "FLOAT8", "FLOAT", "FLOAT4", "REAL":
		return castType{to: arrow.PrimitiveTypes.Float64}, nil
	case "DECIMAL", "NUMERIC", "DEC":
		p, s := 18, 3
		if m[2] != "" {
			p, _ = strconv.Atoi(m[2])
			s = 0
			if m[3] != "" {
				s, _ = strconv.Atoi(m[3])
			}
		}
		if p < 1 || p > maxDecimalPrecision || s > p {
			return castType{}, errDecimalRange
		}
		return castType{to: &arrow.Decimal128Type{Precision: int32(p), Scale: int32(s)}}, nil
	case "VARCHAR", "CHAR", "CHARACTER", "CHARACTER VARYING", "TEXT", "STRING", "BPCHAR", "NVARCHAR":
		return castType{to: arrow.BinaryTypes.String}, nil
	case "DATE":
		return castType{to: arrow.FixedWidthTypes.Date32}, nil
	case "TIMESTAMP", "DATETIME", "TIMESTAMP WITHOUT TIME ZONE":
		return castType{to: expr.TimestampType(false)}, nil
	case "TIMESTAMPTZ", "TIMESTAMP WITH TIME ZONE":
		return castType{to: expr.TimestampType(true)}, nil
	case "TIME", "TIME WITHOUT TIME ZONE":
		return castType{to: expr.TimeType()}, nil
	case "INTERVAL":
		return castType{to: expr.IntervalType()}, nil
	case "BLOB", "BYTEA", "BINARY", "VARBINARY":
		return castType{to: expr.BinaryType()}, nil
	}
	return castType{}, errUnknownType
}

var (
	errUnknownType  = errors.New("no such type in quiver (types: BOOLEAN, TINYINT, SMALLINT, INTEGER, BIGINT, HUGEINT, UTINYINT, USMALLINT, UINTEGER, REAL, DOUBLE, DECIMAL(p,s), VARCHAR, DATE, TIME, TIMESTAMP, TIMESTAMPTZ, INTERVAL, BLOB)")
	errDecimalRange = errors.New("DECIMAL(p,s): precision is 1 to 38 and scale at most the precision")
)
