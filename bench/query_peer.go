package bench

import (
	"context"
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// duckPeer is DuckDB holding the same lineitem in its own memory
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
		return a.Value(0)
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
