package bench

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// duckPeer is DuckDB holding the same TPC-H tables in its own memory
// (query_duckdb.go, built with -tags duckdb; query_noduckdb.go says it
// is missing otherwise).
type duckPeer interface {
	// run runs sql to the end and returns its answer's digest.
	run(ctx context.Context, sql string) (string, error)
	version() string
	close()
}

// ErrNoDuckDB is the peer's note in a binary built without DuckDB.
const ErrNoDuckDB = "DuckDB peer: build with -tags duckdb"

// digest is what the bench checks two engines agree on: the rows
// returned and the first column of the first row, enough to catch a
// wrong plan without comparing every value (package query/difftest
// does that).
type digest struct {
	rows  int64
	first string
}

func (d digest) String() string { return fmt.Sprintf("%d rows, first %s", d.rows, d.first) }

// firstValue formats row 0 of a result column as DuckDB's side does.
func firstValue(a arrow.Array) string {
	if a.IsNull(0) {
		return "NULL"
	}
	switch a := a.(type) {
	case *array.Int64:
		return strconv.FormatInt(a.Value(0), 10)
	case *array.String:
		// A copy: Value aliases the batch's buffer, which the recycling
		// allocator hands to another batch once this one is released.
		return strings.Clone(a.Value(0))
	case *array.Decimal128:
		return decimalString(a.Value(0).BigInt(), int(a.DataType().(*arrow.Decimal128Type).Scale))
	}
	return a.ValueStr(0)
}

// decimalString is an exact decimal without trailing zeros, so that
// decimals of different scales compare equal.
func decimalString(unscaled *big.Int, scale int) string {
	den := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil)
	s := new(big.Rat).SetFrac(unscaled, den).FloatString(scale)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// sameDigest says whether two digests (digest.String) agree: equal, or
// the same rows and first values that are numbers equal within the last
// place of the less precise one (quiver's decimal quotient against
// DuckDB's double, Q14 and Q17) or a relative 1e-9 (two doubles).
func sameDigest(a, b string) bool {
	if a == b {
		return true
	}
	ra, va, ok1 := strings.Cut(a, ", first ")
	rb, vb, ok2 := strings.Cut(b, ", first ")
	if !ok1 || !ok2 || ra != rb {
		return false
	}
	x, err1 := strconv.ParseFloat(va, 64)
	y, err2 := strconv.ParseFloat(vb, 64)
	if err1 != nil || err2 != nil {
		return false
	}
	places := min(fractionDigits(va), fractionDigits(vb))
	return math.Abs(x-y) <= 0.5*math.Pow10(-places) || math.Abs(x-y) <= 1e-9*math.Max(math.Abs(x), math.Abs(y))
}

func fractionDigits(s string) int {
	_, frac, ok := strings.Cut(s, ".")
	if !ok {
		return 0
	}
	return len(frac)
}

// openDuckPeer opens the DuckDB peer over tables at sf, logging what it
// took: the peer (nil when DuckDB is not built in or failed) and its
// version, or why there is none.
func openDuckPeer(ctx context.Context, sf float64, threads int, logf func(string, ...any), tables ...string) (duckPeer, string, string) {
	start := time.Now()
	duck, err := newDuckPeer(ctx, sf, threads, tables...)
	if err != nil {
		logf("bench: %v", err)
		return nil, "", err.Error()
	}
	logf("bench: %s loaded the same rows in %v", duck.version(), time.Since(start).Round(time.Millisecond))
	return duck, duck.version(), ""
}
