package extsort

import ()

// account is the sorter's share of its Budget: what it holds now and at
// most, so that Close gives back exactly what was taken.
type account struct {
	b          Budget
	used, peak int64
}

func (a *account) tryGrow(n int64) bool {
	if !a.b.TryGrow(n) {
		return false
	}
	a.add(n)
	return true
}

func (a *account) grow(n int64) {
	a.b.Grow(n)
	a.add(n)
}

func (a *account) add(n int64) {
	a.used += n
	a.peak = max(a.peak, a.used)
}

func (a *account) shrink(n int64) {
	a.b.Shrink(n)
	a.used -= n
}

// resize moves a reservation from old to new bytes, whether it fits or not.
func (a *account) resize(old, new int64) {
	switch {
	case new > old:
		a.grow(new - old)
	case new < old:
		a.shrink(old - new)
	}
}

func (a *account) close() {
	a.shrink(a.used)
}
