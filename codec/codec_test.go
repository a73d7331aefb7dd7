package codec_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/codec/codectest"
)

func TestConformance(t *testing.T) {
	for _, text := range []string{"none", "lz4", "zstd:1", "zstd:3", "zstd:19", "zstd:-5"} {
		t.Run(text, func(t *testing.T) {
			s, err := codec.ParseSetting(text)
			if err != nil {
				t.Fatal(err)
			}
			t.Parallel()
			codectest.Run(t, codec.MustNew(s))
		})
	}
}

func TestSettingRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		text string
		want codec.Setting
		str  string
	}{
		{"none", codec.SettingNone, "none"},
		{"lz4", codec.SettingLZ4, "lz4"},
		{"zstd", codec.SettingZstd, "zstd:3"},
		{"zstd:1", codec.Setting{Kind: codec.Zstd, Level: 1}, "zstd:1"},
		{"zstd:19", codec.Setting{Kind: codec.Zstd, Level: 19}, "zstd:19"},
		{"zstd:-5", codec.Setting{Kind: codec.Zstd, Level: -5}, "zstd:-5"},
		{"zstd:0", codec.SettingZstd, "zstd:3"},
		{" LZ4_FRAME ", codec.SettingLZ4, "lz4"},
		{"uncompressed", codec.SettingNone, "none"},
		{"zstd:-131072", codec.Setting{Kind: codec.Zstd, Level: codec.MinZstdLevel}, "zstd:-131072"},
		{"zstd:22", codec.Setting{Kind: codec.Zstd, Level: codec.MaxZstdLevel}, "zstd:22"},
	} {
		s, err := codec.ParseSetting(tc.text)
		if err != nil || s != tc.want {
			t.Errorf("ParseSetting(%q) = %+v, %v; want %+v", tc.text, s, err, tc.want)
			continue
		}
		if s.String() != tc.str {
			t.Errorf("%+v.String() = %q, want %q", s, s.String(), tc.str)
		}
		back, err := codec.ParseSetting(s.String())
		if err != nil || back != s {
			t.Errorf("ParseSetting(String()) = %+v, %v; want %+v", back, err, s)
		}
		text, _ := s.MarshalText()
		var u codec.Setting
		if err := u.UnmarshalText(text); err != nil || u != s {
			t.Errorf("UnmarshalText(%q) = %+v, %v", text, u, err)
		}
		c, err := codec.New(s)
		if err != nil || c.Setting() != s {
			t.Errorf("New(%+v).Setting() = %+v, %v", s, c.Setting(), err)
		}
	}
}

func TestSettingRejects(t *testing.T) {
	for _, tc := range []struct{ text, msg string }{
		{"", "unknown codec"},
		{"lz5", "unknown codec"},
		{"gzip", "unknown codec"},
		{"zstd:", "bad zstd level"},
		{"zstd:x", "bad zstd level"},
		{"zstd:1.5", "bad zstd level"},
		{"zstd:23", "outside"},
		{"zstd:-131073", "outside"},
		{"lz4:1", "takes no level"},
		{"none:0", "takes no level"},
	} {
		s, err := codec.ParseSetting(tc.text)
		if err == nil || !strings.Contains(err.Error(), tc.msg) || s != (codec.Setting{}) {
			t.Errorf("ParseSetting(%q) = %+v, %v; want error containing %q", tc.text, s, err, tc.msg)
		}
		var u codec.Setting
		if err := u.UnmarshalText([]byte(tc.text)); err == nil {
			t.Errorf("UnmarshalText(%q) accepted", tc.text)
		}
	}
	for _, s := range []codec.Setting{
		{Kind: 9},
		{Kind: codec.LZ4, Level: 1},
		{Kind: codec.Zstd, Level: 23},
	} {
		if _, err := codec.New(s); err == nil {
			t.Errorf("New(%+v) accepted", s)
		}
	}
	if got := codec.Kind(9).String(); got != "Kind(9)" {
		t.Errorf("Kind(9).String() = %q", got)
	}
}

func TestSentinelsMatchCorrupt(t *testing.T) {
	for _, err := range []error{
		codec.ErrTooLarge, codec.ErrTooSmall, codec.ErrNotFrame, codec.ErrHeaderTruncated,
		codec.ErrNoEndMark, codec.ErrBlockOverrun, codec.ErrBlockCorrupt, codec.ErrChecksum,
	} {
		if !errors.Is(err, codec.ErrCorrupt) {
			t.Errorf("%v does not match ErrCorrupt", err)
		}
		if errors.Is(codec.ErrCorrupt, err) {
			t.Errorf("ErrCorrupt matches %v", err)
		}
	}
	if errors.Is(codec.ErrTooLarge, codec.ErrTooSmall) {
		t.Error("ErrTooLarge matches ErrTooSmall")
	}
}
