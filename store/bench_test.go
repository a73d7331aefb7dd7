package store

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/cache"
	"github.com/quiverdb/quiver/internal/arrowsize"
)

// benchInput is 16 batches of 8192 rows of testSchema, and their Arrow
// bytes.
func benchInput(b *testing.B) ([]arrow.RecordBatch, int64) {
	r := batches(memory.DefaultAllocator, 1, 16, 8192)
	defer r.Release()
	var recs []arrow.RecordBatch
	var size int64
	for r.Next() {
		rec := r.RecordBatch()
		rec.Retain()
		recs = append(recs, rec)
		size += arrowsize.Record(rec)
	}
	b.Cleanup(func() {
		for _, rec := range recs {
			rec.Release()
		}
	})
	return recs, size
}

// BenchmarkPut answers: what does writing a table through (chunk file,
// manifest, three fsyncs) cost next to the cache's in-memory Put? MB/s
// are of Arrow bytes in; the store's put includes the cache's encoding.
func BenchmarkPut(b *testing.B) {
	recs, size := benchInput(b)
	reader := func() array.RecordReader {
		r, err := array.NewRecordReader(testSchema, recs)
		if err != nil {
			b.Fatal(err)
		}
		return r
	}
	b.Run("to=memory", func(b *testing.B) {
		c, _ := cache.New(cache.Options{})
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			r := reader()
			if _, err := c.Put(context.Background(), "t", r, cache.TableOptions{}); err != nil {
				b.Fatal(err)
			}
			r.Release()
		}
	})
	for _, op := range []string{"put", "append", "put/stream=off"} {
		b.Run("to=disk/op="+op, func(b *testing.B) {
			noStream = strings.HasSuffix(op, "stream=off")
			defer func() { noStream = false }()
			c, _ := cache.New(cache.Options{Budget: 8 << 30})
			s, err := Open(b.TempDir(), c, Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			r := reader()
			if _, err := s.Put(context.Background(), "t", r, cache.TableOptions{}); err != nil {
				b.Fatal(err)
			}
			r.Release()
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				r := reader()
				if op != "append" {
					_, err = s.Put(context.Background(), "t", r, cache.TableOptions{})
				} else {
					_, err = s.Append(context.Background(), "t", r, cache.TableOptions{})
				}
				if err != nil {
					b.Fatal(err)
				}
				r.Release()
			}
			info, _ := c.Info("t")
			b.ReportMetric(float64(info.Compressed)/float64(info.Batches)/8192, "chunkB/row")
		})
	}
}

// bigOpen adds a directory of about 1 GB to BenchmarkOpen (it takes a
// while to write).
var bigOpen = flag.Bool("store.bigopen", false, "BenchmarkOpen also over about 1 GB of tables")

// BenchmarkOpen answers: how long from Open until a restarted server has
// answered a first query (a scan of one column of one table's first
// batch), over N tables of 16 batches each? Open reads manifests only.
func BenchmarkOpen(b *testing.B) {
	recs, _ := benchInput(b)
	sizes := []int{10, 100}
	if *bigOpen {
		sizes = append(sizes, 800)
	}
	for _, n := range sizes {
		b.Run(fmt.Sprintf("tables=%d", n), func(b *testing.B) {
			dir := b.TempDir()
			c, _ := cache.New(cache.Options{Budget: 64 << 30})
			s, err := Open(dir, c, Options{})
			if err != nil {
				b.Fatal(err)
			}
			var compressed int64
			for i := range n {
				r, _ := array.NewRecordReader(testSchema, recs)
				info, err := s.Put(context.Background(), fmt.Sprintf("t%d", i), r, cache.TableOptions{})
				r.Release()
				if err != nil {
					b.Fatal(err)
				}
				compressed += info.Compressed
			}
			s.Close()
			b.ReportAllocs()
			for b.Loop() {
				c, _ := cache.New(cache.Options{Budget: 64 << 30})
				s, err := Open(dir, c, Options{})
				if err != nil {
					b.Fatal(err)
				}
				sc, err := c.Scan(context.Background(), "t0", cache.ScanOptions{Columns: []int{0}, Concurrency: 1})
				if err != nil {
					b.Fatal(err)
				}
				if !sc.Next() {
					b.Fatal(sc.Err())
				}
				sc.Release()
				s.Close()
			}
			b.ReportMetric(float64(compressed)/1e6, "MB_on_disk")
		})
	}
}

// BenchmarkWriteThrough answers: what do the store's writes alone cost
// (chunk file, manifest, three fsyncs, the first two at once, no
// encoding) for a table change of
// 16 batches? MB/s are of the change's Arrow bytes, comparable with
// BenchmarkPut/to=memory: a write-through Put costs about the sum of the
// two times.
func BenchmarkWriteThrough(b *testing.B) {
	recs, size := benchInput(b)
	c, _ := cache.New(cache.Options{})
	r, _ := array.NewRecordReader(testSchema, recs)
	ch, err := c.PreparePut(context.Background(), "t", r, cache.TableOptions{})
	r.Release()
	if err != nil {
		b.Fatal(err)
	}
	defer ch.Abort()
	img := ch.Image()
	s, err := Open(b.TempDir(), c, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	var chunkBytes int64
	for _, bi := range img.Batches {
		for _, chunk := range bi.Chunks {
			chunkBytes += int64(len(chunk))
		}
	}
	b.SetBytes(size)
	seq := uint64(0)
	for b.Loop() {
		seq++
		m := &manifest{id: 1, nextSeq: seq + 1, img: img}
		m.img.Batches = nil
		path := s.path(chunkName(1, seq))
		f, offsets, n, err := writeChunkFile(s.fs, path, img.Batches)
		if err != nil {
			b.Fatal(err)
		}
		m.files = []fileRef{{seq: seq, size: n}}
		for i, bi := range img.Batches {
			m.locs = append(m.locs, batchLoc{offset: offsets[i]})
			bi.Sizes = make([]int64, len(bi.Chunks))
			for c := range bi.Chunks {
				bi.Sizes[c] = int64(len(bi.Chunks[c]))
			}
			bi.Chunks = nil
			m.img.Batches = append(m.img.Batches, bi)
		}
		raw, err := m.encode()
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.writeManifest(1, raw, f); err != nil {
			b.Fatal(err)
		}
		if seq > 1 {
			s.removeQuietly(s.path(chunkName(1, seq-1)))
		}
	}
	b.ReportMetric(float64(chunkBytes)/1e6, "MB_written/op")
}

// coldCache makes BenchmarkScanFromDisk drop the chunk files' pages from
// the page cache before each scan (posix_fadvise DONTNEED; Linux only).
var coldCache = flag.Bool("store.cold", false, "BenchmarkScanFromDisk/from=disk reads with the chunk files' page cache dropped")

// BenchmarkScanFromDisk answers: what does the first scan of a restored
// table (each batch read from its chunk file, page cache warm, or cold
// with -store.cold, and checksummed) cost next to a scan of the same
// table in memory? Both decode every column; MB/s are of Arrow bytes
// produced.
func BenchmarkScanFromDisk(b *testing.B) {
	recs, size := benchInput(b)
	dir := b.TempDir()
	c, _ := cache.New(cache.Options{})
	s, err := Open(dir, c, Options{})
	if err != nil {
		b.Fatal(err)
	}
	r, _ := array.NewRecordReader(testSchema, recs)
	_, err = s.Put(context.Background(), "t", r, cache.TableOptions{})
	r.Release()
	if err != nil {
		b.Fatal(err)
	}
	s.Close()
	scan := func(b *testing.B, c *cache.Cache) {
		sc, err := c.Scan(context.Background(), "t", cache.ScanOptions{})
		if err != nil {
			b.Fatal(err)
		}
		for sc.Next() {
		}
		sc.Release()
		if err := sc.Err(); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("from=memory", func(b *testing.B) {
		b.SetBytes(size)
		for b.Loop() {
			scan(b, c)
		}
	})
	b.Run("from=disk", func(b *testing.B) {
		b.SetBytes(size)
		for b.Loop() {
			b.StopTimer()
			if *coldCache && !dropPageCache(b, dir) {
				b.Skip("posix_fadvise refused: no cold page cache")
			}
			c2, _ := cache.New(cache.Options{})
			s2, err := Open(dir, c2, Options{})
			if err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			scan(b, c2)
			b.StopTimer()
			s2.Close()
			b.StartTimer()
		}
	})
}

// BenchmarkCompaction answers: what does compaction buy a scan of a
// table made of small appends, and what does it cost? The table is put
// with 16 rows and appended to 1,999 times, 16 rows each (in /dev/shm
// when there is one: the question is not the disk's), then scanned
// (every column, in memory after the first scan) as the appends left it
// and after Compact merged it into batches of 8192 rows; compact_ms is
// the compaction's own time, from the chunk files.
func BenchmarkCompaction(b *testing.B) {
	dir := b.TempDir()
	if d, err := os.MkdirTemp("/dev/shm", "quiver-bench-"); err == nil {
		dir = d
		b.Cleanup(func() { os.RemoveAll(d) })
	}
	c, _ := cache.New(cache.Options{Budget: 8 << 30})
	s, err := Open(dir, c, Options{Compaction: Compaction{Files: -1}})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	var size int64
	for i := range 2000 {
		r := batches(memory.DefaultAllocator, uint64(i), 1, 16)
		if i == 0 {
			_, err = s.Put(context.Background(), "t", r, cache.TableOptions{})
		} else {
			_, err = s.Append(context.Background(), "t", r, cache.TableOptions{})
		}
		r.Release()
		if err != nil {
			b.Fatal(err)
		}
	}
	scan := func(b *testing.B) {
		sc, err := c.Scan(context.Background(), "t", cache.ScanOptions{})
		if err != nil {
			b.Fatal(err)
		}
		size = 0
		for sc.Next() {
			size += arrowsize.Record(sc.RecordBatch())
		}
		sc.Release()
		if err := sc.Err(); err != nil {
			b.Fatal(err)
		}
	}
	for _, compacted := range []bool{false, true} {
		name := "table=appends"
		var took time.Duration
		if compacted {
			name = "table=compacted"
			// From the files, as after a restart.
			s.Close()
			c, _ = cache.New(cache.Options{Budget: 8 << 30})
			if s, err = Open(dir, c, Options{Compaction: Compaction{Files: -1}}); err != nil {
				b.Fatal(err)
			}
			start := time.Now()
			for {
				did, err := s.Compact(context.Background(), "t")
				if err != nil {
					b.Fatal(err)
				}
				if !did {
					break
				}
			}
			took = time.Since(start)
		}
		b.Run(name, func(b *testing.B) {
			scan(b) // read from the files once
			b.SetBytes(size)
			for b.Loop() {
				scan(b)
			}
			info, _ := c.Info("t")
			b.ReportMetric(float64(info.Batches), "batches")
			if compacted {
				b.ReportMetric(float64(took.Milliseconds()), "compact_ms")
			}
		})
	}
}
