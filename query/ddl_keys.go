package query

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/quiverdb/quiver/cache"
)

// Keys. A column declared PRIMARY KEY or UNIQUE (in its definition, or
// as a table constraint of that one column) is marked in its field's
// metadata (keyMeta), so the mark lives with the table's schema wherever
// the table is stored. INSERT refuses rows that would repeat a key: the
// new rows among themselves, then against the table, whose batches are
// read only where their statistics allow the new keys (cache.In prunes
// the rest), so inserting into a table keyed by a rising number reads
// about one batch. PRIMARY KEY is also NOT NULL; UNIQUE allows any
// number of NULLs (as in DuckDB and PostgreSQL). Keys of several columns
// are refused. An INSERT into a keyed table holds its new rows in memory
// until they are checked, and reads every batch of the table whose key
// range overlaps the new keys': random keys cost a scan of the key
// column per INSERT. Quiver keeps no index: a key is checked, never used to
// find rows, and CREATE INDEX (not UNIQUE) is accepted and does nothing,
// for scripts that make indexes to speed up other engines.

// keyMeta is the field metadata key marking a key column; its value is
// "primary" or "unique".
const keyMeta = "quiver.key"

// withKey returns f marked as a key of kind.
func withKey(f arrow.Field, kind string) arrow.Field {
	f.Metadata = arrow.NewMetadata([]string{keyMeta}, []string{kind})
	if kind == "primary" {
		f.Nullable = false
	}
	return f
}

// keyOf returns a field's key kind, "" when it is no key.
func keyOf(f arrow.Field) string {
	if i := f.Metadata.FindKey(keyMeta); i >= 0 {
		return f.Metadata.Values()[i]
	}
	return ""
}

// tableKeys applies CREATE TABLE's table constraints to fields.
func (n *changeNode) tableKeys(s *ast.CreateTableStmt, fields []arrow.Field) error {
	for _, c := range s.Constraints {
		kind := ""
		switch c.Tp {
		case ast.ConstraintPrimaryKey:
			kind = "primary"
		case ast.ConstraintUniq, ast.ConstraintUniqKey, ast.ConstraintUniqIndex:
			kind = "unique"
		default:
			return n.b.at(ErrUnsupported, c, "this table constraint (quiver checks PRIMARY KEY and UNIQUE of one column; no foreign keys, CHECK or indexes)")
		}
		if len(c.Keys) != 1 || c.Keys[0].Column == nil || c.Keys[0].Length > 0 {
			return n.b.at(ErrUnsupported, c, "a key of several columns, an expression or a prefix (quiver checks keys of one whole column)")
		}
		i := -1
		for k, f := range fields {
			if cache.FoldName(f.Name) == cache.FoldName(c.Keys[0].Column.Name.O) {
				i = k
			}
		}
		if i < 0 {
			return n.b.at(ErrInvalid, c, "the key names column %q, which the table does not have", c.Keys[0].Column.Name.O)
		}
		fields[i] = withKey(fields[i], kind)
	}
	return nil
}

// createIndex checks CREATE INDEX and does nothing (see above).
func (n *changeNode) createIndex(s *ast.CreateIndexStmt) error {
	if s.KeyType != ast.IndexKeyTypeNone {
		return n.b.at(ErrUnsupported, s, "CREATE UNIQUE INDEX (declare the column UNIQUE in CREATE TABLE)")
	}
	held, ok, err := n.heldTable(s.Table)
	if err != nil {
		return err
	}
	if !ok {
		return n.noTable(s.Table)
	}
	info, err := n.e.c.Info(held)
	if err != nil {
		return err
	}
	for _, p := range s.IndexPartSpecifications {
		if p.Column == nil {
			return n.b.at(ErrUnsupported, s, "an index on an expression")
		}
		if fieldIndexFold(info.Schema, p.Column.Name.O) < 0 {
			return n.b.at(ErrInvalid, p.Column, "table %q has no column %q", held, p.Column.Name.O)
		}
	}
	return nil
}

// hasKeys reports whether a schema has a key column.
func hasKeys(s *arrow.Schema) bool {
	for _, f := range s.Fields() {
		if keyOf(f) != "" {
			return true
		}
	}
	return false
}

// checkKeys refuses new rows (recs, of the table's schema) that repeat a
// key among themselves or of table.
func (n *changeNode) checkKeys(ctx context.Context, table string, recs []arrow.RecordBatch) error {
	if len(recs) == 0 {
		return nil
	}
	schema := recs[0].Schema()
	for col, f := range schema.Fields() {
		if keyOf(f) == "" {
			continue
		}
		seen := map[string]bool{}
		var vals []cache.Value
		prunable := true
		for _, r := range recs {
			arr := r.Column(col)
			for i := range arr.Len() {
				if arr.IsNull(i) {
					continue
				}
				k := arr.ValueStr(i)
				if seen[k] {
					return n.keyError(f, k)
				}
				seen[k] = true
				v, ok := keyValue(arr, i)
				prunable = prunable && ok
				vals = append(vals, v)
			}
		}
		if len(seen) == 0 {
			continue
		}
		opts := cache.ScanOptions{Columns: []int{col}}
		if prunable {
			opts.Filter = cache.In{Col: col, Vals: vals}
		}
		sc, err := n.e.c.Scan(ctx, table, opts)
		if err != nil {
			return err
		}
		for sc.Next() {
			arr := sc.RecordBatch().Column(0)
			for i := range arr.Len() {
				if !arr.IsNull(i) && seen[arr.ValueStr(i)] {
					k := arr.ValueStr(i)
					sc.Release()
					return n.keyError(f, k)
				}
			}
		}
		err = sc.Err()
		sc.Release()
		if err != nil {
			return err
		}
	}
	return nil
}

func (n *changeNode) keyError(f arrow.Field, k string) error {
	what := "UNIQUE"
	if keyOf(f) == "primary" {
		what = "PRIMARY KEY"
	}
	return &Error{Kind: ErrInvalid, Msg: fmt.Sprintf("duplicate key: column %q is %s and %s is already there", f.Name, what, k)}
}

// keyValue is value i of a key column as a cache.Value, for pruning;
// ok is false for types it does not convert.
func keyValue(arr arrow.Array, i int) (cache.Value, bool) {
	switch a := arr.(type) {
	case *array.Int8:
		return cache.Int(int64(a.Value(i))), true
	case *array.Int16:
		return cache.Int(int64(a.Value(i))), true
	case *array.Int32:
		return cache.Int(int64(a.Value(i))), true
	case *array.Int64:
		return cache.Int(a.Value(i)), true
	case *array.String:
		return cache.String(a.Value(i)), true
	}
	return cache.Value{}, false
}
