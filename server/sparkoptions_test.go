package server

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/flight"

	"github.com/quiverdb/quiver/codec"
)

// TestSparkCodecOptions: Spark's and Kyuubi's keys set the result codec as
// quiver.result.codec does, in one documented order.
func TestSparkCodecOptions(t *testing.T) {
	ts := startServer(t, Config{}, numbersTable(1000, 1000))
	cl := ts.client(t)
	ctx := context.Background()
	for _, step := range []struct {
		set  map[string]any
		bad  []string // options refused
		want string   // quiver.result.codec after
	}{
		{set: map[string]any{OptionSparkCodec: "lz4"}, want: "lz4"},
		{set: map[string]any{OptionSparkCodec: "ZSTD"}, want: "zstd:3"}, // Spark's default level
		{set: map[string]any{OptionSparkZstdLevel: "1"}, want: "zstd:1"},
		{set: map[string]any{OptionSparkCodec: "none"}, want: "none"},
		{set: map[string]any{OptionSparkCodec: "zstd"}, want: "zstd:1"}, // the level set before
		{set: map[string]any{OptionSparkCodec: "zstd", OptionSparkZstdLevel: int64(5)}, want: "zstd:5"},
		{set: map[string]any{OptionResultCodec: "zstd:7", OptionSparkZstdLevel: "2"}, want: "zstd:2"},
		{set: map[string]any{OptionResultCodec: "lz4", OptionSparkCodec: "none"}, want: "none"}, // Spark's applies last
		{set: map[string]any{OptionSparkCodec: "gzip", OptionSparkZstdLevel: "99"}, bad: []string{OptionSparkCodec, OptionSparkZstdLevel}, want: "none"},
		{set: map[string]any{OptionSparkZstdLevel: "9"}, want: "none"}, // no zstd to change
		{set: map[string]any{OptionSparkCodec: ""}, bad: []string{OptionSparkCodec}, want: "none"},
		{set: map[string]any{OptionSparkCodec: "lz4"}, want: "lz4"},
	} {
		res, err := setOptions(ctx, cl, step.set)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(slices.Sorted(maps.Keys(res.GetErrors()))) != fmt.Sprint(step.bad) {
			t.Errorf("%v: refused %v, want %v", step.set, res.GetErrors(), step.bad)
		}
		if got, err := sessionCodec(ctx, cl); err != nil || got != step.want {
			t.Errorf("%v: codec %q %v, want %q", step.set, got, err, step.want)
		}
	}
	if kinds := codecKinds(fetchRaw(t, cl, ctx, `SELECT id, name FROM nums`).infos); len(kinds) != 1 || kinds[0] != codec.LZ4 {
		t.Errorf("result codecs: %v", kinds)
	}
	// The Spark keys read back as set; unsetting one goes back to the
	// server's default.
	var got flight.GetSessionOptionsResult
	if err := doAction(ctx, cl, flight.GetSessionOptionsActionType, &flight.GetSessionOptionsRequest{}, &got); err != nil {
		t.Fatal(err)
	}
	if v := got.GetSessionOptions()[OptionSparkCodec].GetStringValue(); v != "lz4" {
		t.Errorf("%s reads back %q", OptionSparkCodec, v)
	}
	unset := &flight.SetSessionOptionsRequest{SessionOptions: map[string]*flight.SessionOptionValue{OptionSparkCodec: {}}}
	var res flight.SetSessionOptionsResult
	if err := doAction(ctx, cl, flight.SetSessionOptionsActionType, unset, &res); err != nil {
		t.Fatal(err)
	}
	if got, err := sessionCodec(ctx, cl); err != nil || got != "auto" {
		t.Errorf("after unsetting %s: %q %v", OptionSparkCodec, got, err)
	}
}
