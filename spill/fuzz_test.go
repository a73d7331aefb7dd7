package spill

import (
	"bytes"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/internal/datagen"
)

// fuzzScenario is a spill file written once; each fuzz input replaces its
// bytes.
type fuzzScenario struct {
	fs  *memFS
	f   *File
	raw []byte
}

var (
	fuzzOnce      sync.Once
	fuzzScenarios []fuzzScenario
)

// scenarios writes the files the fuzz target reads: every string type
// with nulls under each codec, and every type (dictionaries included)
// under zstd.
func scenarios() []fuzzScenario {
	fuzzOnce.Do(func() {
		mem := memory.NewGoAllocator()
		build := func(s codec.Setting, recs ...arrow.RecordBatch) {
			fs := newMemFS()
			m, err := NewManager(Config{Dir: "/fuzz", FS: fs, Codec: s})
			if err != nil {
				panic(err)
			}
			w, err := m.NewFile("fuzz")
			if err != nil {
				panic(err)
			}
			for _, r := range recs {
				if err := w.Write(r); err != nil {
					panic(err)
				}
				r.Release()
			}
			f, err := w.Finish()
			if err != nil {
				panic(err)
			}
			raw := append([]byte(nil), fs.files[f.Path()]...)
			fuzzScenarios = append(fuzzScenarios, fuzzScenario{fs: fs, f: f, raw: raw})
		}
		// Small files (a few hundred bytes to 2 KB): the fuzzer minimizes
		// every input it keeps, and seeds of kilobytes left it doing that
		// for most of a run. Every string type uncompressed; utf8 and
		// string views, whose lengths the reader rebuilds, under each codec.
		for _, s := range settings {
			rec := stringRecord(mem, 3, 1, 3)
			if s.Kind != codec.None {
				rec = project(rec, 0, 4)
			}
			build(s, rec)
		}
		// Every type family, one small group per file: one file of all
		// of them is kilobytes, which the fuzzer spends its time minimizing.
		for i, g := range datagen.SeedGroups[1:] {
			build(codec.SettingZstd, datagen.Tiny(mem, 3, uint64(i), g...), datagen.Tiny(mem, 2, uint64(i+1), g...))
		}
	})
	return fuzzScenarios
}

// project returns columns idx of rec and releases rec.
func project(rec arrow.RecordBatch, idx ...int) arrow.RecordBatch {
	defer rec.Release()
	fields := make([]arrow.Field, len(idx))
	cols := make([]arrow.Array, len(idx))
	for i, j := range idx {
		fields[i], cols[i] = rec.Schema().Field(j), rec.Column(j)
	}
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, rec.NumRows())
}

// FuzzReader feeds hostile bytes to a Reader in place of a spill file's:
// it never panics, fails only with ErrCorrupt and releases all it
// allocates. With verify off the bytes reach the batch layer's decoder
// and the lengths rebuild, which must hold up on their own.
//
// An input is a patch over one of the scenarios' files (bytes written at
// an offset, and a cut: the file truncated with verify on, its tail
// zeroed with it off, so that the size check at Open passes and the
// mutations reach the decoder). The inputs stay a few bytes long: whole
// files as inputs (1–8 KB) left the fuzzer minimizing each new one for
// most of a run (59 inputs in 20 s).
func FuzzReader(f *testing.F) {
	for i, sc := range scenarios() {
		f.Add(uint8(i), true, uint16(0), []byte(nil), uint16(0))
		f.Add(uint8(i), false, uint16(0), []byte(nil), uint16(0))
		f.Add(uint8(i), false, uint16(len(sc.raw)/3), []byte{0xff, 0xff, 0xff, 0x7f}, uint16(0))
		f.Add(uint8(i), false, uint16(0), []byte(nil), uint16(len(sc.raw)/2))
	}
	f.Fuzz(func(t *testing.T, scenario uint8, verify bool, at uint16, patch []byte, cut uint16) {
		scs := scenarios()
		sc := scs[int(scenario)%len(scs)]
		data := bytes.Clone(sc.raw)
		copy(data[int(at)%len(data):], patch)
		if n := int(cut) % len(data); n > 0 {
			if verify {
				data = data[:len(data)-n]
			} else {
				clear(data[len(data)-n:])
			}
		}
		sc.fs.put(sc.f.Path(), data)
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		defer mem.AssertSize(t, 0)
		r, err := sc.f.open(mem, !verify)
		if err == nil {
			for r.Next() {
				for _, c := range r.RecordBatch().Columns() {
					_ = fmt.Sprint(c) // touch every value
				}
			}
			err = r.Err()
			r.Release()
		}
		if err != nil && !errors.Is(err, ErrCorrupt) {
			t.Fatalf("error matching no sentinel: %v", err)
		}
		if verify && err == nil && string(data) != string(sc.raw) {
			t.Fatalf("altered bytes passed the checksums")
		}
	})
}
