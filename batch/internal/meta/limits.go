package meta

import "fmt"

// Validate reports whether every limit is zero (take the default) or
// positive.
func (l Limits) Validate() error {
	for _, f := range []struct {
		name string
		v    int
	}{
		{"MaxFields", l.MaxFields},
		{"MaxDepth", l.MaxDepth},
		{"MaxNodes", l.MaxNodes},
		{"MaxBuffers", l.MaxBuffers},
		{"MaxMetadata", l.MaxMetadata},
	} {
		if f.v < 0 {
			return fmt.Errorf("meta: Limits.%s is %d, must be >= 0", f.name, f.v)
		}
	}
	return nil
}

// orDefault returns l with zero (or negative) fields replaced by the
// DefaultLimits ones.
func (l Limits) orDefault() Limits {
	pick := func(v, def int) int {
		if v <= 0 {
			return def
		}
		return v
	}
	return Limits{
		MaxFields:   pick(l.MaxFields, DefaultLimits.MaxFields),
		MaxDepth:    pick(l.MaxDepth, DefaultLimits.MaxDepth),
		MaxNodes:    pick(l.MaxNodes, DefaultLimits.MaxNodes),
		MaxBuffers:  pick(l.MaxBuffers, DefaultLimits.MaxBuffers),
		MaxMetadata: pick(l.MaxMetadata, DefaultLimits.MaxMetadata),
	}
}
