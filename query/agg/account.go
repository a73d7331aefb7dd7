package agg

import (
	"fmt"

	"github.com/quiverdb/quiver/internal/rawmem"
)

// account tracks the bytes an aggregator holds: the capacity of every slice
// it owns, charged when a slice is allocated and credited when it is
// dropped. The number is the sum of real capacities, not an estimate per
// group. A charge that would pass the limit fails before anything is
// allocated.
type account struct {
	used  int64
	limit int64 // 0: none
}

// charge adds delta bytes, failing with ErrMemoryLimit if that passes the
// limit.
func (a *account) charge(delta int64) error {
	if a.limit > 0 && delta > 0 && a.used+delta > a.limit {
		return fmt.Errorf("%w: hash aggregation needs %d more bytes, holds %d, limit %d",
			ErrMemoryLimit, delta, a.used, a.limit)
	}
	a.used += delta
	return nil
}

// chargeGrowth charges growing a slice of elements of size bytes from
// capacity old to want, or, if that passes the limit, to need ≤ want, and
// returns the capacity charged.
func (a *account) chargeGrowth(old, want, need int, size int64) (int, error) {
	if err := a.charge(int64(want-old) * size); err == nil {
		return want, nil
	}
	return need, a.charge(int64(need-old) * size)
}

// credit returns bytes charged earlier.
func (a *account) credit(delta int64) { a.used -= delta }

func sizeOf[T any]() int64 { return int64(rawmem.Sizeof[T]()) }

// capBytes is the charged size of s.
func capBytes[T any](s []T) int64 { return int64(cap(s)) * sizeOf[T]() }

// extend returns s with n more elements, zeroed, growing the backing array
// (charged to a) when it is full. On error s is returned unchanged.
func extend[T any](a *account, s []T, n int) ([]T, error) {
	need := len(s) + n
	if need <= cap(s) {
		s = s[:need]
		clear(s[need-n:])
		return s, nil
	}
	newCap, err := a.chargeGrowth(cap(s), max(need, 2*cap(s), 16), need, sizeOf[T]())
	if err != nil {
		return s, err
	}
	ns := make([]T, need, newCap)
	copy(ns, s)
	return ns, nil
}

// scratch returns a slice of length n whose contents are undefined, reusing
// s when it is large enough.
func scratch[T any](a *account, s []T, n int) ([]T, error) {
	if n <= cap(s) {
		return s[:n], nil
	}
	newCap, err := a.chargeGrowth(cap(s), max(n, 2*cap(s)), n, sizeOf[T]())
	if err != nil {
		return s, err
	}
	return make([]T, n, newCap), nil
}

// drop credits s's capacity and returns nil.
func drop[T any](a *account, s []T) []T {
	a.credit(capBytes(s))
	return nil
}
