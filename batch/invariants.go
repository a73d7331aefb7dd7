package batch

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/quiverdb/quiver/internal/invariants"
)

// checkEncoded, in invariants builds, decodes the messages just encoded
// for rec with a fresh decoder and panics unless the record comes back
// equal. The encoder's slicing, rebasing and compression are the fast
// paths this cross-checks.
func (e *Encoder) checkEncoded(rec arrow.RecordBatch, msgs []Message) {
	if !invariants.Enabled || e.fileMode {
		return
	}
	if e.check == nil {
		d, err := NewDecoder(e.schema, ReadOptions{Alloc: e.opts.Alloc})
		if err != nil {
			panic(fmt.Sprintf("batch invariants: decoder for own schema: %v", err))
		}
		e.check = d
	}
	var got arrow.RecordBatch
	for _, m := range msgs {
		r, err := e.check.Decode(m)
		if err != nil {
			panic(fmt.Sprintf("batch invariants: cannot decode own message: %v", err))
		}
		if r != nil {
			got = r
		}
	}
	defer got.Release()
	if !array.RecordEqual(rec, got) {
		panic("batch invariants: decoded record differs from the encoded one")
	}
}
