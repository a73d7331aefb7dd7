package main

import (
	"fmt"
	"io"
	"os"
	"time"
)

// fetchProgress shows how a long fetch, upload or conversion goes on
// stderr: rows and megabytes so far and the rate, and with a known total
// the share done and the time left. Nothing shows for the first delay,
// so short commands print only their summary. On a terminal one line is
// rewritten in place at most every interval; elsewhere (a log file) a
// new line is written at most every logInterval.
type fetchProgress struct {
	w     io.Writer
	verb  string // "received", "sent", "read"
	total int64  // bytes expected, 0 when unknown
	tty   bool
	now   func() time.Time
	start time.Time
	last  time.Time
	shown bool
	delay time.Duration
	every time.Duration
}

const (
	progressDelay       = time.Second
	progressInterval    = 250 * time.Millisecond
	progressLogInterval = 2 * time.Second
)

func newFetchProgress(w io.Writer, verb string) *fetchProgress {
	p := &fetchProgress{w: w, verb: verb, tty: isTerminal(w), now: time.Now, delay: progressDelay, every: progressLogInterval}
	if p.tty {
		p.every = progressInterval
	}
	p.start = p.now()
	p.last = p.start
	return p
}

// isTerminal reports whether w is a character device (a terminal), where
// a carriage return rewrites the line.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// update shows rows and bytes so far, if it is time to.
func (p *fetchProgress) update(rows, bytes int64) {
	if p == nil {
		return
	}
	now := p.now()
	el := now.Sub(p.start)
	if el < p.delay || (p.shown && now.Sub(p.last) < p.every) {
		return
	}
	p.last, p.shown = now, true
	line := fmt.Sprintf("%d rows, %.1f MB %s, %.1f MB/s", rows, float64(bytes)/1e6, p.verb, float64(bytes)/1e6/el.Seconds())
	if p.total > 0 && bytes > 0 && bytes < p.total {
		eta := time.Duration(float64(p.total-bytes) / float64(bytes) * float64(el))
		line += fmt.Sprintf(", %.0f%% of %.1f MB, ETA %v", 100*float64(bytes)/float64(p.total), float64(p.total)/1e6, eta.Round(time.Second))
	}
	if p.tty {
		fmt.Fprintf(p.w, "\r\033[K%s", line)
	} else {
		fmt.Fprintln(p.w, line)
	}
}

// done ends the progress line so the summary starts on a clean line.
func (p *fetchProgress) done() {
	if p != nil && p.tty && p.shown {
		fmt.Fprint(p.w, "\r\033[K")
	}
}
