//go:build !linux

package store

import "testing"

// dropPageCache is Linux's alone (posix_fadvise): elsewhere the cold
// benchmark skips.
func dropPageCache(testing.TB, string) bool { return false }
