package hll

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// Version is the format version AppendBinary writes (doc.go).
const Version = 1

// Form is how a sketch's registers are laid out in its bytes.
type Form uint8

const (
	Dense  Form = 1 // every register, one byte each
	Sparse Form = 2 // the non-zero ones: index gap, value
)

func (f Form) String() string {
	switch f {
	case Dense:
		return "dense"
	case Sparse:
		return "sparse"
	}
	return fmt.Sprintf("form(%d)", uint8(f))
}

// ErrCorrupt matches Parse's errors on bad bytes.
var ErrCorrupt = errors.New("hll: corrupt sketch")

func corrupt(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, args...))
}

// AppendBinary appends the sketch's bytes to dst: sparse when that is
// shorter than dense.
func (s *Sketch) AppendBinary(dst []byte) []byte {
	dst = append(dst, Version, Precision)
	nonzero, sparseLen := 0, 0
	prev := 0
	for i, r := range s.regs {
		if r != 0 {
			nonzero++
			sparseLen += uvarintLen(uint64(i-prev)) + 1
			prev = i
		}
	}
	if s.regs != nil && sparseLen >= registers {
		dst = append(dst, byte(Dense))
		return append(dst, s.regs[:registers]...)
	}
	dst = append(dst, byte(Sparse))
	dst = binary.AppendUvarint(dst, uint64(nonzero))
	prev = 0
	for i, r := range s.regs {
		if r != 0 {
			dst = binary.AppendUvarint(dst, uint64(i-prev))
			dst = append(dst, r)
			prev = i
		}
	}
	return dst
}

func uvarintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

// Parse reads a sketch AppendBinary wrote; the bytes must be exactly one
// sketch. Errors wrap ErrCorrupt.
func Parse(b []byte) (*Sketch, error) {
	if len(b) < 3 {
		return nil, corrupt("%d bytes, shorter than the 3-byte header", len(b))
	}
	if b[0] != Version {
		return nil, corrupt("format version %d, this build reads %d", b[0], Version)
	}
	if b[1] != Precision {
		return nil, corrupt("precision %d, this build uses %d", b[1], Precision)
	}
	s := &Sketch{}
	body := b[3:]
	switch Form(b[2]) {
	case Dense:
		if len(body) != registers {
			return nil, corrupt("dense sketch of %d register bytes, want %d", len(body), registers)
		}
		for i, r := range body {
			if r > maxRho {
				return nil, corrupt("register %d holds %d, over the largest %d", i, r, maxRho)
			}
		}
		s.regs = append([]uint8(nil), body...)
	case Sparse:
		n, k := binary.Uvarint(body)
		if k <= 0 {
			return nil, corrupt("sparse count cut off or malformed")
		}
		body = body[k:]
		if n > registers {
			return nil, corrupt("sparse sketch of %d registers, more than %d", n, registers)
		}
		if n > 0 {
			s.regs = make([]uint8, registers)
		}
		idx := uint64(0)
		for j := range n {
			gap, k := binary.Uvarint(body)
			if k <= 0 || len(body) < k+1 {
				return nil, corrupt("sparse entry %d of %d cut off or malformed", j, n)
			}
			if j > 0 && gap == 0 {
				return nil, corrupt("sparse entry %d repeats index %d", j, idx)
			}
			if gap >= registers || idx+gap >= registers {
				return nil, corrupt("sparse entry %d: index %d+%d past %d registers", j, idx, gap, registers)
			}
			idx += gap
			r := body[k]
			if r == 0 || r > maxRho {
				return nil, corrupt("sparse entry %d (register %d) holds %d, want 1..%d", j, idx, r, maxRho)
			}
			s.regs[idx] = r
			body = body[k+1:]
		}
		if len(body) != 0 {
			return nil, corrupt("%d bytes after the last sparse entry", len(body))
		}
	default:
		return nil, corrupt("unknown form %d", b[2])
	}
	return s, nil
}
