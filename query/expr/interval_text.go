package expr

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Interval text, as DuckDB writes and reads it: formatInterval for CAST
// to VARCHAR, ParseInterval for INTERVAL '…' and CAST from VARCHAR.

// formatInterval is v as DuckDB prints it: years, months and days each
// with its unit ("1 year 2 months -3 days"), then the time as
// [-]HH:MM:SS[.ffffff] (hours past 24 kept: 36:00:00), "00:00:00" for
// nothing. Nanoseconds below a microsecond add digits to the fraction.
func formatInterval(v interval) string {
	var parts []string
	unit := func(n int64, name string) {
		if n != 0 {
			parts = append(parts, strconv.FormatInt(n, 10)+" "+name+plural(n))
		}
	}
	unit(int64(v.Months/12), "year")
	unit(int64(v.Months%12), "month")
	unit(int64(v.Days), "day")
	if ns := v.Nanoseconds; ns != 0 || len(parts) == 0 {
		sign := ""
		u := uint64(ns)
		if ns < 0 {
			sign, u = "-", uint64(-(ns+1))+1 // MinInt64 too
		}
		const nsSec = usPerSecond * nsPerMicro
		secs := u / nsSec
		s := fmt.Sprintf("%s%02d:%02d:%02d", sign, secs/3600, secs/60%60, secs%60)
		if f := u % nsSec; f != 0 {
			if f%nsPerMicro == 0 {
				s += strings.TrimRight(fmt.Sprintf(".%06d", f/nsPerMicro), "0")
			} else {
				s += strings.TrimRight(fmt.Sprintf(".%09d", f), "0")
			}
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}

// intervalUnits maps the unit words ParseInterval takes (DuckDB's, and
// their plurals and abbreviations) to months, days and nanoseconds per
// unit.
var intervalUnits = func() map[string]interval {
	m := map[string]interval{}
	add := func(v interval, names ...string) {
		for _, n := range names {
			m[n] = v
		}
	}
	add(interval{Months: 12 * 1000}, "millennium", "millennia", "millenniums", "mil", "mils")
	add(interval{Months: 12 * 100}, "century", "centuries", "c", "cent")
	add(interval{Months: 12 * 10}, "decade", "decades", "dec", "decs")
	add(interval{Months: 12}, "year", "years", "y", "yr", "yrs")
	add(interval{Months: 3}, "quarter", "quarters")
	add(interval{Months: 1}, "month", "months", "mon", "mons")
	add(interval{Days: 7}, "week", "weeks", "w")
	add(interval{Days: 1}, "day", "days", "d")
	add(interval{Nanoseconds: usPerHour * nsPerMicro}, "hour", "hours", "h", "hr", "hrs")
	add(interval{Nanoseconds: usPerMinute * nsPerMicro}, "minute", "minutes", "m", "min", "mins")
	add(interval{Nanoseconds: usPerSecond * nsPerMicro}, "second", "seconds", "s", "sec", "secs")
	add(interval{Nanoseconds: 1000 * nsPerMicro}, "millisecond", "milliseconds", "ms", "msec", "msecs")
	add(interval{Nanoseconds: nsPerMicro}, "microsecond", "microseconds", "us", "usec", "usecs")
	return m
}()

// ParseInterval reads interval text as DuckDB does: any number of
// "[-]N unit" parts ('1 day 2 hours', '3 mons', '1h 30m'; a fraction
// only for seconds and smaller units, '4.5 seconds'), a clock
// "[-]HH:MM[:SS[.f]]" ('1 day 02:30:00'), and "ago" at the end to negate
// it all. Each part adds to its field; a field past its 32-bit (months,
// days) or 64-bit (nanoseconds) range is ErrOverflow.
func ParseInterval(s string) (interval, error) {
	bad := func(why string) (interval, error) {
		return interval{}, errorf(ErrInvalidCast, "invalid interval %s: %s (want e.g. '1 day 2 hours' or '1 day 02:00:00')", quote(s), why)
	}
	words := strings.Fields(strings.ToLower(s))
	if len(words) == 0 {
		return bad("empty")
	}
	ago := false
	if words[len(words)-1] == "ago" {
		ago, words = true, words[:len(words)-1]
	}
	var m, d int64
	var ns int64
	addNs := func(v int64) bool {
		r, code := int64Kernel(Add)(ns, v)
		ns = r
		return code == codeOK
	}
	for i := 0; i < len(words); i++ {
		w := words[i]
		if strings.Contains(w, ":") {
			us, err := parseSignedClock(w)
			if err != nil {
				return bad("bad time " + quote(w))
			}
			if !addNs(us * nsPerMicro) {
				return bad("too many nanoseconds")
			}
			continue
		}
		// a number, and its unit either glued to it (1h) or the next word
		j := 0
		if j < len(w) && (w[j] == '-' || w[j] == '+') {
			j++
		}
		for j < len(w) && (w[j] >= '0' && w[j] <= '9' || w[j] == '.') {
			j++
		}
		numText, unitText := w[:j], w[j:]
		if unitText == "" {
			if i+1 >= len(words) {
				return bad("a number without a unit")
			}
			i++
			unitText = words[i]
		}
		u, ok := intervalUnits[unitText]
		if !ok {
			return bad("unknown unit " + quote(unitText))
		}
		if u.Nanoseconds != 0 {
			f, err := strconv.ParseFloat(numText, 64)
			if err != nil {
				return bad("not a number: " + quote(numText))
			}
			v := f * float64(u.Nanoseconds)
			if math.Abs(v) >= math.MaxInt64/2 || !addNs(int64(math.Round(v/nsPerMicro))*nsPerMicro) {
				return bad("too many nanoseconds")
			}
			continue
		}
		n, err := strconv.ParseInt(numText, 10, 64)
		if err != nil {
			return bad("not an integer: " + quote(numText))
		}
		if n > math.MaxInt32 || n < math.MinInt32 {
			return bad("out of range")
		}
		m += n * int64(u.Months)
		d += n * int64(u.Days)
		if m > math.MaxInt32 || m < math.MinInt32 || d > math.MaxInt32 || d < math.MinInt32 {
			return bad("out of range")
		}
	}
	v := interval{Months: int32(m), Days: int32(d), Nanoseconds: ns}
	if ago {
		return negateInterval(v)
	}
	return v, nil
}

// parseSignedClock reads [-]H…:MM[:SS[.f]] as microseconds; hours may
// pass 24.
func parseSignedClock(w string) (int64, error) {
	neg := strings.HasPrefix(w, "-")
	w = strings.TrimLeft(w, "+-")
	h, rest, ok := strings.Cut(w, ":")
	hours, err := strconv.ParseInt(h, 10, 32)
	if !ok || err != nil || hours < 0 {
		return 0, errorf(ErrInvalidCast, "bad hours")
	}
	us, n := parseClock("00:" + rest)
	if n != len(rest)+3 {
		return 0, errorf(ErrInvalidCast, "bad clock")
	}
	us += hours * usPerHour
	if neg {
		us = -us
	}
	return us, nil
}
