package bench

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func TestSpillDatasets(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	for _, name := range SpillDatasets {
		a, err := SpillDataset(mem, name, 3, 100)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := SpillDataset(mem, name, 3, 100)
		if len(a) != 3 || a[0].NumRows() != 100 {
			t.Fatalf("%s: %d batches of %d rows", name, len(a), a[0].NumRows())
		}
		for i := range a {
			if !array.RecordEqual(a[i], b[i]) {
				t.Fatalf("%s: batch %d differs between two calls (seed not fixed)", name, i)
			}
		}
		if array.RecordEqual(a[0], a[1]) && name != "wide" {
			t.Fatalf("%s: batches 0 and 1 are equal", name)
		}
		release(a)
		release(b)
	}
	if _, err := SpillDataset(mem, "q99", 1, 1); err == nil {
		t.Fatal("unknown dataset accepted")
	}
	// Q16's columns hold only the pools' values.
	q16, _ := SpillDataset(mem, "q16", 1, 1000)
	defer release(q16)
	brands := q16[0].Column(0).(*array.String)
	for i := range brands.Len() {
		if !strings.HasPrefix(brands.Value(i), "Brand#") {
			t.Fatalf("brand %q", brands.Value(i))
		}
	}
	sizes := q16[0].Column(2).(*array.Int32)
	for _, s := range sizes.Int32Values() {
		if s < 3 || s > 49 {
			t.Fatalf("size %d", s)
		}
	}
}

func TestRunSpillSmall(t *testing.T) {
	var out bytes.Buffer
	rep, err := RunSpill(context.Background(), SpillConfig{Batches: 2, BatchRows: 300, Runs: 2, Dir: t.TempDir()}, &out)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Datasets) != 4 {
		t.Fatalf("%d datasets", len(rep.Datasets))
	}
	for _, d := range rep.Datasets {
		if len(d.Cells) != 7 {
			t.Fatalf("%s: %d cells", d.Name, len(d.Cells))
		}
		for _, c := range d.Cells {
			if c.Bytes <= 0 || len(c.Write) != 2 || len(c.Read) != 2 {
				t.Fatalf("%s %s %s: %d bytes, %d/%d runs", d.Name, c.Impl, c.Codec, c.Bytes, len(c.Write), len(c.Read))
			}
		}
		// Compression shrinks the files, uncompressed holds the data.
		none, _ := d.cell("quiver", "none")
		zstd, _ := d.cell("quiver", "zstd:3")
		if zstd.Bytes >= none.Bytes || none.Bytes < d.ArrowBytes*9/10 {
			t.Fatalf("%s: none %d, zstd:3 %d, Arrow %d bytes", d.Name, none.Bytes, zstd.Bytes, d.ArrowBytes)
		}
	}
	if len(rep.Targets) != 12 {
		t.Fatalf("%d targets", len(rep.Targets))
	}
	for _, x := range rep.Targets {
		if !x.Measured {
			t.Fatalf("target %q not measured", x.Name)
		}
	}
	for _, want := range []string{"q16: quiver zstd:3 bytes ÷ arrow-go zstd", "| arrow-go | zstd", "wide:"} {
		if !strings.Contains(out.String(), want) {
			t.Fatalf("report lacks %q:\n%s", want, out.String())
		}
	}
}
