package bench

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// table prints aligned text that is also a markdown table.
type table struct {
	head  []string
	right []bool // right-align this column (numbers)
	rows  [][]string
}

func newTable(cols ...string) *table {
	t := &table{}
	for _, c := range cols {
		// A leading '>' marks a numeric column.
		name, num := strings.CutPrefix(c, ">")
		t.head = append(t.head, name)
		t.right = append(t.right, num)
	}
	return t
}

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

func (t *table) write(w io.Writer) error {
	width := make([]int, len(t.head))
	for i, h := range t.head {
		width[i] = max(utf8.RuneCountInString(h), 3)
	}
	for _, r := range t.rows {
		for i, c := range r {
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	var b strings.Builder
	line := func(cells []string) {
		for i, c := range cells {
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(c))
			if t.right[i] {
				c = pad + c
			} else {
				c += pad
			}
			b.WriteString("| " + c + " ")
		}
		b.WriteString("|\n")
	}
	line(t.head)
	for i := range t.head {
		dash := strings.Repeat("-", width[i]+2)
		if t.right[i] {
			dash = dash[1:] + ":"
		}
		b.WriteString("|" + dash)
	}
	b.WriteString("|\n")
	for _, r := range t.rows {
		line(r)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Number formats used in the tables.
func fmtMBps(v float64) string  { return commas(int64(v + 0.5)) }
func fmtRatio(v float64) string { return fmt.Sprintf("%.2f", v) }
func fmtPct(v float64) string   { return fmt.Sprintf("%.0f%%", 100*v) }

// commas prints n with thousands separators.
func commas(n int64) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
