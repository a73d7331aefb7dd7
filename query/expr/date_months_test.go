package expr

import "testing"

// TestTruncDayToMonths: for every day of the table and a year either
// side, the table's month, quarter and year starts are civil's, and
// outside it the table says so.
func TestTruncDayToMonths(t *testing.T) {
	for day := int64(monthTableFrom - 400); day <= monthTableTo+400; day++ {
		y, m, _ := civil(day)
		for _, tc := range []struct {
			every int32
			m     int
		}{{1, m}, {3, (m-1)/3*3 + 1}, {12, 1}} {
			got, ok := truncDayToMonths(day, tc.every)
			inside := day >= monthTableFrom && day <= monthTableTo
			if ok != inside {
				t.Fatalf("day %d (%s): in the table %v, want %v", day, formatDate(int32(day)), ok, inside)
			}
			if want := daysFromCivil(y, tc.m, 1); ok && got != want {
				t.Fatalf("day %d (%s) every %d: %s, want %s", day, formatDate(int32(day)), tc.every, formatDate(int32(got)), formatDate(int32(want)))
			}
		}
	}
	if from, _, _ := civil(monthTableFrom); from != monthTableY0 {
		t.Errorf("the table starts in %d, not %d", from, monthTableY0)
	}
	if y, m, d := civil(monthTableTo); y != 2100 || m != 12 || d != 31 {
		t.Errorf("the table ends on %d-%d-%d", y, m, d)
	}
}
