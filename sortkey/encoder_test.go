package sortkey_test

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/sortkey"
	"github.com/quiverdb/quiver/sortkey/sortkeytest"
)

func sign(x int) int {
	switch {
	case x < 0:
		return -1
	case x > 0:
		return 1
	}
	return 0
}

// checkOrder encodes cols and checks every pair of rows: the keys compare
// as the oracle does, and the 8-byte prefixes never contradict it.
func checkOrder(t *testing.T, cols []arrow.Array, fields []sortkey.SortField) {
	t.Helper()
	enc, err := sortkey.NewEncoder(fields)
	if err != nil {
		t.Fatal(err)
	}
	var rows sortkey.Rows
	if err := enc.Encode(&rows, cols); err != nil {
		t.Fatal(err)
	}
	n := cols[0].Len()
	if rows.Len() != n {
		t.Fatalf("%d keys for %d rows", rows.Len(), n)
	}
	want, err := sortkeytest.Comparator(cols, cols, fields)
	if err != nil {
		t.Fatal(err)
	}
	bad := 0
	for i := range n {
		for j := range n {
			got, exp := sign(bytes.Compare(rows.Row(i), rows.Row(j))), sign(want(i, j))
			if got != exp {
				if bad++; bad <= 5 {
					t.Errorf("rows %d, %d: keys compare %d, values %d\n  row %d: %s\n  row %d: %s\n  key %x\n  key %x",
						i, j, got, exp, i, rowString(cols, i), j, rowString(cols, j), rows.Row(i), rows.Row(j))
				}
			}
			if pi, pj := rows.Prefix(i), rows.Prefix(j); pi < pj && exp >= 0 {
				t.Fatalf("rows %d, %d: prefix %x < %x but the rows compare %d", i, j, pi, pj, exp)
			}
		}
	}
	if bad > 0 {
		t.Fatalf("%d of %d pairs ordered wrong", bad, n*n)
	}
}

func rowString(cols []arrow.Array, i int) string {
	var b bytes.Buffer
	for k, c := range cols {
		if k > 0 {
			b.WriteString(", ")
		}
		if c.IsNull(i) {
			b.WriteString("NULL")
		} else {
			fmt.Fprintf(&b, "%q", c.ValueStr(i))
		}
	}
	return b.String()
}

var directions = []struct{ desc, nullsFirst bool }{{false, false}, {false, true}, {true, false}, {true, true}}

// TestEveryTypeEveryDirection checks each type alone, in all four
// direction and NULL placements, against the oracle on every pair.
func TestEveryTypeEveryDirection(t *testing.T) {
	for _, typ := range sortkeytest.Types() {
		for _, d := range directions {
			f := sortkey.SortField{Type: typ, Desc: d.desc, NullsFirst: d.nullsFirst}
			t.Run(f.String(), func(t *testing.T) {
				mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
				defer mem.AssertSize(t, 0)
				r := rand.New(rand.NewPCG(uint64(typ.ID()), 7))
				col := sortkeytest.Column(mem, typ, 250, 40, 0.15, r)
				defer col.Release()
				checkOrder(t, []arrow.Array{col}, []sortkey.SortField{f})
			})
		}
	}
}

// TestMultiColumn checks random combinations of two to four columns with
// few distinct values each, so later columns decide most comparisons.
func TestMultiColumn(t *testing.T) {
	types := sortkeytest.Types()
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 60 {
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		k := 2 + r.IntN(3)
		var cols []arrow.Array
		var fields []sortkey.SortField
		for range k {
			typ := types[r.IntN(len(types))]
			d := directions[r.IntN(len(directions))]
			cols = append(cols, sortkeytest.Column(mem, typ, 200, 2+r.IntN(5), 0.2, r))
			fields = append(fields, sortkey.SortField{Type: typ, Desc: d.desc, NullsFirst: d.nullsFirst})
		}
		t.Run(fmt.Sprint(trial), func(t *testing.T) { checkOrder(t, cols, fields) })
		for _, c := range cols {
			c.Release()
		}
		mem.AssertSize(t, 0)
	}
}

// TestDictionariesDifferAcrossBatches: keys of two batches whose
// dictionaries hold the values in different orders still compare by
// value.
func TestDictionariesDifferAcrossBatches(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dt := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int16, ValueType: arrow.BinaryTypes.String}
	mk := func(dict []string, idx []int16) arrow.Array {
		db := array.NewStringBuilder(mem)
		defer db.Release()
		db.AppendValues(dict, nil)
		d := db.NewArray()
		defer d.Release()
		ib := array.NewInt16Builder(mem)
		defer ib.Release()
		ib.AppendValues(idx, nil)
		i := ib.NewArray()
		defer i.Release()
		return array.NewDictionaryArray(dt, i, d)
	}
	a := mk([]string{"pear", "apple", "fig"}, []int16{0, 1, 2}) // pear, apple, fig
	defer a.Release()
	b := mk([]string{"apple", "fig", "pear"}, []int16{2, 0, 1}) // pear, apple, fig
	defer b.Release()
	enc, err := sortkey.NewEncoder([]sortkey.SortField{{Type: dt}})
	if err != nil {
		t.Fatal(err)
	}
	var ra, rb sortkey.Rows
	if err := enc.Encode(&ra, []arrow.Array{a}); err != nil {
		t.Fatal(err)
	}
	if err := enc.Encode(&rb, []arrow.Array{b}); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if !bytes.Equal(ra.Row(i), rb.Row(i)) {
			t.Errorf("row %d: %x and %x for the same value", i, ra.Row(i), rb.Row(i))
		}
	}
	if ra.Compare(1, &rb, 0) >= 0 || ra.Compare(0, &rb, 2) <= 0 {
		t.Error("apple should sort before pear, pear after fig")
	}
}

// TestEncodeAppends: keys append after what dst holds, and the earlier
// keys survive.
func TestEncodeAppends(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	r := rand.New(rand.NewPCG(3, 4))
	fields := []sortkey.SortField{{Type: arrow.BinaryTypes.String}, {Type: arrow.PrimitiveTypes.Int32, Desc: true}}
	enc, err := sortkey.NewEncoder(fields)
	if err != nil {
		t.Fatal(err)
	}
	var all, one sortkey.Rows
	var want [][]byte
	for range 3 {
		s := sortkeytest.Column(mem, fields[0].Type, 50, 10, 0.1, r)
		i := sortkeytest.Column(mem, fields[1].Type, 50, 10, 0.1, r)
		one.Reset()
		if err := enc.Encode(&one, []arrow.Array{s, i}); err != nil {
			t.Fatal(err)
		}
		for k := range one.Len() {
			want = append(want, bytes.Clone(one.Row(k)))
		}
		if err := enc.Encode(&all, []arrow.Array{s, i}); err != nil {
			t.Fatal(err)
		}
		s.Release()
		i.Release()
	}
	if all.Len() != len(want) {
		t.Fatalf("%d keys, want %d", all.Len(), len(want))
	}
	for k := range want {
		if !bytes.Equal(all.Row(k), want[k]) {
			t.Fatalf("key %d: %x, want %x", k, all.Row(k), want[k])
		}
	}
}

func TestEmptyBatch(t *testing.T) {
	enc, err := sortkey.NewEncoder([]sortkey.SortField{{Type: arrow.BinaryTypes.String}})
	if err != nil {
		t.Fatal(err)
	}
	b := array.NewStringBuilder(memory.DefaultAllocator)
	defer b.Release()
	a := b.NewArray()
	defer a.Release()
	var rows sortkey.Rows
	if err := enc.Encode(&rows, []arrow.Array{a}); err != nil || rows.Len() != 0 {
		t.Fatalf("Encode of no rows: %v, %d keys", err, rows.Len())
	}
}

func TestErrors(t *testing.T) {
	for _, typ := range []arrow.DataType{
		arrow.MapOf(arrow.PrimitiveTypes.Int32, arrow.FixedWidthTypes.MonthInterval), // a map holding a type with no order
		arrow.StructOf(arrow.Field{Name: "a", Type: arrow.FixedWidthTypes.MonthInterval}),
		arrow.FixedWidthTypes.MonthInterval, arrow.FixedWidthTypes.DayTimeInterval,
		arrow.RunEndEncodedOf(arrow.PrimitiveTypes.Int32, arrow.BinaryTypes.String),
		&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.ListOf(arrow.FixedWidthTypes.DayTimeInterval)},
		nil,
	} {
		if _, err := sortkey.NewEncoder([]sortkey.SortField{{Type: typ}}); !errors.Is(err, sortkey.ErrUnsupported) {
			t.Errorf("%v: %v, want ErrUnsupported", typ, err)
		}
		if typ != nil && sortkey.Supported(typ) {
			t.Errorf("Supported(%s)", typ)
		}
	}

	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	r := rand.New(rand.NewPCG(5, 6))
	i32 := sortkeytest.Column(mem, arrow.PrimitiveTypes.Int32, 10, 5, 0, r)
	defer i32.Release()
	i64 := sortkeytest.Column(mem, arrow.PrimitiveTypes.Int64, 10, 5, 0, r)
	defer i64.Release()
	short := sortkeytest.Column(mem, arrow.PrimitiveTypes.Int64, 9, 5, 0, r)
	defer short.Release()
	enc, err := sortkey.NewEncoder([]sortkey.SortField{{Type: arrow.PrimitiveTypes.Int32}, {Type: arrow.PrimitiveTypes.Int64}})
	if err != nil {
		t.Fatal(err)
	}
	var rows sortkey.Rows
	for name, cols := range map[string][]arrow.Array{
		"count":  {i32},
		"type":   {i64, i64},
		"length": {i32, short},
	} {
		if err := enc.Encode(&rows, cols); !errors.Is(err, sortkey.ErrInput) {
			t.Errorf("%s: %v, want ErrInput", name, err)
		}
		if rows.Len() != 0 || rows.DataBytes() != 0 {
			t.Errorf("%s: a failed Encode left %d keys", name, rows.Len())
		}
	}
}

// TestDictionaryIndexOutOfRange: an index past the dictionary is an error,
// not a panic.
func TestDictionaryIndexOutOfRange(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	dt := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.PrimitiveTypes.Int64}
	db := array.NewInt64Builder(mem)
	db.AppendValues([]int64{1, 2}, nil)
	d := db.NewArray()
	db.Release()
	ib := array.NewInt32Builder(mem)
	ib.AppendValues([]int32{0, 7}, nil)
	idx := ib.NewArray()
	ib.Release()
	// NewDictionaryArray does not check indices; build the data directly.
	data := array.NewDataWithDictionary(dt, 2, idx.Data().Buffers(), 0, 0, d.Data().(*array.Data))
	col := array.MakeFromData(data)
	data.Release()
	idx.Release()
	d.Release()
	defer col.Release()
	enc, err := sortkey.NewEncoder([]sortkey.SortField{{Type: dt}})
	if err != nil {
		t.Fatal(err)
	}
	var rows sortkey.Rows
	if err := enc.Encode(&rows, []arrow.Array{col}); !errors.Is(err, sortkey.ErrInput) {
		t.Fatalf("index 7 of 2 values: %v, want ErrInput", err)
	}
}

// TestGolden pins a few encodings byte for byte (doc.go's examples).
func TestGolden(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	sb := array.NewStringBuilder(mem)
	sb.AppendValues([]string{"", "a", "a\x00", "ab"}, nil)
	sb.AppendNull()
	s := sb.NewArray()
	sb.Release()
	defer s.Release()
	ib := array.NewInt32Builder(mem)
	ib.AppendValues([]int32{-1, 0, 1, -2147483648, 0}, []bool{true, true, true, true, false})
	i := ib.NewArray()
	ib.Release()
	defer i.Release()
	for _, c := range []struct {
		f    sortkey.SortField
		col  arrow.Array
		want []string
	}{
		{sortkey.SortField{Type: s.DataType()}, s, []string{"010001", "01610001", "016100ff0001", "0161620001", "02"}},
		{sortkey.SortField{Type: s.DataType(), Desc: true, NullsFirst: true}, s, []string{"01fffe", "019efffe", "019eff00fffe", "019e9dfffe", "00"}},
		{sortkey.SortField{Type: i.DataType()}, i, []string{"017fffffff", "0180000000", "0180000001", "0100000000", "0200000000"}},
		{sortkey.SortField{Type: i.DataType(), Desc: true}, i, []string{"0180000000", "017fffffff", "017ffffffe", "01ffffffff", "0200000000"}},
	} {
		enc, err := sortkey.NewEncoder([]sortkey.SortField{c.f})
		if err != nil {
			t.Fatal(err)
		}
		var rows sortkey.Rows
		if err := enc.Encode(&rows, []arrow.Array{c.col}); err != nil {
			t.Fatal(err)
		}
		for k, w := range c.want {
			if got := fmt.Sprintf("%x", rows.Row(k)); got != w {
				t.Errorf("%s row %d: %s, want %s", c.f, k, got, w)
			}
		}
	}
}

// TestIntervalKeys: month_day_nano intervals order by months, then days,
// then nanoseconds, each signed, ascending and descending, NULLs where
// asked.
func TestIntervalKeys(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	vals := []arrow.MonthDayNanoInterval{
		{Months: -1, Days: 5, Nanoseconds: 0}, {Months: 0, Days: -3, Nanoseconds: 7}, {Months: 0, Days: 0, Nanoseconds: -1},
		{Months: 0, Days: 0, Nanoseconds: 0}, {Months: 0, Days: 0, Nanoseconds: 1}, {Months: 0, Days: 1, Nanoseconds: -5}, {Months: 2, Days: -40, Nanoseconds: 0},
	}
	b := array.NewMonthDayNanoIntervalBuilder(mem)
	defer b.Release()
	for i := len(vals) - 1; i >= 0; i-- { // reversed
		b.Append(vals[i])
	}
	b.AppendNull()
	a := b.NewArray()
	defer a.Release()
	for _, desc := range []bool{false, true} {
		enc, err := sortkey.NewEncoder([]sortkey.SortField{{Type: a.DataType(), Desc: desc, NullsFirst: true}})
		if err != nil {
			t.Fatal(err)
		}
		var rows sortkey.Rows
		if err := enc.Encode(&rows, []arrow.Array{a}); err != nil {
			t.Fatal(err)
		}
		n := len(vals)
		for i := 0; i+1 < n; i++ { // row i holds vals[n-1-i]: descending values
			hi, lo := rows.Row(i), rows.Row(i+1)
			if got := bytes.Compare(lo, hi); got >= 0 != desc {
				t.Errorf("desc=%v: %v vs %v compare %d", desc, vals[n-2-i], vals[n-1-i], got)
			}
		}
		if bytes.Compare(rows.Row(n), rows.Row(0)) >= 0 {
			t.Errorf("desc=%v: NULLS FIRST: NULL is not first", desc)
		}
	}
}
