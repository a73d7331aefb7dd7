package batch

// Throwaway structure-aware explorer; not for commit.

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"time"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/batch/internal/meta"
	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/internal/testrec"
)

func TestZZExplore(t *testing.T) {
	if os.Getenv("EXPLORE") == "" {
		t.Skip()
	}
	mem0 := memory.NewGoAllocator()
	rec := testrec.Build(mem0, 40, 5)
	defer rec.Release()
	enc, _ := NewEncoder(rec.Schema(), WriteOptions{Codec: codec.SettingNone})
	msgs, err := enc.Encode(rec)
	if err != nil {
		t.Fatal(err)
	}
	var dictMsgs []Message
	for _, m := range msgs[:len(msgs)-1] {
		dictMsgs = append(dictMsgs, Message{Meta: bytes.Clone(m.Meta), Body: bytes.Clone(m.Body)})
	}
	last := msgs[len(msgs)-1]
	base, _ := meta.DecodeMessage(last.Meta, meta.DefaultLimits)
	baseBody := bytes.Clone(last.Body)
	seen := map[string]int{}
	okCount := 0
	examples := map[string]string{}
	r := rand.New(rand.NewPCG(uint64(len(os.Getenv("EXPLORE"))), 1))
	vals := []int64{0, 1, 2, 3, 7, 8, 15, 16, 39, 40, 41, 100, -1, 1 << 31, 1<<31 - 1}
	for it := 0; it < 20000; it++ {
		rb := *base.Record
		rb.Nodes = append([]meta.FieldNode(nil), rb.Nodes...)
		rb.Buffers = append([]meta.Buffer(nil), rb.Buffers...)
		rb.VariadicCounts = append([]int64(nil), rb.VariadicCounts...)
		body := bytes.Clone(baseBody)
		var desc []string
		for k := 0; k < 1+r.IntN(3); k++ {
			switch r.IntN(5) {
			case 0:
				i := r.IntN(len(rb.Nodes))
				v := vals[r.IntN(len(vals))]
				if v < 0 {
					v = 0
				}
				rb.Nodes[i].Length = v
				if rb.Nodes[i].NullCount > v {
					rb.Nodes[i].NullCount = v
				}
				desc = append(desc, fmt.Sprintf("node%d.len=%d", i, v))
			case 1:
				i := r.IntN(len(rb.Nodes))
				v := int64(r.IntN(int(rb.Nodes[i].Length) + 1))
				rb.Nodes[i].NullCount = v
				desc = append(desc, fmt.Sprintf("node%d.nulls=%d", i, v))
			case 2:
				i := r.IntN(len(rb.Buffers))
				v := rb.Buffers[i].Length
				if v > 0 {
					v = int64(r.IntN(int(v)))
				}
				rb.Buffers[i].Length = v
				desc = append(desc, fmt.Sprintf("buf%d.len=%d", i, v))
			default:
				i := r.IntN(len(rb.Buffers))
				b := rb.Buffers[i]
				if b.Length == 0 {
					continue
				}
				p := b.Offset + int64(r.IntN(int(b.Length)))
				if r.IntN(2) == 0 {
					body[p] = byte(r.Uint32())
				} else {
					p &^= 3
					if p+4 <= b.Offset+b.Length {
						binary.LittleEndian.PutUint32(body[p:], uint32(vals[r.IntN(len(vals))]))
					}
				}
				desc = append(desc, fmt.Sprintf("buf%d@%d", i, p-b.Offset))
			}
		}
		m := *base
		m.Record = &rb
		mb, err := meta.EncodeMessage(&m)
		if err != nil {
			t.Fatal(err)
		}
		msg := Message{Meta: mb, Body: body}
		func() {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			dec, _ := NewDecoder(rec.Schema(), ReadOptions{Alloc: mem})
			defer func() {
				if p := recover(); p != nil {
					key := fmt.Sprint(p)
					if len(key) > 120 {
						key = key[:120]
					}
					seen[key]++
					if _, ok := examples[key]; !ok {
						examples[key] = strings.Join(desc, " ")
					}
				}
			}()
			defer func() {
				if mem.CurrentAlloc() != 0 {
					dec.Release()
					if mem.CurrentAlloc() != 0 {
						panic(fmt.Sprintf("leak %d", mem.CurrentAlloc()))
					}
				}
			}()
			defer dec.Release()
			for _, dm := range dictMsgs {
				if _, err := dec.Decode(dm); err != nil {
					panic(err)
				}
			}
			got, err := dec.Decode(msg)
			if err != nil {
				checkErr(t, err)
				return
			}
			touch(got)
			got.Release()
			okCount++
		}()
	}
	keys := make([]string, 0, len(seen))
	for k := range seen {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Logf("%6d  %s\n        e.g. %s", seen[k], k, examples[k])
	}
	t.Logf("ok %d", okCount)
	names := []string{}
	_ = names
}

func TestZZNulls(t *testing.T) {
	if os.Getenv("EXPLORE") == "" {
		t.Skip()
	}
	rec := testrec.Build(memory.NewGoAllocator(), 40, 5)
	defer rec.Release()
	enc, _ := NewEncoder(rec.Schema(), WriteOptions{Codec: codec.SettingNone})
	msgs, _ := enc.Encode(rec)
	last := msgs[len(msgs)-1]
	base, _ := meta.DecodeMessage(last.Meta, meta.DefaultLimits)
	for i := range base.Record.Nodes {
		rb := *base.Record
		rb.Nodes = append([]meta.FieldNode(nil), rb.Nodes...)
		if rb.Nodes[i].Length == 0 {
			continue
		}
		rb.Nodes[i].NullCount = 1
		m := *base
		m.Record = &rb
		mb, _ := meta.EncodeMessage(&m)
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Logf("node %d: panic %v", i, p)
				}
			}()
			dec, _ := NewDecoder(rec.Schema(), ReadOptions{})
			defer dec.Release()
			for _, dm := range msgs[:len(msgs)-1] {
				dec.Decode(dm)
			}
			got, err := dec.Decode(Message{Meta: mb, Body: last.Body})
			if err != nil {
				t.Logf("node %d: %v", i, err)
				return
			}
			defer got.Release()
			touch(got)
			t.Logf("node %d: ok", i)
		}()
	}
}

// sparseUnionMsgs encodes a one-column sparse union record (all rows in
// child 0) and returns the schema and its record batch message parsed.
func TestZZSparse(t *testing.T) {
	if os.Getenv("EXPLORE") == "" {
		t.Skip()
	}
	mem := memory.NewGoAllocator()
	ut := arrow.SparseUnionOf([]arrow.Field{
		{Name: "i", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	}, []arrow.UnionTypeCode{0, 1})
	schema := arrow.NewSchema([]arrow.Field{{Name: "u", Type: ut}}, nil)
	b := array.NewRecordBuilder(mem, schema)
	ub := b.Field(0).(*array.SparseUnionBuilder)
	for i := range 5 {
		ub.Append(0)
		ub.Child(0).(*array.Int32Builder).Append(int32(i))
		ub.Child(1).AppendEmptyValue()
	}
	rec := b.NewRecordBatch()
	enc, _ := NewEncoder(schema, WriteOptions{})
	msgs, _ := enc.Encode(rec)
	m, _ := meta.DecodeMessage(msgs[0].Meta, meta.DefaultLimits)
	t.Logf("%+v", m.Record)
	m.Record.Nodes[2].Length = 0
	mb, _ := meta.EncodeMessage(m)
	dec, _ := NewDecoder(schema, ReadOptions{})
	got, err := dec.Decode(Message{Meta: mb, Body: msgs[0].Body})
	t.Log(err)
	if err == nil {
		touch(got)
	}
}

func TestZZEmpty(t *testing.T) {
	if os.Getenv("EXPLORE") == "" {
		t.Skip()
	}
	mem := memory.NewGoAllocator()
	rec := testrec.Build(mem, 0, 1)
	for _, s := range []codec.Setting{codec.SettingNone, codec.SettingLZ4} {
		var sb bytes.Buffer
		sw, _ := NewStreamWriter(&sb, rec.Schema(), WriteOptions{Codec: s})
		sw.Write(rec)
		sw.Close()
		r, err := NewStreamReader(bytes.NewReader(sb.Bytes()), ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range got.Columns() {
			func() {
				defer func() {
					if p := recover(); p != nil {
						t.Logf("col %d %s: %v", i, c.DataType(), p)
					}
				}()
				_ = c.String()
				if err := validateArray(c); err != nil {
					t.Logf("col %d: %v", i, err)
				}
			}()
		}
	}
}

func TestZZDelta(t *testing.T) {
	if os.Getenv("EXPLORE") == "" {
		t.Skip()
	}
	src := testrec.Build(memory.NewGoAllocator(), 30, 9)
	defer src.Release()
	for ci, f := range src.Schema().Fields() {
		if f.Type.ID() == arrow.DICTIONARY {
			continue
		}
		dt := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: f.Type}
		schema := arrow.NewSchema([]arrow.Field{{Name: "d", Type: dt, Nullable: true}}, nil)
		ib := array.NewInt32Builder(memory.NewGoAllocator())
		for i := range 30 {
			ib.Append(int32(i))
		}
		idx := ib.NewArray()
		da := array.NewDictionaryArray(dt, idx, src.Column(ci))
		rec := array.NewRecordBatch(schema, []arrow.Array{da}, 30)
		enc, err := NewEncoder(schema, WriteOptions{})
		if err != nil {
			t.Logf("%s: %v", f.Type, err)
			continue
		}
		msgs, err := enc.Encode(rec)
		if err != nil {
			t.Logf("%s: %v", f.Type, err)
			continue
		}
		m, _ := meta.DecodeMessage(msgs[0].Meta, meta.DefaultLimits)
		m.Dictionary.IsDelta = true
		delta := Message{Meta: mustEncode(m), Body: msgs[0].Body}
		func() {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer func() {
				if p := recover(); p != nil {
					t.Logf("%s: PANIC %v", f.Type, p)
				}
			}()
			dec, _ := NewDecoder(schema, ReadOptions{Alloc: mem})
			if _, err := dec.Decode(msgs[0]); err != nil {
				t.Logf("%s: first: %v", f.Type, err)
			}
			if _, err := dec.Decode(delta); err != nil {
				t.Logf("%s: delta: %v", f.Type, err)
			}
			got, err := dec.Decode(msgs[1])
			if err != nil {
				t.Logf("%s: rec: %v", f.Type, err)
			} else {
				touch(got)
				got.Release()
			}
			dec.Release()
			if mem.CurrentAlloc() != 0 {
				t.Logf("%s: LEAK %d", f.Type, mem.CurrentAlloc())
			}
		}()
	}
}

func TestZZPkgValidate(t *testing.T) {
	if os.Getenv("EXPLORE") == "" {
		t.Skip()
	}
	streams, _ := seedStreams(t)
	for si, s := range streams {
		r, err := NewStreamReader(bytes.NewReader(s), ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		rec, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range rec.Columns() {
			if err := array.ValidateFull(c); err != nil {
				t.Logf("seed %d col %d %s: %v", si, i, c.DataType(), err)
			}
		}
	}
}

func TestZZFSB0(t *testing.T) {
	if os.Getenv("EXPLORE") == "" {
		t.Skip()
	}
	mem := memory.NewGoAllocator()
	dt := &arrow.FixedSizeBinaryType{ByteWidth: 0}
	b := array.NewFixedSizeBinaryBuilder(mem, dt)
	b.Append([]byte{})
	b.AppendNull()
	b.Append(nil)
	a := b.NewArray()
	t.Logf("built: %v validate: %v", a, array.ValidateFull(a))
	rec := oneColumn("f", a)
	var sb bytes.Buffer
	w, err := NewStreamWriter(&sb, rec.Schema(), WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	w.Close()
	r, err := NewStreamReader(bytes.NewReader(sb.Bytes()), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.Next()
	t.Logf("decode: %v", err)
	if err == nil {
		t.Logf("validate: %v", validateArray(got.Column(0)))
		t.Log(got.Column(0))
	}
}

func TestZZTypeConfusion(t *testing.T) {
	if os.Getenv("EXPLORE") == "" {
		t.Skip()
	}
	src := testrec.Build(memory.NewGoAllocator(), 40, 5)
	defer src.Release()
	all := src.Schema().Fields()
	extra := []arrow.DataType{
		&arrow.FixedSizeBinaryType{ByteWidth: 1}, &arrow.FixedSizeBinaryType{ByteWidth: 16},
		arrow.FixedSizeListOf(1, arrow.PrimitiveTypes.Int8), arrow.ListOf(arrow.Null), arrow.StructOf(),
		arrow.ListOf(arrow.BinaryTypes.StringView), arrow.MapOf(arrow.PrimitiveTypes.Int32, arrow.BinaryTypes.String),
		arrow.RunEndEncodedOf(arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Int8),
		arrow.RunEndEncodedOf(arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.Binary),
		&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Uint64, ValueType: arrow.BinaryTypes.LargeString},
		&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.ListOf(arrow.PrimitiveTypes.Int32)},
		arrow.SparseUnionOf([]arrow.Field{{Name: "a", Type: arrow.Null, Nullable: true}}, []arrow.UnionTypeCode{3}),
		arrow.DenseUnionOf([]arrow.Field{{Name: "a", Type: arrow.BinaryTypes.String, Nullable: true}, {Name: "b", Type: arrow.PrimitiveTypes.Int8, Nullable: true}}, []arrow.UnionTypeCode{1, 0}),
		arrow.StructOf(arrow.Field{Name: "x", Type: arrow.BinaryTypes.BinaryView, Nullable: true}),
	}
	var types []arrow.DataType
	for _, f := range all {
		types = append(types, f.Type)
	}
	types = append(types, extra...)
	for _, codecS := range []codec.Setting{codec.SettingNone, codec.SettingLZ4} {
		enc, _ := NewEncoder(src.Schema(), WriteOptions{Codec: codecS})
		msgs, err := enc.Encode(src)
		if err != nil {
			t.Fatal(err)
		}
		var copies []Message
		for _, m := range msgs {
			copies = append(copies, Message{Meta: bytes.Clone(m.Meta), Body: bytes.Clone(m.Body)})
		}
		r := rand.New(rand.NewPCG(uint64(len(os.Getenv("EXPLORE"))), 2))
		seen := map[string]int{}
		examples := map[string]string{}
		okCount, errCount := 0, 0
		for it := 0; it < 100000; it++ {
			fields := make([]arrow.Field, len(all))
			for i := range fields {
				dt := all[i].Type
				if r.IntN(3) == 0 {
					dt = types[r.IntN(len(types))]
				}
				fields[i] = arrow.Field{Name: all[i].Name, Type: dt, Nullable: true}
			}
			schema := arrow.NewSchema(fields, nil)
			func() {
				mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
				defer func() {
					if p := recover(); p != nil {
						key := fmt.Sprint(p)
						if len(key) > 150 {
							key = key[:150]
						}
						seen[key]++
						if _, ok := examples[key]; !ok {
							examples[key] = schema.String()
						}
					}
				}()
				dec, err := NewDecoder(schema, ReadOptions{Alloc: mem})
				if err != nil {
					return
				}
				defer func() {
					dec.Release()
					if mem.CurrentAlloc() != 0 {
						panic(fmt.Sprintf("leak %d", mem.CurrentAlloc()))
					}
				}()
				for _, m := range copies {
					got, err := dec.Decode(m)
					if err != nil {
						checkErr(t, err)
						errCount++
						return
					}
					if got != nil {
						touch(got)
						got.Release()
						okCount++
					}
				}
			}()
		}
		t.Logf("%s: ok %d err %d", codecS, okCount, errCount)
		for k, v := range seen {
			t.Logf("%6d %s\n      e.g. %s", v, k, examples[k])
		}
	}
}

func TestZZTypeConfusion1(t *testing.T) {
	if os.Getenv("EXPLORE") == "" {
		t.Skip()
	}
	src := testrec.Build(memory.NewGoAllocator(), 40, 5)
	defer src.Release()
	all := src.Schema().Fields()
	extra := []arrow.DataType{
		&arrow.FixedSizeBinaryType{ByteWidth: 1}, &arrow.FixedSizeBinaryType{ByteWidth: 16},
		arrow.FixedSizeListOf(1, arrow.PrimitiveTypes.Int8), arrow.ListOf(arrow.Null), arrow.StructOf(),
		arrow.ListOf(arrow.BinaryTypes.StringView), arrow.MapOf(arrow.PrimitiveTypes.Int32, arrow.BinaryTypes.String),
		arrow.RunEndEncodedOf(arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Int8),
		arrow.RunEndEncodedOf(arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.Binary),
		&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Uint64, ValueType: arrow.BinaryTypes.LargeString},
		&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.ListOf(arrow.PrimitiveTypes.Int32)},
		&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.Binary},
		&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int16, ValueType: arrow.PrimitiveTypes.Int64},
		&arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Uint8, ValueType: arrow.BinaryTypes.StringView},
		arrow.SparseUnionOf([]arrow.Field{{Name: "a", Type: arrow.Null, Nullable: true}}, []arrow.UnionTypeCode{3}),
		arrow.DenseUnionOf([]arrow.Field{{Name: "a", Type: arrow.BinaryTypes.String, Nullable: true}, {Name: "b", Type: arrow.PrimitiveTypes.Int8, Nullable: true}}, []arrow.UnionTypeCode{1, 0}),
		arrow.StructOf(arrow.Field{Name: "x", Type: arrow.BinaryTypes.BinaryView, Nullable: true}),
		arrow.ListViewOf(arrow.BinaryTypes.String), arrow.LargeListViewOf(arrow.Null),
		arrow.ListOf(arrow.StructOf(arrow.Field{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true})),
		arrow.StructOf(arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int8, Nullable: true}, arrow.Field{Name: "b", Type: arrow.PrimitiveTypes.Int64}),
		arrow.FixedSizeListOf(2, arrow.PrimitiveTypes.Int64),
		arrow.RunEndEncodedOf(arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64),
	}
	var types []arrow.DataType
	for _, f := range all {
		types = append(types, f.Type)
	}
	types = append(types, extra...)
	seen := map[string]int{}
	examples := map[string]string{}
	okCount, errCount := 0, 0
	for _, codecS := range []codec.Setting{codec.SettingNone, codec.SettingLZ4} {
		for j := range all {
			one := oneColumnOf(src, j)
			enc, err := NewEncoder(one.Schema(), WriteOptions{Codec: codecS})
			if err != nil {
				t.Fatal(err)
			}
			msgs, err := enc.Encode(one)
			if err != nil {
				t.Fatal(err)
			}
			for _, T := range types {
				schema := arrow.NewSchema([]arrow.Field{{Name: "c", Type: T, Nullable: true}}, nil)
				func() {
					mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
					defer func() {
						if p := recover(); p != nil {
							key := fmt.Sprint(p)
							if len(key) > 150 {
								key = key[:150]
							}
							seen[key]++
							if _, ok := examples[key]; !ok {
								examples[key] = fmt.Sprintf("%s read as %s (%s)", all[j].Type, T, codecS)
							}
						}
					}()
					dec, err := NewDecoder(schema, ReadOptions{Alloc: mem})
					if err != nil {
						return
					}
					defer func() {
						dec.Release()
						if mem.CurrentAlloc() != 0 {
							panic(fmt.Sprintf("leak %d", mem.CurrentAlloc()))
						}
					}()
					for _, m := range msgs {
						got, err := dec.Decode(m)
						if err != nil {
							checkErr(t, err)
							errCount++
							return
						}
						if got != nil {
							touch(got)
							got.Release()
							okCount++
						}
					}
				}()
			}
			enc.Release()
			one.Release()
		}
	}
	t.Logf("ok %d err %d", okCount, errCount)
	for k, v := range seen {
		t.Logf("%6d %s\n      e.g. %s", v, k, examples[k])
	}
}

func oneColumnOf(rec arrow.RecordBatch, j int) arrow.RecordBatch {
	f := rec.Schema().Field(j)
	return array.NewRecordBatch(arrow.NewSchema([]arrow.Field{f}, nil), []arrow.Array{rec.Column(j)}, rec.NumRows())
}

func mutateRB(r *rand.Rand, rb *meta.RecordBatch, body []byte) {
	vals := []int64{0, 1, 2, 3, 7, 8, 15, 16, 39, 40, 41, 100, -1, 1 << 31, 1<<31 - 1, 12, 13}
	for k := 0; k < 1+r.IntN(3); k++ {
		switch r.IntN(6) {
		case 0:
			if len(rb.Nodes) == 0 {
				continue
			}
			i := r.IntN(len(rb.Nodes))
			v := max(vals[r.IntN(len(vals))], 0)
			rb.Nodes[i].Length = v
			rb.Nodes[i].NullCount = min(rb.Nodes[i].NullCount, v)
		case 1:
			if len(rb.Nodes) == 0 {
				continue
			}
			i := r.IntN(len(rb.Nodes))
			rb.Nodes[i].NullCount = int64(r.IntN(int(min(rb.Nodes[i].Length, 1000)) + 1))
		case 2:
			if len(rb.Buffers) == 0 {
				continue
			}
			i := r.IntN(len(rb.Buffers))
			if v := rb.Buffers[i].Length; v > 0 {
				rb.Buffers[i].Length = int64(r.IntN(int(v)))
			}
		case 3:
			rb.Length = max(vals[r.IntN(len(vals))], 0)
		default:
			if len(rb.Buffers) == 0 {
				continue
			}
			i := r.IntN(len(rb.Buffers))
			b := rb.Buffers[i]
			if b.Length == 0 {
				continue
			}
			p := b.Offset + int64(r.IntN(int(b.Length)))
			if r.IntN(2) == 0 {
				body[p] = byte(r.Uint32())
			} else {
				p &^= 3
				if p+4 <= b.Offset+b.Length {
					binary.LittleEndian.PutUint32(body[p:], uint32(vals[r.IntN(len(vals))]))
				}
			}
		}
	}
}

func TestZZConfuseMutate(t *testing.T) {
	if os.Getenv("EXPLORE") == "" {
		t.Skip()
	}
	src := testrec.Build(memory.NewGoAllocator(), 40, 5)
	defer src.Release()
	all := src.Schema().Fields()
	type enc1 struct {
		msgs []Message
		typ  arrow.DataType
	}
	var encs []enc1
	for j := range all {
		one := oneColumnOf(src, j)
		enc, _ := NewEncoder(one.Schema(), WriteOptions{})
		msgs, _ := enc.Encode(one)
		var copies []Message
		for _, m := range msgs {
			copies = append(copies, Message{Meta: bytes.Clone(m.Meta), Body: bytes.Clone(m.Body)})
		}
		encs = append(encs, enc1{copies, all[j].Type})
	}
	r := rand.New(rand.NewPCG(uint64(len(os.Getenv("EXPLORE"))), 3))
	seen := map[string]int{}
	examples := map[string]string{}
	okCount := 0
	for it := 0; it < 300000; it++ {
		e := encs[r.IntN(len(encs))]
		T := e.typ
		if r.IntN(4) == 0 {
			T = encs[r.IntN(len(encs))].typ
		}
		schema := arrow.NewSchema([]arrow.Field{{Name: "c", Type: T, Nullable: true}}, nil)
		mi := r.IntN(len(e.msgs))
		var mutated []Message
		for k, m := range e.msgs {
			if k != mi {
				mutated = append(mutated, m)
				continue
			}
			pm, err := meta.DecodeMessage(m.Meta, meta.DefaultLimits)
			if err != nil {
				t.Fatal(err)
			}
			rb := pm.Record
			if rb == nil {
				rb = &pm.Dictionary.Data
			}
			rb.Nodes = append([]meta.FieldNode(nil), rb.Nodes...)
			rb.Buffers = append([]meta.Buffer(nil), rb.Buffers...)
			body := bytes.Clone(m.Body)
			mutateRB(r, rb, body)
			if pm.Dictionary != nil && r.IntN(4) == 0 {
				pm.Dictionary.IsDelta = true
			}
			mutated = append(mutated, Message{Meta: mustEncode(pm), Body: body})
		}
		if r.IntN(5) == 0 && len(mutated) > 1 {
			// repeat a dictionary batch
			mutated = append([]Message{mutated[0]}, mutated...)
		}
		func() {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer func() {
				if p := recover(); p != nil {
					key := fmt.Sprint(p)
					if len(key) > 150 {
						key = key[:150]
					}
					seen[key]++
					if _, ok := examples[key]; !ok {
						examples[key] = fmt.Sprintf("%s read as %s, msg %d", e.typ, T, mi)
					}
				}
			}()
			dec, err := NewDecoder(schema, ReadOptions{Alloc: mem})
			if err != nil {
				return
			}
			defer func() {
				dec.Release()
				if mem.CurrentAlloc() != 0 {
					panic(fmt.Sprintf("leak %d", mem.CurrentAlloc()))
				}
			}()
			for _, m := range mutated {
				got, err := dec.Decode(m)
				if err != nil {
					checkErr(t, err)
					return
				}
				if got != nil {
					touch(got)
					got.Release()
					okCount++
				}
			}
		}()
	}
	t.Logf("ok %d", okCount)
	for k, v := range seen {
		t.Logf("%6d %s\n      e.g. %s", v, k, examples[k])
	}
}

func TestZZWriteHandmade(t *testing.T) {
	if os.Getenv("EXPLORE") == "" {
		t.Skip()
	}
	mem := memory.NewGoAllocator()
	streamOf := func(rec arrow.RecordBatch, edit func(*meta.RecordBatch)) []byte {
		enc, err := NewEncoder(rec.Schema(), WriteOptions{})
		if err != nil {
			t.Fatal(err)
		}
		out := enc.SchemaMessage().AppendEncapsulated(nil)
		msgs, err := enc.Encode(rec)
		if err != nil {
			t.Fatal(err)
		}
		last := msgs[len(msgs)-1]
		for _, m := range msgs[:len(msgs)-1] {
			out = m.AppendEncapsulated(out)
		}
		parsed, _ := meta.DecodeMessage(last.Meta, meta.DefaultLimits)
		edit(parsed.Record)
		out = Message{Meta: mustEncode(parsed), Body: last.Body}.AppendEncapsulated(out)
		return append(out, endOfStream...)
	}
	write := func(name string, b []byte) {
		body := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", b)
		if err := os.WriteFile("testdata/fuzz/FuzzStreamReader/"+name, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	u := sparseUnionOfInts(mem, 5)
	write("handmade-sparse-union-short-child", streamOf(oneColumn("u", u), func(rb *meta.RecordBatch) { rb.Nodes[2].Length = 2 }))
	rb := array.NewRunEndEncodedBuilder(mem, arrow.PrimitiveTypes.Int32, arrow.BinaryTypes.String)
	for _, v := range []string{"a", "b"} {
		rb.Append(2)
		rb.ValueBuilder().(*array.StringBuilder).Append(v)
	}
	write("handmade-run-end-null-count", streamOf(oneColumn("ree", rb.NewArray()), func(rb *meta.RecordBatch) { rb.Nodes[0].NullCount = 1 }))
	ib := array.NewInt64Builder(mem)
	ib.AppendValues([]int64{1, 0, 3, 0}, []bool{true, false, true, false})
	write("handmade-null-count-mismatch", streamOf(oneColumn("v", ib.NewArray()), func(rb *meta.RecordBatch) { rb.Nodes[0].NullCount = 4 }))
	fb := array.NewFixedSizeBinaryBuilder(mem, &arrow.FixedSizeBinaryType{ByteWidth: 0})
	fb.AppendValues([][]byte{{}, {}}, nil)
	write("handmade-fixed-size-binary-width-0", streamOf(oneColumn("f", fb.NewArray()), func(*meta.RecordBatch) {}))
}

func loadCorpusFile(t *testing.T, path string) []byte {
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitN(string(raw), "\n", 3)
	s := strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(lines[1]), "[]byte("), ")")
	v, err := strconv.Unquote(s)
	if err != nil {
		t.Fatal(err)
	}
	return []byte(v)
}

func TestZZShowFile(t *testing.T) {
	if os.Getenv("EXPLORE") == "" {
		t.Skip()
	}
	data := loadCorpusFile(t, os.Getenv("CORPUS"))
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	start := time.Now()
	r, err := NewFileReader(bytes.NewReader(data), int64(len(data)), ReadOptions{Alloc: mem, Limits: fuzzLimits, Concurrency: 2})
	t.Logf("open: %v (%v)", err, time.Since(start))
	if err != nil {
		return
	}
	t.Logf("records %d, schema %d fields", r.NumRecords(), r.Schema().NumFields())
	for i := range min(r.NumRecords(), 100) {
		start := time.Now()
		rec, err := r.Record(i)
		t.Logf("record %d: %v (%v)", i, err, time.Since(start))
		if err == nil {
			t.Logf("  rows %d", rec.NumRows())
			start := time.Now()
			touch(rec)
			t.Logf("  touch %v", time.Since(start))
			rec.Release()
		}
	}
	r.Release()
}

func TestZZHugeNested(t *testing.T) {
	if os.Getenv("EXPLORE") == "" {
		t.Skip()
	}
	mem := memory.NewGoAllocator()
	lb := array.NewListBuilder(mem, arrow.Null)
	lb.Append(true)
	lb.ValueBuilder().AppendNulls(3)
	l := lb.NewArray()
	rec := oneColumn("l", l)
	big, _ := strconv.Atoi(os.Getenv("BIG"))
	got, err := decodeEdited(t, mem, rec, func(rb *meta.RecordBatch) {
		t.Logf("%+v", rb)
		rb.Nodes[1].Length = int64(big)
		rb.Nodes[1].NullCount = int64(big)
	})
	t.Log(err)
	if err != nil {
		return
	}
	// patch the offsets buffer: decodeEdited doesn't let us edit the body; do it via data
	t.Log(got.Column(0).Data().Children()[0].Len())
}

func TestZZHugeNested2(t *testing.T) {
	if os.Getenv("EXPLORE") == "" {
		t.Skip()
	}
	mem := memory.NewGoAllocator()
	lb := array.NewListBuilder(mem, arrow.Null)
	lb.Append(true)
	lb.ValueBuilder().AppendNulls(3)
	l := lb.NewArray()
	rec := oneColumn("l", l)
	big, _ := strconv.Atoi(os.Getenv("BIG"))
	enc, _ := NewEncoder(rec.Schema(), WriteOptions{})
	msgs, _ := enc.Encode(rec)
	parsed, _ := meta.DecodeMessage(msgs[0].Meta, meta.DefaultLimits)
	parsed.Record.Nodes[1].Length = int64(big)
	parsed.Record.Nodes[1].NullCount = int64(big)
	body := bytes.Clone(msgs[0].Body)
	binary.LittleEndian.PutUint32(body[4:], uint32(big))
	dec, _ := NewDecoder(rec.Schema(), ReadOptions{})
	got, err := dec.Decode(Message{Meta: mustEncode(parsed), Body: body})
	t.Log(err)
	if err != nil {
		return
	}
	start := time.Now()
	touch(got)
	t.Logf("touch took %v", time.Since(start))
}

func maxNested(d arrow.ArrayData) int {
	m := d.Len()
	for _, c := range d.Children() {
		m = max(m, maxNested(c))
	}
	return m
}

func TestZZScanCache(t *testing.T) {
	if os.Getenv("EXPLORE") == "" {
		t.Skip()
	}
	for _, target := range []string{"FuzzFileReader", "FuzzStreamReader"} {
		dir := "/root/.cache/go-build/fuzz/github.com/quiverdb/quiver/batch/" + target
		ents, _ := os.ReadDir(dir)
		worst, worstName := 0, ""
		for _, e := range ents {
			data := loadCorpusFile(t, dir+"/"+e.Name())
			var recs []arrow.RecordBatch
			if target == "FuzzFileReader" {
				r, err := NewFileReader(bytes.NewReader(data), int64(len(data)), ReadOptions{Limits: fuzzLimits})
				if err != nil {
					continue
				}
				for i := range min(r.NumRecords(), 100) {
					if rec, err := r.Record(i); err == nil {
						recs = append(recs, rec)
					}
				}
			} else {
				r, err := NewStreamReader(bytes.NewReader(data), ReadOptions{Limits: fuzzLimits})
				if err != nil {
					continue
				}
				for range 100 {
					rec, err := r.Next()
					if err != nil {
						break
					}
					recs = append(recs, rec)
				}
			}
			for _, rec := range recs {
				head := rec.NewSlice(0, min(rec.NumRows(), 1000))
				for _, c := range head.Columns() {
					if m := int(printCost(c.Data(), 0, int64(c.Len()), 1<<40)); m > worst {
						worst, worstName = m, e.Name()+" "+c.DataType().String()
					}
				}
			}
		}
		t.Logf("%s: %d entries, worst nested length %d in %s", target, len(ents), worst, worstName)
	}
}
