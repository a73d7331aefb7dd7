package main

import (
	"github.com/quiverdb/quiver/internal/pull"
)

// progressReader reports each batch arrow-go's ingest pulls, after the
// pull (its rows so far), for the progress line.
type progressReader struct {
	*pull.Reader
	onBatch func(rows int64)
}

func (p *progressReader) Next() bool {
	if !p.Reader.Next() {
		return false
	}
	if p.onBatch != nil {
		p.onBatch(p.Rows())
	}
	return true
}
