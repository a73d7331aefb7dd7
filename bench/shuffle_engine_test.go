package bench

import (
	"strings"
	"testing"
	"time"
)

// A shuffle report whose cells of one query answered differently fails;
// different queries, or equal answers, do not. Validate refuses negative
// settings and no workers.
func TestShuffleEngineCheck(t *testing.T) {
	rep := &ShuffleEngineReport{Cells: []ShuffleCell{
		{Query: "skew join", Data: "unskewed", Mode: "memory", Rows: 1, Check: "400000, 1, 2"},
		{Query: "skew join", Data: "unskewed", Mode: "limit", Rows: 1, Check: "400000, 1, 2"},
		{Query: "skew join", Data: "build 30% one key", Mode: "limit", Rows: 1, Check: "520000, 1, 2"},
	}}
	if err := rep.check(); err != nil {
		t.Fatal(err)
	}
	rep.Cells[1].Check = "399999, 1, 2"
	if err := rep.check(); err == nil || !strings.Contains(err.Error(), "unskewed") {
		t.Fatalf("differing answers: %v", err)
	}
	for _, cfg := range []ShuffleEngineConfig{{SF: -1}, {Memory: -1}, {Workers: []int{0}}} {
		if err := cfg.withDefaults().Validate(); err == nil {
			t.Errorf("%+v accepted", cfg)
		}
	}
	rep = &ShuffleEngineReport{Config: ShuffleEngineConfig{SF: 1, Runs: 1}.withDefaults(), BuildRows: 2, ProbeRows: 4, Cells: []ShuffleCell{
		{Part: "c", Query: "skew join", Data: "unskewed", Mode: "limit", Times: []time.Duration{100 * time.Millisecond}},
		{Part: "c", Query: "skew join", Data: "build 30% one key", Mode: "limit", Times: []time.Duration{120 * time.Millisecond}},
		{Part: "c", Query: "skew join", Data: "build 30% one key", Mode: "limit, no split", Times: []time.Duration{300 * time.Millisecond}},
	}}
	var b strings.Builder
	if err := rep.Write(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "1.20× (met); without the split 3.00×") {
		t.Errorf("target line:\n%s", b.String())
	}
}
