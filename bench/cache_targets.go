package bench

import (
	"fmt"
	"time"
)

// The targets of the cache (issue 3), as ratios within one run on the
// Comet relation, for the default setting, auto:
//
//   - its footprint at most 1.2× zstd:1's, while reading 6 of 6 columns
//     within 2× the time of the same read of the uncompressed records;
//   - reading 1 of 6 columns at most 0.35× the time of 6 of 6;
//   - the filter at most 0.1× the time of 6 of 6 (it reads all 6 columns
//     too, of the batches pruning keeps).
const (
	maxAutoFootprint = 1.2  // × zstd:1's footprint
	maxAutoRead      = 2.0  // × the uncompressed records' read of 6 of 6
	maxOneOfSix      = 0.35 // × auto's read of 6 of 6
	maxFilter        = 0.1  // × auto's read of 6 of 6
)

func (r *CacheReport) targets() []TargetResult {
	var comet RelationResult
	for _, rel := range r.Relations {
		if rel.Name == "comet" {
			comet = rel
		}
	}
	if comet.Name == "" {
		return nil
	}
	auto, hasAuto := comet.Cell("auto")
	z1, hasZ1 := comet.Cell("zstd:1")
	mem, _ := comet.Cell("uncompressed")
	six, one, filter := comet.Query("read 6"), comet.Query("read 1"), comet.Query("filter")

	ts := []TargetResult{
		{Name: "auto: footprint ÷ zstd:1's; read 6 of 6 ÷ uncompressed read", Need: fmt.Sprintf("≤ %.2f; ≤ %.2f", maxAutoFootprint, maxAutoRead)},
		{Name: "auto: read 1 of 6 ÷ read 6 of 6", Need: fmt.Sprintf("≤ %.2f", maxOneOfSix)},
		{Name: "auto: filter ÷ read 6 of 6", Need: fmt.Sprintf("≤ %.2f", maxFilter)},
	}
	for i := range ts {
		ts[i].Got, ts[i].OfMedians = "-", "-"
	}
	if !hasAuto {
		for i := range ts {
			ts[i].Note = "auto not in --codecs"
		}
		return ts
	}
	if hasZ1 {
		size := float64(auto.Footprint) / float64(z1.Footprint)
		speed := timeRatio(auto.Reads[six], mem.Reads[six])
		ts[0].Got = fmtTarget(size) + "; " + fmtTarget(speed)
		ts[0].OfMedians = fmtTarget(size) + "; " + fmtTarget(ratioOfMedians(auto.Reads[six], mem.Reads[six]))
		ts[0].Measured, ts[0].Pass = true, size <= maxAutoFootprint && speed <= maxAutoRead
	} else {
		ts[0].Note = "zstd:1 not in --codecs"
	}
	got := timeRatio(auto.Reads[one], auto.Reads[six])
	ts[1].Got, ts[1].OfMedians = fmtTarget(got), fmtTarget(ratioOfMedians(auto.Reads[one], auto.Reads[six]))
	ts[1].Measured, ts[1].Pass = true, got <= maxOneOfSix

	got = timeRatio(auto.Reads[filter], auto.Reads[six])
	ts[2].Got, ts[2].OfMedians = fmtTarget(got), fmtTarget(ratioOfMedians(auto.Reads[filter], auto.Reads[six]))
	ts[2].Measured, ts[2].Pass = true, got <= maxFilter
	ts[2].Note = fmt.Sprintf("decoded %d of %d batches", auto.Decoded[filter], auto.Batches[filter])
	return ts
}

// timeRatio is how long num took as a fraction of den: the median over
// runs of num[i]/den[i] (pairedRatio, which says why per run).
func timeRatio(num, den []time.Duration) float64 { return pairedRatio(den, num) }

func ratioOfMedians(num, den []time.Duration) float64 {
	return float64(median(num)) / float64(median(den))
}
