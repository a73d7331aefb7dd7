// Package invariants reports whether the build has the extra cross-checks
// of the `invariants` build tag: `go test -tags invariants ./...` makes
// fast paths check themselves against slow ones (every encoded batch is
// decoded again and compared, every compressed buffer decompressed and
// compared) and panic on a mismatch, which is a bug in quiver, not bad
// input.
package invariants
