package expr

import (
	"fmt"
	"strings"
)

// Key identifies what e computes, for telling repeated expressions apart
// from different ones (an aggregate's arguments, Share's subtrees): its
// text and the batch columns it reads, by index, in the order its tree
// holds them. The text alone is not enough: a join's output may hold two
// columns of one name (y.k and x.k, both "k"), and count(k) over each
// is a different count.
func Key(e Expr) string {
	var b strings.Builder
	b.WriteString(e.String())
	var walk func(e Expr)
	walk = func(e Expr) {
		if c, ok := e.(*column); ok {
			fmt.Fprintf(&b, "\x00%d", c.index)
		}
		for _, c := range childrenOf(e) {
			walk(c)
		}
	}
	walk(e)
	return b.String()
}
