package convert

import "time"

// Stats count what a conversion did.
type Stats struct {
	// InputBatches and InputRows were taken in (for row sources, the
	// rows; for CSV, the chunks and their rows).
	InputBatches, InputRows int64
	// Batches and Rows were handed out.
	Batches, Rows int64
	// PassedThrough counts output batches that were input batches of
	// exactly the target size, handed on without a copy.
	PassedThrough int64
	// SkippedRows were malformed and skipped (CSV's skip mode).
	SkippedRows int64
	// InputBytes is how much of the input has been read, when known.
	InputBytes int64
	// ConvertTime is time spent converting: parsing text (summed over
	// the goroutines that parse, so it can exceed the wall time) and
	// appending into output batches.
	ConvertTime time.Duration
	// PullTime is time spent waiting for input: reading bytes, a Parquet
	// or IPC reader's Next, a driver's rows.Next. It is not conversion.
	PullTime time.Duration
}

func (s *Stats) add(o Stats) {
	s.InputBatches += o.InputBatches
	s.InputRows += o.InputRows
	s.Batches += o.Batches
	s.Rows += o.Rows
	s.PassedThrough += o.PassedThrough
	s.SkippedRows += o.SkippedRows
	s.InputBytes += o.InputBytes
	s.ConvertTime += o.ConvertTime
	s.PullTime += o.PullTime
}
