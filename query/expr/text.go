package expr

import "strings"

// An expression's text is written into one strings.Builder from the root
// down, so String is linear in the size of the tree: a node that built its
// text from its operands' String results would copy each subtree's text
// once per ancestor, quadratic in a chain such as a + a + … + a.

// texter is implemented by the nodes of this package.
type texter interface {
	writeText(b *strings.Builder)
}

// text returns the text of e.
func text(e texter) string {
	var b strings.Builder
	e.writeText(&b)
	return b.String()
}

// writeExpr appends e's text to b.
func writeExpr(b *strings.Builder, e Expr) {
	if t, ok := e.(texter); ok {
		t.writeText(b)
		return
	}
	b.WriteString(e.String())
}

// writeParen appends e's text to b, parenthesized as paren does.
func writeParen(b *strings.Builder, e Expr) {
	if isTerm(e) {
		writeExpr(b, e)
		return
	}
	b.WriteByte('(')
	writeExpr(b, e)
	b.WriteByte(')')
}
