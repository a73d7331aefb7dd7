package agg

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/quiverdb/quiver/sortkey"
)

// shape is what the Spiller derives from an aggregator's specs: which
// states are count(DISTINCT) (spilled as pairs) and which are merged as
// partial states, and the schemas of the run files.
type shape struct {
	keyTypes, argTypes []arrow.DataType
	specs              []Spec
	nstates            int
	main               []int // states whose partial columns go to the main file
	distinct           []int // count(DISTINCT) states
	mergeSpecs         []Spec
	// Per spec: its column in the merge aggregator's result (after the
	// keys), or -1-d for distinct state d.
	out         []int
	mainSchema  *arrow.Schema
	distSchemas []*arrow.Schema
	keyEnc      []sortkey.SortField
}

func newShape(h *HashAggregator) (*shape, error) {
	sh := &shape{keyTypes: h.keyTypes, argTypes: h.argTypes, specs: h.specs, nstates: len(h.states)}
	distinctOf := map[int]int{}
	for i, st := range h.states {
		if _, ok := st.(interface{ serial() }); ok {
			return nil, fmt.Errorf("spilling %s: %w", h.stNames[i], errSerial)
		}
		if _, ok := st.(*distinctState); ok {
			distinctOf[i] = len(sh.distinct)
			sh.distinct = append(sh.distinct, i)
		} else {
			sh.main = append(sh.main, i)
		}
	}
	keys := h.keyFields()
	fields := append([]arrow.Field(nil), keys...)
	for _, i := range sh.main {
		for j, dt := range h.states[i].partialTypes() {
			fields = append(fields, arrow.Field{Name: fmt.Sprintf("%s.%d", h.stNames[i], j), Type: dt, Nullable: true})
		}
	}
	sh.mainSchema = arrow.NewSchema(fields, nil)
	for _, i := range sh.distinct {
		f := append(append([]arrow.Field(nil), keys...), arrow.Field{Name: h.stNames[i], Type: h.states[i].(*distinctState).dt, Nullable: true})
		sh.distSchemas = append(sh.distSchemas, arrow.NewSchema(f, nil))
	}
	for i, sp := range h.specs {
		if d, ok := distinctOf[h.out[i]]; ok {
			sh.out = append(sh.out, -1-d)
			continue
		}
		sp.Name = h.names[i]
		sh.out = append(sh.out, len(sh.mergeSpecs))
		sh.mergeSpecs = append(sh.mergeSpecs, sp)
	}
	for _, dt := range h.keyTypes {
		if !sortkey.Supported(dt) {
			return nil, fmt.Errorf("%w: spilling a key of type %v", ErrUnsupported, dt)
		}
		sh.keyEnc = append(sh.keyEnc, sortkey.SortField{Type: dt})
	}
	return sh, nil
}

// check reports whether h has the shape's keys, arguments and specs.
func (sh *shape) check(h *HashAggregator) error {
	if h.released {
		return errReleased
	}
	same := len(h.states) == sh.nstates && len(h.specs) == len(sh.specs) &&
		typesEqual(h.keyTypes, sh.keyTypes) && typesEqual(h.argTypes, sh.argTypes)
	for i := 0; same && i < len(h.specs); i++ {
		same = h.specs[i].Func == sh.specs[i].Func && h.specs[i].Arg == sh.specs[i].Arg
	}
	if !same {
		return fmt.Errorf("%w: aggregator of another shape than the Spiller's", ErrInput)
	}
	return nil
}

func typesEqual(a, b []arrow.DataType) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !arrow.TypeEqual(a[i], b[i]) {
			return false
		}
	}
	return true
}
