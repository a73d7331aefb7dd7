package batch

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
)

// writer is the life cycle StreamWriter and FileWriter share: a prelude
// (the schema, and for a file its magic) written once, before the first
// record or at Close; a sticky error, so that after a failed write of
// bytes nothing more is written; and a Close that runs once and releases
// the encoder on every path. The two differ only in what they write.
type writer struct {
	enc     *Encoder
	what    string       // "stream" or "file", for errors
	prelude func() error // writes what comes before the first record
	started bool
	closed  bool
	err     error // sticky: a failed write leaves the writer unusable
}

func (w *writer) start() error {
	if w.started {
		return nil
	}
	w.started = true
	return w.prelude()
}

// encode writes the prelude if due, encodes rec and hands its messages
// (dictionaries first, the record batch last) to put. An encoding error
// writes nothing and leaves the writer usable; a write error is sticky.
func (w *writer) encode(rec arrow.RecordBatch, put func(msgs []Message) error) error {
	if w.err != nil {
		return w.err
	}
	if w.closed {
		return fmt.Errorf("batch: write to a closed %s writer", w.what)
	}
	if err := w.start(); err != nil {
		w.err = err
		return err
	}
	msgs, err := w.enc.Encode(rec)
	if err != nil {
		return err // nothing written: the writer stays usable
	}
	if err := put(msgs); err != nil {
		w.err = err
		return err
	}
	return nil
}

// close writes the prelude if no record was written, then finish's
// trailer. Only the first call writes; later ones return the error that
// stopped an earlier write, if any.
func (w *writer) close(finish func() error) error {
	if w.closed {
		return w.err
	}
	w.closed = true
	defer w.enc.Release()
	if w.err != nil {
		return w.err
	}
	if err := w.start(); err != nil {
		return err
	}
	return finish()
}
