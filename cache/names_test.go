package cache

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
)

// TestNamesUniqueIgnoringCase: a Put whose name differs only in case from
// a table held fails, naming both; the same name replaces; Resolve finds
// a table by any spelling.
func TestNamesUniqueIgnoringCase(t *testing.T) {
	mem := checked(t)
	c := newCache(t, mem, 0)
	in := allTypesInput(mem)
	defer release(in)
	put(t, c, "lineitem", in[0].Schema(), in[:1], TableOptions{})
	r := mustReader(t, in[:1])
	defer r.Release()
	_, err := c.Put(context.Background(), "LINEITEM", r, TableOptions{})
	if !errors.Is(err, ErrNameClash) || !strings.Contains(err.Error(), `"LINEITEM" would clash with table "lineitem"`) {
		t.Fatalf("clashing put: %v", err)
	}
	if got := c.Tables(); len(got) != 1 {
		t.Errorf("tables %v after a refused put", got)
	}
	put(t, c, "lineitem", in[0].Schema(), in[:2], TableOptions{}) // replaces
	for _, name := range []string{"lineitem", "LINEITEM", "LineItem"} {
		if got, ok := c.Resolve(name); !ok || got != "lineitem" {
			t.Errorf("Resolve(%q) = %q, %v", name, got, ok)
		}
	}
	if _, ok := c.Resolve("orders"); ok {
		t.Error("Resolve found a table never put")
	}
	c.Drop("lineitem")
	put(t, c, "LINEITEM", in[0].Schema(), in[:1], TableOptions{})
	if got, ok := c.Resolve("lineitem"); !ok || got != "LINEITEM" {
		t.Errorf("Resolve(lineitem) = %q, %v; want LINEITEM", got, ok)
	}
}

// putOnNext puts another table when the put reading it asks for its first
// batch: a concurrent clashing put, made deterministic.
type putOnNext struct {
	array.RecordReader
	t    *testing.T
	c    *Cache
	name string
	done bool
}

func (p *putOnNext) Next() bool {
	if !p.done {
		p.done = true
		put(p.t, p.c, p.name, p.Schema(), nil, TableOptions{})
	}
	return p.RecordReader.Next()
}

// TestNameClashCheckedAtTheSwap: of two puts whose names differ in case
// and that run at once, the one that commits second fails.
func TestNameClashCheckedAtTheSwap(t *testing.T) {
	mem := checked(t)
	c := newCache(t, mem, 0)
	in := allTypesInput(mem)
	defer release(in)
	r := mustReader(t, in)
	defer r.Release()
	_, err := c.Put(context.Background(), "t", &putOnNext{RecordReader: r, t: t, c: c, name: "T"}, TableOptions{})
	if !errors.Is(err, ErrNameClash) {
		t.Fatalf("got %v, want ErrNameClash", err)
	}
	if got := c.Tables(); len(got) != 1 || got[0] != "T" {
		t.Errorf("tables %v, want [T]", got)
	}
	if info, _ := c.Info("T"); c.Used() != info.Compressed {
		t.Errorf("used %d, the table holds %d", c.Used(), info.Compressed)
	}
}
