package expr

import (
	"errors"
	"testing"
)

// FuzzParseInterval: interval text is user input. Parsing never panics;
// what it refuses is ErrInvalidCast or ErrOverflow; and what it accepts,
// written back by formatInterval, parses to the same value.
func FuzzParseInterval(f *testing.F) {
	for _, s := range []string{"1 day 2 hours", "1 day 02:30:00", "-3 mons ago", "4.5 seconds", "1h 30m",
		"2147483647 months", "9223372036 seconds", "00:00:00.000001", "1 year -1 day", "", "ago", "1e9 days"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseInterval(s)
		if err != nil {
			if !errors.Is(err, ErrInvalidCast) && !errors.Is(err, ErrOverflow) {
				t.Fatalf("%q: %v is neither ErrInvalidCast nor ErrOverflow", s, err)
			}
			return
		}
		text := formatInterval(v)
		back, err := ParseInterval(text)
		if err != nil || back != v {
			t.Fatalf("%q → %+v → %q → %+v, %v", s, v, text, back, err)
		}
	})
}
