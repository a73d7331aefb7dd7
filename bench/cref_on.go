//go:build cref

package bench

import (
	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/internal/cref"
)

// With -tags cref, RunCodecs also decodes the frames quiver's codecs wrote
// with Debian's liblz4 and libzstd, so "codec alone" has its C reference
// in the same run.

// newCDecoders returns the C decoders for frames of kind; want holds the
// decoded buffers, which each decoder checks once before it is timed.
func newCDecoders(kind codec.Kind, frames, want [][]byte) ([]cDecoder, error) {
	var formats []cref.Format
	switch kind {
	case codec.LZ4:
		formats = []cref.Format{cref.LZ4Frame, cref.LZ4Block}
	case codec.Zstd:
		formats = []cref.Format{cref.Zstd}
	}
	var decs []cDecoder
	for _, f := range formats {
		p, err := cref.NewDecodePass(f, frames, want)
		if err != nil {
			for _, d := range decs {
				d.Close()
			}
			return nil, err
		}
		decs = append(decs, p)
	}
	return decs, nil
}

func cVersions() string { return cref.Versions() }

// DecodeSpeedsC times runs passes of each C decoder for frames of kind
// (frame i decodes to want[i]) and returns their medians.
func DecodeSpeedsC(kind codec.Kind, frames, want [][]byte, runs int) ([]CSpeed, error) {
	formats := []cref.Format{cref.Zstd}
	if kind == codec.LZ4 {
		formats = []cref.Format{cref.LZ4Frame, cref.LZ4Block}
	}
	speeds, err := cref.DecodeSpeeds(frames, want, formats, runs)
	if err != nil {
		return nil, err
	}
	out := make([]CSpeed, len(speeds))
	for i, s := range speeds {
		out[i] = CSpeed{Name: s.Name, Bytes: s.Bytes, Median: s.Median, MBps: s.MBps}
	}
	return out, nil
}
