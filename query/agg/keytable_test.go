package agg

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// tupleKey is the reference's key of row i of cols: keyString per column.
func tupleKey(cols []arrow.Array, i int) string {
	var sb strings.Builder
	for _, c := range cols {
		sb.WriteString(keyString(cell(c, i)))
		sb.WriteByte('|')
	}
	return sb.String()
}

// TestKeyTableMatchesMap inserts random batches of every key type, alone
// and in pairs, with NULLs, repeats and awkward values, and checks the ids
// against a map: dense, in first-seen order, one per tuple. Sealed, it
// holds less and refuses inserts. Then several
// Probers on their own goroutines look up other random batches at once
// (run it with -race) and must find exactly the tuples the map holds.
func TestKeyTableMatchesMap(t *testing.T) {
	var shapes [][]arrow.DataType
	for _, dt := range engineTypes {
		shapes = append(shapes, []arrow.DataType{dt})
	}
	shapes = append(shapes,
		[]arrow.DataType{arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64},
		[]arrow.DataType{arrow.FixedWidthTypes.Date32, dec38, arrow.FixedWidthTypes.Boolean})
	for si, types := range shapes {
		t.Run(fmt.Sprint(types), func(t *testing.T) {
			mem := checked(t)
			g := &gen{rng: rand.New(rand.NewPCG(uint64(si), 7)), mem: mem, card: 300, nullP: 0.1}
			kt, err := NewKeyTable(types)
			if err != nil {
				t.Fatal(err)
			}
			defer kt.Release()
			want := map[string]uint32{}
			for range 8 {
				n := g.rng.IntN(700)
				cols := make([]arrow.Array, len(types))
				for j, dt := range types {
					cols[j] = g.array(dt, n)
				}
				var rows []uint32
				for r := range n {
					if g.rng.IntN(5) > 0 { // insert only some rows
						rows = append(rows, uint32(r))
					}
				}
				ids := make([]uint32, n)
				if err := kt.Insert(cols, rows, ids); err != nil {
					t.Fatal(err)
				}
				for _, r := range rows {
					k := tupleKey(cols, int(r))
					id, ok := want[k]
					if !ok {
						id = uint32(len(want))
						want[k] = id
					}
					if ids[r] != id {
						t.Fatalf("row %d (%s): id %d, want %d", r, k, ids[r], id)
					}
				}
				releaseArrays(cols)
			}
			used := kt.MemoryUsage()
			kt.Seal()
			if kt.Len() != len(want) {
				t.Fatalf("Len %d after Seal, want %d", kt.Len(), len(want))
			}
			if kt.MemoryUsage() >= used {
				t.Errorf("Seal kept %d bytes of %d", kt.MemoryUsage(), used)
			}
			if err := kt.Insert(nil, nil, nil); !errors.Is(err, ErrInput) {
				t.Errorf("Insert after Seal: %v", err)
			}
			var batches [][]arrow.Array
			for range 12 {
				n := g.rng.IntN(900)
				cols := make([]arrow.Array, len(types))
				for j, dt := range types {
					cols[j] = g.array(dt, n)
				}
				batches = append(batches, cols)
			}
			defer func() {
				for _, b := range batches {
					releaseArrays(b)
				}
			}()
			var wg sync.WaitGroup
			errs := make([]error, 3)
			for w := range errs {
				wg.Go(func() {
					p := kt.NewProber()
					defer p.Release()
					for i := w; i < len(batches); i += len(errs) {
						cols := batches[i]
						n := cols[0].Len()
						rows := make([]uint32, 0, n)
						for r := range n {
							if r%4 != w { // a subset, so rows outside it must be left alone
								rows = append(rows, uint32(r))
							}
						}
						ids := make([]uint32, n)
						for r := range ids {
							ids[r] = 12345678
						}
						if err := p.Lookup(cols, rows, ids); err != nil {
							errs[w] = err
							return
						}
						for r := range n {
							wantID := uint32(12345678)
							if r%4 != w {
								var ok bool
								if wantID, ok = want[tupleKey(cols, r)]; !ok {
									wantID = NoKey
								}
							}
							if ids[r] != wantID {
								errs[w] = fmt.Errorf("batch %d row %d (%s): id %d, want %d", i, r, tupleKey(cols, r), ids[r], wantID)
								return
							}
						}
					}
				})
			}
			wg.Wait()
			for _, err := range errs {
				if err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// TestLookupCollisions looks keys up in a table whose keys were inserted
// with hashes that collide on purpose (all one hash, or one of a few), so
// lookups go around past keys whose tag matched, and must still find
// every key inserted and miss every other.
func TestLookupCollisions(t *testing.T) {
	for _, hashes := range []int{1, 3, 64} {
		for _, dt := range []arrow.DataType{arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String} {
			t.Run(fmt.Sprintf("hashes=%d/type=%v", hashes, dt), func(t *testing.T) {
				mem := checked(t)
				var acct account
				col := newKeyColumn(&acct, dt)
				tab := newTable(&acct, []keyColumn{col})
				defer tab.release()
				batch := func(vals []int64) (arrow.Array, []uint64, []uint32) {
					h := make([]uint64, len(vals))
					rows := make([]uint32, len(vals))
					for i, v := range vals {
						h[i] = mix(0x9e3779b97f4a7c15, uint64(v)%uint64(hashes))
						rows[i] = uint32(i)
					}
					arr := arrow.Array(int64s(mem, vals...))
					if dt.ID() == arrow.STRING {
						arr.Release()
						strs := make([]string, len(vals))
						for i, v := range vals {
							strs[i] = strings.Repeat("y", int(v%11)) + itoa(int(v))
						}
						b := array.NewStringBuilder(mem)
						b.AppendValues(strs, nil)
						arr = b.NewArray()
						b.Release()
					}
					return arr, h, rows
				}
				var in []int64
				for v := range int64(300) {
					if v%3 != 0 {
						in = append(in, v)
					}
				}
				arr, h, rows := batch(in)
				if err := col.bind(arr); err != nil {
					t.Fatal(err)
				}
				col.hash(make([]uint64, len(in)), rows)
				gids := make([]uint32, len(in))
				if err := tab.insert(rows, h, gids); err != nil {
					t.Fatal(err)
				}
				arr.Release()
				index := map[int64]uint32{}
				for i, v := range in {
					index[v] = gids[i]
				}
				var a2 account
				v := col.view(&a2)
				defer v.releaseInput()
				var s lookupScratch
				defer s.release(&a2)
				probe := make([]int64, 300)
				for i := range probe {
					probe[i] = int64(299 - i)
				}
				arr, h, rows = batch(probe)
				defer arr.Release()
				if err := v.bind(arr); err != nil {
					t.Fatal(err)
				}
				v.hash(make([]uint64, len(probe)), rows)
				if err := s.size(&a2, len(rows)); err != nil {
					t.Fatal(err)
				}
				got := make([]uint32, len(probe))
				tab.lookup([]keyColumn{v}, rows, h, got, &s)
				for i, p := range probe {
					want, ok := index[p]
					if !ok {
						want = NoKey
					}
					if got[i] != want {
						t.Fatalf("key %d: id %d, want %d", p, got[i], want)
					}
				}
			})
		}
	}
}

// TestKeyTableLarge inserts and looks up enough keys that the table passes
// prefetchSlots, where both go a block of rows at a time, and reserves
// room for them part way: ids must still be dense in first-seen order
// across blocks and batches, and the table must not have grown past the
// reservation.
func TestKeyTableLarge(t *testing.T) {
	mem := checked(t)
	rng := rand.New(rand.NewPCG(9, 9))
	kt, err := NewKeyTable([]arrow.DataType{arrow.PrimitiveTypes.Int64})
	if err != nil {
		t.Fatal(err)
	}
	defer kt.Release()
	want := map[int64]uint32{}
	reserved := false
	batch := func(n, domain int) (*array.Int64, []uint32) {
		vals := make([]int64, n)
		rows := make([]uint32, n)
		for i := range vals {
			vals[i] = int64(rng.IntN(domain))
			rows[i] = uint32(i)
		}
		return int64s(mem, vals...), rows
	}
	for range 12 {
		arr, rows := batch(9000, 100_000)
		ids := make([]uint32, len(rows))
		if len(want) > 0 && !reserved { // with tuples in it: they are placed again
			if err := kt.Reserve(70_000); err != nil {
				t.Fatal(err)
			}
			reserved = true
		}
		if err := kt.Insert([]arrow.Array{arr}, rows, ids); err != nil {
			t.Fatal(err)
		}
		for i, v := range arr.Int64Values() {
			id, ok := want[v]
			if !ok {
				id = uint32(len(want))
				want[v] = id
			}
			if ids[i] != id {
				t.Fatalf("key %d: id %d, want %d", v, ids[i], id)
			}
		}
		arr.Release()
	}
	if len(kt.tab.slots) != 1<<18 || kt.Len() != len(want) {
		t.Fatalf("%d slots (reserved for 70,000 tuples: %d), %d keys (want %d)", len(kt.tab.slots), 1<<18, kt.Len(), len(want))
	}
	kt.Seal()
	p := kt.NewProber()
	defer p.Release()
	arr, rows := batch(20000, 200_000)
	defer arr.Release()
	ids := make([]uint32, len(rows))
	if err := p.Lookup([]arrow.Array{arr}, rows, ids); err != nil {
		t.Fatal(err)
	}
	for i, v := range arr.Int64Values() {
		id, ok := want[v]
		if !ok {
			id = NoKey
		}
		if ids[i] != id {
			t.Fatalf("lookup %d: id %d, want %d", v, ids[i], id)
		}
	}
}
