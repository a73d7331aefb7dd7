package spill

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/internal/datagen"
)

// smallFile spills two small batches of every string type with nulls
// and returns the file and its bytes.
func smallFile(t testing.TB, m *Manager, mem memory.Allocator) (*File, []byte) {
	t.Helper()
	a, b := stringRecord(mem, 12, 1, 3), stringRecord(mem, 5, 2, 0)
	defer a.Release()
	defer b.Release()
	return spillBytes(t, m, a, b)
}

// allTypesFile spills two small batches of every type, with dictionaries
// that change between them.
func allTypesFile(t testing.TB, m *Manager, mem memory.Allocator) (*File, []byte) {
	t.Helper()
	a, b := datagen.Record(mem, 6, 1), datagen.Record(mem, 4, 2)
	defer a.Release()
	defer b.Release()
	return spillBytes(t, m, a, b)
}

func spillBytes(t testing.TB, m *Manager, recs ...arrow.RecordBatch) (*File, []byte) {
	t.Helper()
	w, err := m.NewFile("small")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	f, err := w.Finish()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(f.Path())
	if err != nil {
		t.Fatal(err)
	}
	return f, raw
}

// readErr opens f and reads it to the end, returning the first error.
func readErr(f *File, mem memory.Allocator) error {
	r, err := f.Open(mem)
	if err != nil {
		return err
	}
	defer r.Release()
	for r.Next() {
	}
	return r.Err()
}

// wantCorrupt checks that err matches ErrCorrupt and names the file and
// the part of it (batch) that holds the damage.
func wantCorrupt(t testing.TB, err error, f *File, part int, what string) {
	t.Helper()
	if !errors.Is(err, ErrCorrupt) {
		t.Fatalf("%s: %v, want ErrCorrupt", what, err)
	}
	if msg := err.Error(); !strings.Contains(msg, f.Path()) || !strings.Contains(msg, where(part)+":") {
		t.Fatalf("%s: %q does not name the file and %s", what, msg, where(part))
	}
}

// TestFlippedByte flips each byte of a small spill file in turn (every
// fifth of a larger one of every type): every one is caught, as an error
// naming the file and the batch it is in.
func TestFlippedByte(t *testing.T) {
	for _, s := range settings {
		for _, tc := range []struct {
			name string
			make func(testing.TB, *Manager, memory.Allocator) (*File, []byte)
			step int
		}{{"strings", smallFile, 1}, {"alltypes", allTypesFile, 5}} {
			t.Run(fmt.Sprintf("codec=%s/%s", s, tc.name), func(t *testing.T) {
				flipEach(t, s, tc.make, tc.step)
			})
		}
	}
}

func flipEach(t *testing.T, s codec.Setting, mk func(testing.TB, *Manager, memory.Allocator) (*File, []byte), step int) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	m := newTestManager(t, Config{Codec: s}, mem)
	f, raw := mk(t, m, mem)
	defer f.Remove()
	if testing.Short() {
		step *= 25 // every 25th byte: the whole file runs in the long mode
	}
	for i := 0; i < len(raw); i += step {
		for _, mask := range []byte{0x01, 0x80} {
			bad := append([]byte(nil), raw...)
			bad[i] ^= mask
			if err := os.WriteFile(f.Path(), bad, 0o600); err != nil {
				t.Fatal(err)
			}
			wantCorrupt(t, readErr(f, mem), f, f.batchAt(int64(i)), fmt.Sprintf("byte %d of %d ^ %#x", i, len(raw), mask))
		}
	}
	if err := os.WriteFile(f.Path(), raw, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := readErr(f, mem); err != nil {
		t.Fatalf("restored file: %v", err)
	}
}

// TestTruncated cuts a small file at every length: Open catches each one
// and names the batch where the file now ends. A file cut while a reader
// is open is caught by the read of the missing batch.
func TestTruncated(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	m := newTestManager(t, Config{Codec: codec.SettingLZ4}, mem)
	f, raw := smallFile(t, m, mem)
	defer f.Remove()
	step := 1
	if testing.Short() {
		step = 7
	}
	for n := 0; n < len(raw); n += step {
		if err := os.Truncate(f.Path(), int64(n)); err != nil {
			t.Fatal(err)
		}
		wantCorrupt(t, readErr(f, mem), f, f.batchAt(int64(n)), fmt.Sprintf("cut at %d of %d", n, len(raw)))
		if err := os.WriteFile(f.Path(), raw, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// Bytes appended are refused too.
	if err := os.WriteFile(f.Path(), append(raw, 0), 0o600); err != nil {
		t.Fatal(err)
	}
	wantCorrupt(t, readErr(f, mem), f, atEnd, "one byte appended")

	if err := os.WriteFile(f.Path(), raw, 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := f.Open(mem)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	if !r.Next() {
		t.Fatal(r.Err())
	}
	cut := f.batches[1].off + 3
	if err := os.Truncate(f.Path(), cut); err != nil {
		t.Fatal(err)
	}
	if r.Next() {
		t.Fatal("read a batch past the end of the file")
	}
	wantCorrupt(t, r.Err(), f, 1, "cut while reading")
}

// TestReadFaults fails the device under a reader: the error is the file
// system's, not ErrCorrupt, and names the file and the batch.
func TestReadFaults(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	fs := &faultFS{}
	m := newTestManager(t, Config{Codec: codec.SettingLZ4, FS: fs}, mem)
	f, _ := smallFile(t, m, mem)
	defer f.Remove()
	for part := atEnd; part < f.Batches(); part++ {
		fs.setReadFault(func(path string, off int64, n int) error {
			if f.batchAt(off) == part {
				return syscall.EIO
			}
			return nil
		})
		err := readErr(f, mem)
		if !errors.Is(err, syscall.EIO) || errors.Is(err, ErrCorrupt) {
			t.Fatalf("EIO reading %s: %v", where(part), err)
		}
		if !strings.Contains(err.Error(), f.Path()) || !strings.Contains(err.Error(), where(part)) {
			t.Fatalf("EIO reading %s: %q does not say where", where(part), err)
		}
	}
	fs.setReadFault(nil)
	if err := readErr(f, mem); err != nil {
		t.Fatal(err)
	}
}
