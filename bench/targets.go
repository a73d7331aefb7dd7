package bench

import (
	"fmt"
	"io"
)

// The speed targets of the codec layer, as ratios within one run:
//
//   - quiver's lz4 decode ≥ 2× arrow-go's lz4 read;
//   - quiver's zstd decode ≥ 1.5× arrow-go's zstd read;
//   - quiver's zstd:1 encode on one goroutine ≥ 1.5× arrow-go's zstd
//     writer, writing at most 1.25× its bytes;
//   - each codec alone decodes at ≥ 0.9× (lz4) and ≥ 0.75× (zstd) the
//     speed of the C library on the same frames (needs -tags cref).
//
// arrow-go's zstd is about level 3, so both quiver levels are held to it.
const (
	needLZ4Decode   = 2.0
	needZstdDecode  = 1.5
	needZstdEncode  = 1.5
	maxZstdBytes    = 1.25
	needLZ4VsC      = 0.9
	needZstdVsC     = 0.75
	zstdEncodeLevel = "zstd:1"
)

func (r *CodecsReport) targets() []TargetResult {
	var ts []TargetResult
	for _, g := range r.Config.Goroutines {
		for _, pair := range [][2]string{{"lz4", "lz4"}, {"zstd:1", "zstd"}, {"zstd:3", "zstd"}} {
			q, ok1 := r.ipc("quiver", pair[0], g)
			a, ok2 := r.ipc("arrow-go", pair[1], g)
			if !ok1 || !ok2 {
				continue
			}
			need := needZstdDecode
			if pair[1] == "lz4" {
				need = needLZ4Decode
			}
			got := pairedRatio(q.Decode, a.Decode)
			ts = append(ts, TargetResult{
				Name:      fmt.Sprintf("decode %s ÷ arrow-go %s read, %d goroutine(s)", pair[0], pair[1], g),
				Need:      fmt.Sprintf("≥ %.2f", need),
				Got:       fmtTarget(got),
				OfMedians: fmtTarget(q.DecodeMBps / a.DecodeMBps),
				Measured:  true, Pass: got >= need,
			})
		}
	}
	if q, ok := r.ipc("quiver", zstdEncodeLevel, 1); ok {
		if a, ok := r.ipc("arrow-go", "zstd", 1); ok {
			speed, size := pairedRatio(q.Encode, a.Encode), float64(q.Bytes)/float64(a.Bytes)
			ts = append(ts, TargetResult{
				Name:      "encode zstd:1 ÷ arrow-go zstd write, 1 goroutine (speed; bytes)",
				Need:      fmt.Sprintf("≥ %.2f; ≤ %.2f", needZstdEncode, maxZstdBytes),
				Got:       fmtTarget(speed) + "; " + fmtTarget(size),
				OfMedians: fmtTarget(q.EncodeMBps/a.EncodeMBps) + "; " + fmtTarget(size),
				Measured:  true, Pass: speed >= needZstdEncode && size <= maxZstdBytes,
			})
		}
	}
	for _, a := range r.Alone {
		if a.Goroutines != 1 || a.Codec == "copy()" {
			continue
		}
		need := needZstdVsC
		if a.Codec == "lz4" {
			need = needLZ4VsC
		}
		t := TargetResult{
			Name: fmt.Sprintf("codec alone: %s decode ÷ fastest C decode of the same frames", a.Codec),
			Need: fmt.Sprintf("≥ %.2f", need),
			Got:  "-", OfMedians: "-",
			Note: r.CNote,
		}
		var best CResult
		for _, c := range r.C {
			if c.Codec == a.Codec && c.MBps > best.MBps {
				best = c
			}
		}
		if best.MBps > 0 {
			got := best.QuiverOverC
			t.Got, t.Measured, t.Pass, t.Note = fmtTarget(got), true, got >= need, "vs "+best.Impl
			t.OfMedians = fmtTarget(a.DecompressMBps / best.MBps)
		}
		ts = append(ts, t)
	}
	return ts
}

// fmtTarget shows a third decimal so a ratio just under its bound does
// not print as the bound itself.
func fmtTarget(v float64) string { return fmt.Sprintf("%.3f", v) }

// writeTargets prints the targets table of a report (`bench codecs` and
// `bench cache` alike).
func writeTargets(w io.Writer, ts []TargetResult) error {
	io.WriteString(w, "Targets (got: median of the per-run ratios of two cells run back to back; of medians: ratio of the medians above)\n\n")
	t := newTable("target", "need", "got", "of medians", "result")
	for _, x := range ts {
		res := "not measured"
		if x.Measured {
			res = "MISS"
			if x.Pass {
				res = "PASS"
			}
		}
		if x.Note != "" {
			res += " (" + x.Note + ")"
		}
		t.add(x.Name, x.Need, x.Got, x.OfMedians, res)
	}
	return t.write(w)
}
