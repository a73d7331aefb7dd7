package query

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

func TestParamsBindEveryType(t *testing.T) {
	e, _ := newEngine(t, 100, 16)
	for _, tc := range []struct {
		sql    string
		params []any
		want   string
	}{
		{`SELECT id FROM orders WHERE id = ?`, []any{int64(5)}, "[5]"},
		{`SELECT id FROM orders WHERE id BETWEEN ? AND ? ORDER BY id`, []any{3, int32(4)}, "[3 4]"},
		{`SELECT id FROM orders WHERE grp = ? AND id < ? ORDER BY id`, []any{"b", uint8(10)}, "[2 5 8]"},
		{`SELECT id FROM orders WHERE grp = ? AND id < 5`, []any{[]byte("a")}, "[1 4]"},
		{`SELECT id FROM orders WHERE grp LIKE ? AND id < 5 ORDER BY id`, []any{"c%"}, "[3]"},
		{`SELECT id FROM orders WHERE ratio = ? AND id < 10 ORDER BY id`, []any{float32(0.5)}, "[3]"},
		{`SELECT id FROM orders WHERE flag = ? AND id < 5 ORDER BY id`, []any{true}, "[1 4]"},
		{`SELECT id FROM orders WHERE day = ?`, []any{arrow.Date32(10003)}, "[4]"},
		{`SELECT id FROM orders WHERE price = ?`, []any{Decimal{decimal128.FromI64(75), 5, 2}}, "[3]"},
		{`SELECT count(*) FROM orders WHERE id = ?`, []any{nil}, "[0]"},
		{`SELECT ? + id FROM orders WHERE id = 1`, []any{int64(41)}, "[42]"},
	} {
		got, _, err := runOrdered(t, e, tc.sql, tc.params...)
		if err != nil {
			t.Errorf("%s %v: %v", tc.sql, tc.params, err)
			continue
		}
		if fmt.Sprint(got) != tc.want {
			t.Errorf("%s %v: got %v, want %s", tc.sql, tc.params, got, tc.want)
		}
	}
}

func TestParamsErrors(t *testing.T) {
	e, _ := newEngine(t, 20, 16)
	for _, tc := range []struct {
		sql    string
		params []any
		want   string
	}{
		{`SELECT id FROM orders WHERE id = ?`, nil, "parameter 1 is not bound"},
		{`SELECT id FROM orders WHERE id = ? OR id = ?`, []any{int64(1)}, "parameter 2 is not bound: 1 of 2 bound"},
		{`SELECT id FROM orders`, []any{int64(1)}, "1 parameters bound, the statement has 0"},
		{`SELECT id FROM orders WHERE id = ?`, []any{struct{}{}}, "Go type struct {} cannot be bound"},
		{`SELECT id FROM orders WHERE price = ?`, []any{Decimal{decimal128.FromI64(1), 40, 2}}, "decimal(40, 2) is out of range"},
	} {
		_, _, err := runOrdered(t, e, tc.sql, tc.params...)
		if err == nil || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %v: got %v, want ErrInvalid with %q", tc.sql, tc.params, err, tc.want)
		}
	}
}

func TestPrepare(t *testing.T) {
	e, _ := newEngine(t, 20, 16)
	p, err := e.Prepare(`SELECT id, grp FROM orders WHERE id < 3`)
	if err != nil {
		t.Fatal(err)
	}
	if p.NumParams != 0 || p.Schema == nil || p.Schema.NumFields() != 2 {
		t.Fatalf("no parameters: got %+v", p)
	}
	p, err = e.Prepare(`SELECT id FROM orders WHERE id < ? AND grp LIKE ?`)
	if err != nil {
		t.Fatal(err)
	}
	if p.NumParams != 2 || p.Schema != nil {
		t.Fatalf("two parameters: got %+v", p)
	}
	for sql, kind := range map[string]error{
		`SELECT id FROM nowhere WHERE id = ?`:                                                  ErrNoTable,
		`SELECT id FROM orders a WHERE ? OR EXISTS (SELECT 1 FROM orders b WHERE b.id = a.id)`: ErrUnsupported,
		`SELEC id FROM orders`:    ErrSyntax,
		`SELECT nope FROM orders`: ErrInvalid,
	} {
		if _, err := e.Prepare(sql); !errors.Is(err, kind) {
			t.Errorf("%s: got %v, want %v", sql, err, kind)
		}
	}
	s, err := e.Schema(`EXPLAIN SELECT id FROM orders`)
	if err != nil || s.Field(0).Name != "plan" {
		t.Errorf("EXPLAIN schema: %v %v", s, err)
	}
}
