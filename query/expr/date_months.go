package expr

import "sync"

// Truncating a day to its month, quarter or year by table. civil costs
// a chain of divisions per row, and date_trunc('month', …) and EXTRACT
// over a year's or a decade's dates ask it the same few hundred answers
// again and again: the issue 15 timestamp benchmark spent a fifth of its
// time there. Within monthTableFrom to monthTableTo, a day's month
// (months since year 0: y*12 + m-1) is a load from monthOf, and a month's
// first day one from monthStart; outside, civil answers as before.
//
//	monthOf    [day - monthTableFrom]          int32, 73,415 days (287 KiB)
//	monthStart [month - monthTableFrom's month] int32, 2,412 months
//
// Built on first use (about a millisecond), shared read-only after.

// The table covers 1900-01-01 to 2100-12-31: days since 1970-01-01.
const (
	monthTableFrom = -25567 // 1900-01-01
	monthTableTo   = 47846  // 2100-12-31
	monthTableY0   = 1900
)

type monthTable struct {
	monthOf    []int32 // per day: y*12 + m-1
	monthStart []int32 // per month since 1900-01: its first day
}

var months = sync.OnceValue(func() *monthTable {
	t := &monthTable{monthOf: make([]int32, monthTableTo-monthTableFrom+1)}
	for d := int64(monthTableFrom); d <= monthTableTo; d++ {
		y, m, day := civil(d)
		mi := int32(y*12) + int32(m-1)
		t.monthOf[d-monthTableFrom] = mi
		if day == 1 {
			t.monthStart = append(t.monthStart, int32(d))
		}
	}
	return t
})

// truncDayToMonths returns the first day of the month, quarter (every 3
// months) or year (every 12) of day, and false outside the table.
func truncDayToMonths(day int64, every int32) (int64, bool) {
	if day < monthTableFrom || day > monthTableTo {
		return 0, false
	}
	t := months()
	mi := t.monthOf[day-monthTableFrom]
	mi -= (mi % 12) % every
	return int64(t.monthStart[mi-monthTableY0*12]), true
}
