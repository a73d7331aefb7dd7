package cache

import (
	"fmt"
	"strings"

	"github.com/quiverdb/quiver/codec"
)

// CodecSetting is a table's codec: a fixed [codec.Setting], or Auto, which
// picks a codec per column from a sample of the table's first batches (see
// auto.go). The zero value means "the cache's default".
type CodecSetting struct {
	Auto    bool
	Setting codec.Setting // used when !Auto
	set     bool
}

// Auto is the per-column choice; Fixed a single codec for every column.
var Auto = CodecSetting{Auto: true, set: true}

// Fixed returns the setting that compresses every column with s.
func Fixed(s codec.Setting) CodecSetting { return CodecSetting{Setting: s, set: true} }

// IsZero reports the unset setting ("use the default").
func (s CodecSetting) IsZero() bool { return !s.set && !s.Auto && s.Setting == (codec.Setting{}) }

// String returns "auto" or the codec's setting text ("lz4", "zstd:3"…).
func (s CodecSetting) String() string {
	if s.Auto {
		return "auto"
	}
	return s.Setting.String()
}

// ParseCodecSetting reads "auto" or any text codec.ParseSetting reads.
func ParseCodecSetting(text string) (CodecSetting, error) {
	if strings.EqualFold(strings.TrimSpace(text), "auto") {
		return Auto, nil
	}
	s, err := codec.ParseSetting(text)
	if err != nil {
		return CodecSetting{}, fmt.Errorf("cache: codec %q: want auto, none, lz4, zstd or zstd:LEVEL (%w)", text, err)
	}
	return Fixed(s), nil
}

// MarshalText and UnmarshalText let flags and config files carry a setting.
func (s CodecSetting) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText parses text as ParseCodecSetting does.
func (s *CodecSetting) UnmarshalText(text []byte) error {
	v, err := ParseCodecSetting(string(text))
	if err != nil {
		return err
	}
	*s = v
	return nil
}
