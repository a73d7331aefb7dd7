package query

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/quiverdb/quiver/query/expr"
)

// A GROUP BY key that is a bare column the cache keeps as dictionaries is
// handed to the aggregator as stored, codes and dictionary, not decoded:
// agg.HashAggregator.Add takes a dictionary of a key's type, and groups a
// lone such key by its codes (agg/dictkeys.go), hashing each value a
// batch uses once instead of every row's. BenchmarkDictionaryGroupBy
// measures it against the same rows stored plain.
//
// dictKey is that key: it evaluates to the stored dictionary array, and
// its Type is the dictionary's value type, the key type the aggregator is
// built with. Only the aggregate operators evaluate GROUP BY keys; where
// they send keys on (the exchange's routing, the shuffle spill's map
// outputs) they decode them first (decodeDictKeys).
type dictKey struct {
	stored expr.Expr // the table column as stored: a dictionary
	vt     arrow.DataType
}

func (k *dictKey) Type() arrow.DataType { return k.vt }
func (k *dictKey) String() string       { return k.stored.String() }

func (k *dictKey) Eval(ctx context.Context, mem memory.Allocator, batch arrow.RecordBatch) (arrow.Array, error) {
	return k.stored.Eval(ctx, mem, batch)
}

// groupsByCodes reports whether a GROUP BY key over a column of stored
// type t can be a dictKey: a dictionary whose values are already of their
// engine type and group as they are (an interval is normalized first, so
// it is not one).
func groupsByCodes(t arrow.DataType) (arrow.DataType, bool) {
	d, ok := t.(*arrow.DictionaryType)
	if !ok || expr.IsNested(d.ValueType) || d.ValueType.ID() == arrow.INTERVAL_MONTH_DAY_NANO {
		return nil, false
	}
	et, ok := expr.EngineType(d.ValueType)
	return d.ValueType, ok && arrow.TypeEqual(et, d.ValueType)
}

// dictKeyOf returns the GROUP BY key for table column i as a dictKey when
// its stored type groups by codes and its stored array is in the batch
// (readAbove asks for it), else nil.
func (b *builder) dictKeyOf(i int) expr.Expr {
	vt, ok := groupsByCodes(b.info.Schema.Field(i).Type)
	if !ok {
		return nil
	}
	if _, ok := b.lay.stored[i]; !ok {
		return nil
	}
	return &dictKey{stored: b.lay.storedRef(i), vt: vt}
}

// groupKeyByCodes returns the dictKey for GROUP BY node when it is a bare
// column of the table that groups by codes, else nil.
func (b *builder) groupKeyByCodes(node ast.ExprNode, sc scope) expr.Expr {
	c, ok := unparen(node).(*ast.ColumnNameExpr)
	if _, isTable := sc.(*tableScope); !ok || !isTable {
		return nil
	}
	i, err := b.tableColumn(c)
	if err != nil {
		return nil
	}
	return b.dictKeyOf(i)
}

// unwrapDictKey returns the stored column under a dictKey, for the
// planner's estimates, or k.
func unwrapDictKey(k expr.Expr) expr.Expr {
	if d, ok := k.(*dictKey); ok {
		return d.stored
	}
	return k
}

// decodeDictKeys replaces the dictionary arrays among keys (dictKey's
// values) by their values, for the paths that route or spill keys; it
// releases what it replaces.
func decodeDictKeys(ctx context.Context, mem memory.Allocator, keys []arrow.Array) error {
	for i, k := range keys {
		d, ok := k.(*array.Dictionary)
		if !ok {
			continue
		}
		v, err := expr.ToEngine(ctx, mem, d)
		if err != nil {
			return err
		}
		k.Release()
		keys[i] = v
	}
	return nil
}

func isDictKey(k expr.Expr) bool {
	_, ok := k.(*dictKey)
	return ok
}
