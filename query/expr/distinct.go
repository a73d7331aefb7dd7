package expr

// NotDistinct is l IS NOT DISTINCT FROM r (MySQL's l <=> r): equality
// where NULL equals NULL and differs from every value, so never NULL.
// It is built of the nodes that compute it — (l IS NULL AND r IS NULL)
// OR COALESCE(l = r, FALSE) — so planners see ordinary comparisons.
func NotDistinct(l, r Expr) (Expr, error) {
	eq, err := Compare(Eq, l, r)
	if err != nil {
		return nil, err
	}
	f, _ := Literal(false)
	known, err := Coalesce(eq, f)
	if err != nil {
		return nil, err
	}
	both, err := And(IsNull(l), IsNull(r))
	if err != nil {
		return nil, err
	}
	return Or(both, known)
}

// Distinct is l IS DISTINCT FROM r: NOT (l IS NOT DISTINCT FROM r).
func Distinct(l, r Expr) (Expr, error) {
	e, err := NotDistinct(l, r)
	if err != nil {
		return nil, err
	}
	return Not(e)
}
