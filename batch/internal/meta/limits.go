package meta

import "fmt"

// maxDepthCap bounds Limits.MaxDepth whatever the caller asks: decoding
// recurses once per level, and the Go stack must not be what stops it.
const maxDepthCap = 1024

// Validate reports whether every limit is zero (take the default) or
// positive, and MaxDepth at most 1024.
func (l Limits) Validate() error {
	if l.MaxDepth > maxDepthCap {
		return fmt.Errorf("meta: Limits.MaxDepth is %d, at most %d", l.MaxDepth, maxDepthCap)
	}
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
// DefaultLimits ones and MaxDepth clamped to maxDepthCap.
func (l Limits) orDefault() Limits {
	pick := func(v, def int) int {
		if v <= 0 {
			return def
		}
		return v
	}
	return Limits{
		MaxFields:   pick(l.MaxFields, DefaultLimits.MaxFields),
		MaxDepth:    min(pick(l.MaxDepth, DefaultLimits.MaxDepth), maxDepthCap),
		MaxNodes:    pick(l.MaxNodes, DefaultLimits.MaxNodes),
		MaxBuffers:  pick(l.MaxBuffers, DefaultLimits.MaxBuffers),
		MaxMetadata: pick(l.MaxMetadata, DefaultLimits.MaxMetadata),
	}
}
