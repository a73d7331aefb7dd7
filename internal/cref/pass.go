//go:build cref

package cref

/*
#cgo LDFLAGS: -llz4 -lzstd
#include <stdlib.h>
#include <string.h>
#include <lz4.h>
#include <lz4frame.h>
#include <zstd.h>

// One decode job: src[src_off, +src_len) decodes into dst[dst_off, +dst_len).
// raw marks a stored LZ4 block (copied, as a frame decoder would).
typedef struct { size_t src_off, src_len, dst_off, dst_len; int raw; } qv_job;


// The pass loops run entirely in C, one cgo call per pass, so the time is
// the library's and not cgo's. Each returns 0 or 1 + the failing job.

static size_t qv_lz4_blocks(const char* src, char* dst, const qv_job* jobs, size_t n) {
	for (size_t i = 0; i < n; i++) {
		const qv_job* j = &jobs[i];
		if (j->raw) {
			memcpy(dst + j->dst_off, src + j->src_off, j->src_len);
			continue;
		}
		int r = LZ4_decompress_safe(src + j->src_off, dst + j->dst_off, (int)j->src_len, (int)j->dst_len);
		if (r != (int)j->dst_len) return i + 1;
	}
	return 0;
}

static size_t qv_lz4_frames(LZ4F_dctx* d, const char* src, char* dst, const qv_job* jobs, size_t n) {
	LZ4F_decompressOptions_t opt;
	memset(&opt, 0, sizeof opt);
	opt.stableDst = 1;
	for (size_t i = 0; i < n; i++) {
		const qv_job* j = &jobs[i];
		size_t in = 0, out = 0;
		for (;;) {
			size_t dn = j->dst_len - out, sn = j->src_len - in;
			size_t r = LZ4F_decompress(d, dst + j->dst_off + out, &dn, src + j->src_off + in, &sn, &opt);
			if (LZ4F_isError(r)) { LZ4F_resetDecompressionContext(d); return i + 1; }
			in += sn;
			out += dn;
			if (r == 0) break;
			if (sn == 0 && dn == 0) { LZ4F_resetDecompressionContext(d); return i + 1; }
		}
		if (out != j->dst_len) return i + 1;
	}
	return 0;
}

static size_t qv_zstd_frames(ZSTD_DCtx* d, const char* src, char* dst, const qv_job* jobs, size_t n) {
	for (size_t i = 0; i < n; i++) {
		const qv_job* j = &jobs[i];
		size_t r = ZSTD_decompressDCtx(d, dst + j->dst_off, j->dst_len, src + j->src_off, j->src_len);
		if (ZSTD_isError(r) || r != j->dst_len) return i + 1;
	}
	return 0;
}
*/
import "C"

import (
	"bytes"
	"fmt"
	"slices"
	"time"
	"unsafe"
)

// Format is the kind of compressed data a DecodePass reads and the C
// entry point that reads it.
type Format int

const (
	// LZ4Frame: whole LZ4 frames through LZ4F_decompress.
	LZ4Frame Format = iota
	// LZ4Block: the blocks of LZ4 frames (independent blocks only),
	// each through LZ4_decompress_safe: liblz4's raw decoding speed,
	// without the frame API's bookkeeping.
	LZ4Block
	// Zstd: zstd frames through ZSTD_decompressDCtx with one reused DCtx.
	Zstd
)

func (f Format) String() string {
	switch f {
	case LZ4Frame:
		return "C LZ4F_decompress"
	case LZ4Block:
		return "C LZ4_decompress_safe"
	case Zstd:
		return "C ZSTD_decompressDCtx"
	}
	return fmt.Sprintf("Format(%d)", int(f))
}

// DecodePass decodes a fixed set of frames with a C library, as often as
// asked. Inputs and outputs live in C memory, copied in once, and a pass
// is one cgo call, so Run times the library alone.
type DecodePass struct {
	format Format
	src    *C.char
	dst    *C.char
	jobs   *C.qv_job
	njobs  int
	total  int // decoded bytes per pass
	lz4f   *C.LZ4F_dctx
	zstd   *C.ZSTD_DCtx
}

// NewDecodePass prepares passes over frames, where frame i decodes to
// want[i]. It runs one pass and checks every byte against want, so a
// timed pass is known to decode correctly.
func NewDecodePass(f Format, frames, want [][]byte) (*DecodePass, error) {
	if len(frames) != len(want) {
		return nil, fmt.Errorf("cref: %d frames but %d expected outputs", len(frames), len(want))
	}
	srcs, jobs, err := planJobs(f, frames, want)
	if err != nil {
		return nil, err
	}
	p := &DecodePass{format: f, njobs: len(jobs)}
	srcLen := 0
	for _, s := range srcs {
		srcLen += len(s)
	}
	for _, w := range want {
		p.total += len(w)
	}
	p.src = (*C.char)(C.malloc(C.size_t(max(srcLen, 1))))
	p.dst = (*C.char)(C.malloc(C.size_t(max(p.total, 1))))
	p.jobs = (*C.qv_job)(C.malloc(C.size_t(max(len(jobs), 1)) * C.size_t(unsafe.Sizeof(C.qv_job{}))))
	at := 0
	cSrc := unsafe.Slice((*byte)(unsafe.Pointer(p.src)), max(srcLen, 1))
	for _, s := range srcs {
		at += copy(cSrc[at:], s)
	}
	copy(unsafe.Slice(p.jobs, max(len(jobs), 1)), jobs)
	switch f {
	case LZ4Frame:
		if r := C.LZ4F_createDecompressionContext(&p.lz4f, C.LZ4F_VERSION); C.LZ4F_isError(r) != 0 {
			p.Close()
			return nil, fmt.Errorf("%w: LZ4F_createDecompressionContext", ErrC)
		}
	case Zstd:
		p.zstd = C.ZSTD_createDCtx()
	}
	if _, err := p.Run(); err != nil {
		p.Close()
		return nil, err
	}
	got := unsafe.Slice((*byte)(unsafe.Pointer(p.dst)), max(p.total, 1))
	at = 0
	for i, w := range want {
		if !bytes.Equal(got[at:at+len(w)], w) {
			p.Close()
			return nil, fmt.Errorf("cref: %s: frame %d decodes to different bytes", f, i)
		}
		at += len(w)
	}
	return p, nil
}

// planJobs lays frames (or, for LZ4Block, their blocks) out one after the
// other in the source arena and the outputs in the destination arena.
func planJobs(f Format, frames, want [][]byte) ([][]byte, []C.qv_job, error) {
	var srcs [][]byte
	var jobs []C.qv_job
	srcAt, dstAt := 0, 0
	for i, fr := range frames {
		if f != LZ4Block {
			srcs = append(srcs, fr)
			jobs = append(jobs, C.qv_job{src_off: C.size_t(srcAt), src_len: C.size_t(len(fr)), dst_off: C.size_t(dstAt), dst_len: C.size_t(len(want[i]))})
			srcAt += len(fr)
			dstAt += len(want[i])
			continue
		}
		blocks, err := lz4Blocks(fr, len(want[i]))
		if err != nil {
			return nil, nil, fmt.Errorf("cref: frame %d: %w", i, err)
		}
		for _, b := range blocks {
			srcs = append(srcs, b.data)
			raw := C.int(0)
			if b.raw {
				raw = 1
			}
			jobs = append(jobs, C.qv_job{src_off: C.size_t(srcAt), src_len: C.size_t(len(b.data)), dst_off: C.size_t(dstAt), dst_len: C.size_t(b.size), raw: raw})
			srcAt += len(b.data)
			dstAt += b.size
		}
	}
	return srcs, jobs, nil
}

// Name says which C entry point the pass times.
func (p *DecodePass) Name() string { return p.format.String() }

// Bytes is how many bytes one pass decodes.
func (p *DecodePass) Bytes() int64 { return int64(p.total) }

// Run decodes every frame once and returns how long that took.
func (p *DecodePass) Run() (time.Duration, error) {
	n := C.size_t(p.njobs)
	var failed C.size_t
	start := time.Now()
	switch p.format {
	case LZ4Frame:
		failed = C.qv_lz4_frames(p.lz4f, p.src, p.dst, p.jobs, n)
	case LZ4Block:
		failed = C.qv_lz4_blocks(p.src, p.dst, p.jobs, n)
	case Zstd:
		failed = C.qv_zstd_frames(p.zstd, p.src, p.dst, p.jobs, n)
	default:
		return 0, fmt.Errorf("cref: unknown format %d", int(p.format))
	}
	took := time.Since(start)
	if failed != 0 {
		return took, fmt.Errorf("%w: %s: job %d of %d did not decode to its size", ErrC, p.format, failed-1, p.njobs)
	}
	return took, nil
}

// Close frees the C memory. The pass is unusable afterwards.
func (p *DecodePass) Close() {
	C.free(unsafe.Pointer(p.src))
	C.free(unsafe.Pointer(p.dst))
	C.free(unsafe.Pointer(p.jobs))
	if p.lz4f != nil {
		C.LZ4F_freeDecompressionContext(p.lz4f)
	}
	if p.zstd != nil {
		C.ZSTD_freeDCtx(p.zstd)
	}
	*p = DecodePass{}
}

// Speed is a C decoder's median speed over a set of frames. MB/s counts
// decoded bytes, MB = 10^6 bytes.
type Speed struct {
	Name   string
	Bytes  int64
	Median time.Duration
	MBps   float64
}

// DecodeSpeeds times runs passes of each format over frames (frame i
// decodes to want[i]) and returns the medians. The formats must suit the
// frames: LZ4Frame and LZ4Block for LZ4 frames, Zstd for zstd frames.
func DecodeSpeeds(frames, want [][]byte, formats []Format, runs int) ([]Speed, error) {
	runs = max(runs, 1)
	var out []Speed
	for _, f := range formats {
		p, err := NewDecodePass(f, frames, want)
		if err != nil {
			return nil, err
		}
		times := make([]time.Duration, 0, runs)
		for range runs {
			d, err := p.Run()
			if err != nil {
				p.Close()
				return nil, err
			}
			times = append(times, d)
		}
		slices.Sort(times)
		s := Speed{Name: p.Name(), Bytes: p.Bytes(), Median: times[len(times)/2]}
		s.MBps = float64(s.Bytes) / 1e6 / s.Median.Seconds()
		out = append(out, s)
		p.Close()
	}
	return out, nil
}
