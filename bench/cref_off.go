//go:build !cref

package bench

import "github.com/quiverdb/quiver/codec"

// Without the cref tag there is no C to compare against: RunCodecs puts
// ErrNoCref's text in its report instead of the C table.
func newCDecoders(codec.Kind, [][]byte, [][]byte) ([]cDecoder, error) { return nil, ErrNoCref }

// DecodeSpeedsC returns ErrNoCref: this binary was built without the C
// libraries.
func DecodeSpeedsC(codec.Kind, [][]byte, [][]byte, int) ([]CSpeed, error) { return nil, ErrNoCref }

func cVersions() string { return "" }
