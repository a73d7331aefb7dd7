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

// appendCompressed appends the segment table and the compressed segments
// of the body: uvarint segment count, per segment uvarint decoded and
// compressed length, then the frames.
func appendCompressed(dst []byte, body *body, compress func(dst, src []byte) []byte) []byte {
	size := body.len()
	n := (size + segmentBytes - 1) / segmentBytes
	// Each goroutine copies its segment into a raw scratch buffer and
	// compresses it into another, sized for incompressible input (zstd's
	// bound: +1/256 and a frame header) so no encoder call allocates,
	// then keeps an exact copy.
	type scratch struct{ raw, out []byte }
	free := make(chan *scratch, runtime.GOMAXPROCS(0))
	out := make([][]byte, n)
	parallel(n, func(i int) {
		var sc *scratch
		select {
		case sc = <-free:
		default:
			seg := min(segmentBytes, size) // a small body: no 1 MiB buffers
			sc = &scratch{raw: make([]byte, seg), out: make([]byte, 0, seg+seg>>8+64)}
		}
		raw := sc.raw[:min((i+1)*segmentBytes, size)-i*segmentBytes]
		body.read(raw, i*segmentBytes)
		sc.out = compress(sc.out[:0], raw)
		out[i] = slices.Clone(sc.out)
		select {
		case free <- sc:
		default:
		}
	})
	total := 0
	for _, o := range out {
		total += len(o)
	}
	dst = slices.Grow(dst, total+(1+2*n)*binary.MaxVarintLen64)
	dst = binary.AppendUvarint(dst, uint64(n))
	for i, o := range out {
		dst = binary.AppendUvarint(dst, uint64(min((i+1)*segmentBytes, size)-i*segmentBytes))
		dst = binary.AppendUvarint(dst, uint64(len(o)))
	}
	for _, o := range out {
		dst = append(dst, o...)
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
