package server

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
)

// checkNestedAccess: the list, struct, map and union columns of the
// all-types table are read into through the server — first and last
// element, length, fields, a filter on an element, a map's entries and a
// key's value, a union's tag, members and IS NULL — and each answer is checked against the values read out
// of the Arrow arrays that were ingested.
func checkNestedAccess(t *testing.T, ctx context.Context, cl *flightsql.Client, schema *arrow.Schema, rec arrow.RecordBatch, ingested []string) {
	t.Helper()
	checked := 0
	for i, f := range schema.Fields() {
		if !slices.Contains(ingested, f.Name) {
			continue
		}
		col, q := rec.Column(i), strconv.Quote(f.Name)
		table := "t_" + f.Name
		var cases []struct {
			sql  string
			want []string
		}
		add := func(sql string, want []string) {
			cases = append(cases, struct {
				sql  string
				want []string
			}{strings.NewReplacer("$c", q, "$t", table).Replace(sql), want})
		}
		switch c := col.(type) {
		case array.ListLike:
			if m, ok := c.(*array.Map); ok { // m[k] and cardinality(m)
				key, card, val := "", make([]string, m.Len()), make([]string, m.Len())
				for r := range m.Len() {
					if start, end := m.ValueOffsets(r); m.IsValid(r) && end > start && key == "" {
						key = m.Keys().ValueStr(int(start))
					}
				}
				for r := range m.Len() {
					card[r], val[r] = "(null)", "(null)"
					if m.IsNull(r) {
						continue
					}
					start, end := m.ValueOffsets(r)
					card[r] = strconv.FormatInt(end-start, 10)
					for j := start; j < end; j++ {
						if m.Keys().ValueStr(int(j)) == key {
							val[r] = engineStr(m.Items(), int(j))
							break
						}
					}
				}
				add(`SELECT cardinality($c) FROM $t`, card)
				add(`SELECT $c['`+key+`'] FROM $t`, val)
				break
			}
			first, last, length := make([]string, c.Len()), make([]string, c.Len()), make([]string, c.Len())
			positive := 0
			for r := range c.Len() {
				first[r], last[r], length[r] = "(null)", "(null)", "(null)"
				if c.IsNull(r) {
					continue
				}
				start, end := c.ValueOffsets(r)
				length[r] = strconv.FormatInt(end-start, 10)
				if end > start {
					first[r], last[r] = engineStr(c.ListValues(), int(start)), engineStr(c.ListValues(), int(end-1))
					if v, err := strconv.ParseFloat(first[r], 64); err == nil && v > 0 {
						positive++
					}
				}
			}
			add(`SELECT $c[1] FROM $t`, first)
			add(`SELECT $c[-1] FROM $t`, last)
			add(`SELECT len($c) FROM $t`, length)
			if et := c.ListValues().DataType(); et.ID() != arrow.STRING {
				add(`SELECT count(*) FROM $t WHERE $c[1] > 0`, []string{strconv.Itoa(positive)})
			}
		case *array.Struct:
			st := f.Type.(*arrow.StructType)
			for fi, sf := range st.Fields() {
				want := make([]string, c.Len())
				for r := range c.Len() {
					want[r] = "(null)"
					if c.IsValid(r) {
						want[r] = engineStr(c.Field(fi), r)
					}
				}
				add(`SELECT $c.`+sf.Name+` FROM $t`, want)
				add(`SELECT $c['`+sf.Name+`'] FROM $t`, want)
			}
		case array.Union:
			fields := f.Type.(arrow.UnionType).Fields()
			tags, null := make([]string, c.Len()), make([]string, c.Len())
			members := make([][]string, len(fields))
			for m := range members {
				members[m] = make([]string, c.Len())
			}
			for r := range c.Len() {
				child, pos := c.ChildID(r), r // arrow-go slices a sparse union's children to its rows
				if d, ok := c.(*array.DenseUnion); ok {
					pos = int(d.ValueOffset(r))
				}
				tags[r] = fields[child].Name
				null[r] = strconv.FormatBool(c.Field(child).IsNull(pos))
				for m := range members {
					members[m][r] = "(null)"
				}
				members[child][r] = engineStr(c.Field(child), pos)
			}
			add(`SELECT union_tag($c) FROM $t`, tags)
			add(`SELECT $c IS NULL FROM $t`, null)
			for m, mf := range fields {
				add(`SELECT union_extract($c, '`+mf.Name+`') FROM $t`, members[m])
			}
		default:
			continue
		}
		for _, tc := range cases {
			got, err := fetch(t, cl, ctx, tc.sql)
			if err != nil {
				t.Errorf("%s: %v", tc.sql, err)
				continue
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("%s: %d rows differ from the ingested values (first: %v, want %v)", tc.sql, len(got), head(got), head(tc.want))
			}
			checked++
		}
	}
	if checked == 0 {
		t.Error("no list or struct column was read into")
	}
	t.Logf("%d reads into lists and structs checked against the ingested values", checked)
}

func head(s []string) []string { return s[:min(len(s), 5)] }

// engineStr is value r of a, as the engine returns it: a float32 widened
// to float64, a dictionary decoded.
func engineStr(a arrow.Array, r int) string {
	if a.IsNull(r) {
		return "(null)"
	}
	switch v := a.(type) {
	case *array.Float32:
		return strconv.FormatFloat(float64(v.Value(r)), 'g', -1, 64)
	case *array.Dictionary:
		return engineStr(v.Dictionary(), v.GetValueIndex(r))
	}
	return a.ValueStr(r)
}
