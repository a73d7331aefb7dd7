//go:build !cref

package bench

import (
	"errors"

	"github.com/quiverdb/quiver/codec"
)

// Without the cref tag there is no C to compare against; the report says
// how to get it.
var errNoCref = errors.New("build with -tags cref to compare against C")

func newCDecoders(codec.Kind, [][]byte, [][]byte) ([]cDecoder, error) { return nil, errNoCref }

func cVersions() string { return "" }
