package meta

import (
	"encoding/binary"
	"fmt"
	"sort"
	"strings"
)

// An annotated hex dump of a flatbuffer for golden files: every byte is
// labelled with the object it belongs to. It walks only our own valid
// encodings and trusts them.

// tdesc describes a table: the name and kind of each slot.
type tdesc struct {
	name  string
	slots []sdesc
}

// sdesc kinds: b bool, B ubyte, h short, i int, q long, s string, t table
// (sub), u union value (tag in the previous slot, sub picks the table),
// T vector of tables (sub), S vector of structs (fields), I vector of ints,
// Q vector of longs.
type sdesc struct {
	name   string
	kind   byte
	sub    func(tag byte) *tdesc
	fields []string // struct fields: "name:q" or "name:i" or "pad:4"
}

func one(d *tdesc) func(byte) *tdesc { return func(byte) *tdesc { return d } }

var (
	keyValueDesc = &tdesc{"KeyValue", []sdesc{{"key", 's', nil, nil}, {"value", 's', nil, nil}}}
	intDesc      = &tdesc{"Int", []sdesc{{"bitWidth", 'i', nil, nil}, {"is_signed", 'b', nil, nil}}}
	dictEncDesc  = &tdesc{"DictionaryEncoding", []sdesc{{"id", 'q', nil, nil}, {"indexType", 't', one(intDesc), nil}, {"isOrdered", 'b', nil, nil}, {"dictionaryKind", 'h', nil, nil}}}
	fieldDesc    = &tdesc{name: "Field"}
	schemaDesc   = &tdesc{"Schema", []sdesc{{"endianness", 'h', nil, nil}, {"fields", 'T', one(fieldDesc), nil}, {"custom_metadata", 'T', one(keyValueDesc), nil}, {"features", 'Q', nil, nil}}}
	bodyCompDesc = &tdesc{"BodyCompression", []sdesc{{"codec", 'B', nil, nil}, {"method", 'B', nil, nil}}}
	recordDesc   = &tdesc{"RecordBatch", []sdesc{
		{"length", 'q', nil, nil},
		{"nodes", 'S', nil, []string{"length:q", "null_count:q"}},
		{"buffers", 'S', nil, []string{"offset:q", "length:q"}},
		{"compression", 't', one(bodyCompDesc), nil},
		{"variadicBufferCounts", 'Q', nil, nil},
	}}
	dictBatchDesc = &tdesc{"DictionaryBatch", []sdesc{{"id", 'q', nil, nil}, {"data", 't', one(recordDesc), nil}, {"isDelta", 'b', nil, nil}}}
	messageDesc   = &tdesc{"Message", []sdesc{
		{"version", 'h', nil, nil},
		{"header_type", 'B', nil, nil},
		{"header", 'u', func(tag byte) *tdesc {
			return map[byte]*tdesc{1: schemaDesc, 2: dictBatchDesc, 3: recordDesc}[tag]
		}, nil},
		{"bodyLength", 'q', nil, nil},
		{"custom_metadata", 'T', one(keyValueDesc), nil},
	}}
	typeDescs = map[byte]*tdesc{
		typeInt:           intDesc,
		typeFloatingPoint: {"FloatingPoint", []sdesc{{"precision", 'h', nil, nil}}},
		typeUtf8:          {"Utf8", nil},
		typeList:          {"List", nil},
		typeStruct:        {"Struct_", nil},
		typeTimestamp:     {"Timestamp", []sdesc{{"unit", 'h', nil, nil}, {"timezone", 's', nil, nil}}},
	}
)

func init() {
	fieldDesc.slots = []sdesc{
		{"name", 's', nil, nil},
		{"nullable", 'b', nil, nil},
		{"type_type", 'B', nil, nil},
		{"type", 'u', func(tag byte) *tdesc { return typeDescs[tag] }, nil},
		{"dictionary", 't', one(dictEncDesc), nil},
		{"children", 'T', one(fieldDesc), nil},
		{"custom_metadata", 'T', one(keyValueDesc), nil},
	}
}

type span struct {
	start, end int
	label      string
}

type annotator struct {
	buf   []byte
	spans []span
	seen  map[int]bool // vtables already labelled
}

func (a *annotator) add(start, n int, format string, args ...any) {
	a.spans = append(a.spans, span{start, start + n, fmt.Sprintf(format, args...)})
}

func (a *annotator) u16(p int) int   { return int(binary.LittleEndian.Uint16(a.buf[p:])) }
func (a *annotator) u32(p int) int   { return int(binary.LittleEndian.Uint32(a.buf[p:])) }
func (a *annotator) i64(p int) int64 { return int64(binary.LittleEndian.Uint64(a.buf[p:])) }

// annotate returns the dump of buf, whose root table is described by root.
func annotate(buf []byte, root *tdesc) string {
	a := &annotator{buf: buf, seen: map[int]bool{}}
	pos := a.u32(0)
	a.add(0, 4, "root uoffset: %s at %d", root.name, pos)
	a.table(pos, root, root.name)
	return a.render()
}

func (a *annotator) table(pos int, d *tdesc, path string) {
	vt := pos - int(int32(a.u32(pos)))
	a.add(pos, 4, "%s: soffset to vtable at %d", path, vt)
	vtSize := a.u16(vt)
	if !a.seen[vt] {
		a.seen[vt] = true
		a.add(vt, 4, "vtable (%s): %d bytes, object %d bytes", d.name, vtSize, a.u16(vt+2))
		for i := 0; 4+2*i+2 <= vtSize; i++ {
			name := fmt.Sprintf("slot %d", i)
			if i < len(d.slots) {
				name = d.slots[i].name
			}
			a.add(vt+4+2*i, 2, "  %s at +%d", name, a.u16(vt+4+2*i))
		}
	}
	var lastTag byte
	for i, s := range d.slots {
		if 4+2*i+2 > vtSize || a.u16(vt+4+2*i) == 0 {
			continue
		}
		p := pos + a.u16(vt+4+2*i)
		name := path + "." + s.name
		switch s.kind {
		case 'b', 'B':
			lastTag = a.buf[p]
			a.add(p, 1, "%s = %d", name, a.buf[p])
		case 'h':
			a.add(p, 2, "%s = %d", name, int16(a.u16(p)))
		case 'i':
			a.add(p, 4, "%s = %d", name, int32(a.u32(p)))
		case 'q':
			a.add(p, 8, "%s = %d", name, a.i64(p))
		case 's':
			t := p + a.u32(p)
			n := a.u32(t)
			a.add(p, 4, "%s: uoffset to string at %d", name, t)
			a.add(t, 4+n+1, "%q (length %d, NUL)", a.buf[t+4:t+4+n], n)
		case 't', 'u':
			tag := byte(0)
			if s.kind == 'u' {
				tag = lastTag
			}
			sub := s.sub(tag)
			t := p + a.u32(p)
			if sub == nil {
				sub = &tdesc{name: fmt.Sprintf("Type#%d", tag)}
			}
			a.add(p, 4, "%s: uoffset to %s at %d", name, sub.name, t)
			a.table(t, sub, name)
		default:
			a.vector(p, s, name)
		}
	}
}

func (a *annotator) vector(p int, s sdesc, name string) {
	v := p + a.u32(p)
	n := a.u32(v)
	a.add(p, 4, "%s: uoffset to vector at %d", name, v)
	a.add(v, 4, "%s: %d elements", name, n)
	e := v + 4
	for i := range n {
		el := fmt.Sprintf("%s[%d]", name, i)
		switch s.kind {
		case 'T':
			t := e + a.u32(e)
			a.add(e, 4, "%s: uoffset to table at %d", el, t)
			a.table(t, s.sub(0), el)
			e += 4
		case 'I':
			a.add(e, 4, "%s = %d", el, int32(a.u32(e)))
			e += 4
		case 'Q':
			a.add(e, 8, "%s = %d", el, a.i64(e))
			e += 8
		case 'S':
			for _, f := range s.fields {
				fname, kind, _ := strings.Cut(f, ":")
				switch kind {
				case "q":
					a.add(e, 8, "%s.%s = %d", el, fname, a.i64(e))
					e += 8
				case "i":
					a.add(e, 4, "%s.%s = %d", el, fname, int32(a.u32(e)))
					e += 4
				}
			}
		}
	}
}

// render prints the spans in byte order, 8 bytes of hex a line, with
// unlabelled bytes shown as padding.
func (a *annotator) render() string {
	sort.SliceStable(a.spans, func(i, j int) bool { return a.spans[i].start < a.spans[j].start })
	var out strings.Builder
	line := func(start, end int, label string) {
		for p := start; p < end; p += 8 {
			q := min(p+8, end)
			hex := fmt.Sprintf("% x", a.buf[p:q])
			if p > start {
				label = "  ..."
			}
			fmt.Fprintf(&out, "%06x  %-23s  %s\n", p, hex, label)
		}
	}
	at := 0
	for _, s := range a.spans {
		if s.start > at {
			line(at, s.start, "padding")
		}
		if s.start < at {
			fmt.Fprintf(&out, "%06x  %-23s  %s (overlaps)\n", s.start, "", s.label)
			continue
		}
		line(s.start, s.end, s.label)
		at = s.end
	}
	if at < len(a.buf) {
		line(at, len(a.buf), "padding")
	}
	return out.String()
}
