package shuffle

import (
	"encoding/binary"
	"fmt"
	"runtime"
	"slices"
	"sync"

	"github.com/klauspost/compress/zstd"

	"github.com/quiverdb/quiver/codec"
)

// The body is compressed in segments of segmentBytes, each its own frame,
// so that both directions run on every core: 200,000 statuses of 1,000
// blocks are a 200 MB body.
const segmentBytes = 1 << 20

// statusZstd holds the zstd encoders of status bodies, one per klauspost
// speed, shared. They differ from package codec's in one option:
// WithAllLitEntropyCompression. Size bytes are nearly random symbols with
// about 4.9 bits of entropy (the 1.1^b scale crowds sizes into the top
// codes) and no repeats; without the option klauspost's fast levels store
// a block that found no matches raw, 8 bits a byte, and Huffman coding
// is where all the saving is (measured on Spark's benchmark sizes: 1.00 →
// 0.62 of the bytes, and faster, as no match search is wasted).
var statusZstd = func() (e [zstd.SpeedBestCompression + 1]func() *zstd.Encoder) {
	for speed := zstd.SpeedFastest; speed <= zstd.SpeedBestCompression; speed++ {
		e[speed] = sync.OnceValue(func() *zstd.Encoder {
			enc, err := zstd.NewWriter(nil,
				zstd.WithEncoderLevel(speed),
				zstd.WithAllLitEntropyCompression(true),
				zstd.WithEncoderConcurrency(min(runtime.GOMAXPROCS(0), 4)),
				zstd.WithEncoderCRC(false), // the format has no use for it; codec's frames have none either
				zstd.WithWindowSize(segmentBytes),
				zstd.WithZeroFrames(true),
			)
			if err != nil {
				panic("shuffle: zstd encoder options: " + err.Error())
			}
			return enc
		})
	}
	return e
}()

// compressor returns the function compressing one segment for setting c.
func compressor(c codec.Setting) (func(dst, src []byte) []byte, error) {
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("shuffle: statuses codec: %w", err)
	}
	if c.Kind == codec.Zstd {
		speed := zstd.EncoderLevelFromZstd(c.Level)
		if c.Level == 0 {
			speed = zstd.SpeedDefault // zstd's level 0 means its default, 3
		}
		enc := statusZstd[speed]()
		return func(dst, src []byte) []byte { return enc.EncodeAll(src, dst) }, nil
	}
	cc, err := codec.New(c)
	if err != nil {
		return nil, err
	}
	return cc.Compress, nil
}

// segment is a piece of the body compressed as one frame: n bytes from
// off of a region of it.
type segment struct {
	read   func(dst []byte, off int) // fills dst with the region's bytes from off
	off, n int
	frame  []byte
}

// cut cuts a region of n bytes into segments of segmentBytes.
func cut(read func([]byte, int), n int) []segment {
	segs := make([]segment, 0, (n+segmentBytes-1)/segmentBytes)
	for off := 0; off < n; off += segmentBytes {
		segs = append(segs, segment{read: read, off: off, n: min(segmentBytes, n-off)})
	}
	return segs
}

// segmentScratch holds a goroutine's copy of the segment it compresses
// and the compressed bytes, sized for incompressible input (zstd's
// bound: +1/256 and a frame header) so no encoder call allocates; kept
// between serializations.
type segmentScratch struct{ raw, out []byte }

var segmentScratches = sync.Pool{New: func() any {
	return &segmentScratch{raw: make([]byte, segmentBytes), out: make([]byte, 0, segmentBytes+segmentBytes>>8+64)}
}}

// compressSegments compresses every segment into its frame, on up to
// GOMAXPROCS goroutines.
func compressSegments(segs []segment, compress func(dst, src []byte) []byte) {
	parallel(len(segs), func(i int) {
		s := &segs[i]
		var sc *segmentScratch
		if s.n < segmentBytes/4 { // a small body: no 1 MiB buffers
			sc = &segmentScratch{raw: make([]byte, s.n), out: make([]byte, 0, s.n+s.n>>8+64)}
		} else {
			sc = segmentScratches.Get().(*segmentScratch)
			defer segmentScratches.Put(sc)
		}
		raw := sc.raw[:s.n]
		s.read(raw, s.off)
		sc.out = compress(sc.out[:0], raw)
		s.frame = slices.Clone(sc.out)
	})
}

// appendSegments appends the segment table and the frames: uvarint
// segment count, per segment uvarint decoded and compressed length, then
// the frames.
func appendSegments(dst []byte, segs []segment) []byte {
	total := 0
	for _, s := range segs {
		total += len(s.frame)
	}
	if need := total + (1+2*len(segs))*binary.MaxVarintLen64; cap(dst)-len(dst) < need {
		// Not slices.Grow, which clears what it adds: 123 MB at 1,000
		// blocks per status, written again at once. Memory fresh from
		// the system needs no clearing.
		grown := make([]byte, len(dst), len(dst)+need)
		copy(grown, dst)
		dst = grown
	}
	dst = binary.AppendUvarint(dst, uint64(len(segs)))
	for _, s := range segs {
		dst = binary.AppendUvarint(dst, uint64(s.n))
		dst = binary.AppendUvarint(dst, uint64(len(s.frame)))
	}
	for _, s := range segs {
		dst = append(dst, s.frame...)
	}
	return dst
}

// decompressSegments reads what appendCompressed wrote into a body of
// exactly n bytes (n already checked against the limits).
func decompressSegments(b []byte, c codec.Codec, n int) ([]byte, error) {
	r := &reader{b: b}
	segs := r.uvarint("segment table")
	if r.err == nil && segs > uint64(len(r.b))/2 { // two bytes an entry at least
		return nil, corruptf("statuses: %d segments in %d bytes", segs, len(r.b))
	}
	type seg struct{ rawOff, raw, off, comp int }
	table := make([]seg, segs)
	var rawOff, off uint64
	for i := range table {
		raw, comp := r.uvarint("segment table"), r.uvarint("segment table")
		if r.err != nil {
			return nil, r.err
		}
		if raw > uint64(n)-rawOff || comp > uint64(len(b)) {
			return nil, corruptf("statuses: segment %d of %d bytes (%d compressed) past a %d-byte body", i, raw, comp, n)
		}
		// Checked before the body is allocated, so a few bytes claiming a
		// gigabyte cost nothing.
		if raw > comp*maxExpansion(c.Setting().Kind) {
			return nil, corruptf("statuses: segment %d: %d bytes cannot decode to %d with %s", i, comp, raw, c.Setting().Kind)
		}
		table[i] = seg{int(rawOff), int(raw), int(off), int(comp)}
		rawOff += raw
		off += comp
	}
	if r.err != nil {
		return nil, r.err
	}
	if rawOff != uint64(n) || off != uint64(len(r.b)) {
		return nil, corruptf("statuses: segments hold %d bytes in %d, the body is %d in %d", rawOff, off, n, len(r.b))
	}
	frames := r.b
	body := make([]byte, n)
	errs := make([]error, len(table))
	parallel(len(table), func(i int) {
		s := table[i]
		_, errs[i] = c.Decompress(body[s.rawOff:s.rawOff:s.rawOff+s.raw], frames[s.off:s.off+s.comp], s.raw)
	})
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("%w: statuses: segment %d: %w", ErrCorrupt, i, err)
		}
	}
	return body, nil
}

// maxExpansion bounds what one compressed byte decodes to: zstd's 32 KiB
// (a 128 KiB block from an RLE block of 4 bytes), LZ4 under 256 (each
// extra match-length byte adds 255), none 1.
func maxExpansion(k codec.Kind) uint64 {
	switch k {
	case codec.Zstd:
		return 32 << 10
	case codec.LZ4:
		return 256
	}
	return 1
}

// parallel runs f(0..n-1) on up to GOMAXPROCS goroutines.
func parallel(n int, f func(int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 {
		for i := range n {
			f(i)
		}
		return
	}
	var next sync.Mutex
	i := 0
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				next.Lock()
				j := i
				i++
				next.Unlock()
				if j >= n {
					return
				}
				f(j)
			}
		})
	}
	wg.Wait()
}
