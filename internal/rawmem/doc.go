// Package rawmem is quiver's one box of unsafe code: the few places where
// a hot loop or an allocator needs to see memory as something other than
// what the type system says, each a function of a line or two.
//
//   - String, Bytes: a []byte as a string and back without a copy.
//   - Words: a []byte as []uint32 or []uint64 over the same memory, so a
//     decoder writes one word per value instead of one byte-slice store.
//   - Load64: a little-endian 8-byte load without a bounds check, for
//     loops that checked a whole group's range once.
//   - Addr, Recap: a buffer's address (its identity and alignment) and its
//     whole allocation back from a shorter slice of it, for the cache's
//     recycling allocator.
//   - Sizeof: the size of a type.
//
// Two builds. By default (unsafe.go) the functions use package unsafe. With
// the purego build tag (purego.go) they are plain Go with the same API and
// the same results wherever plain Go can give them: String and Bytes copy,
// Load64 is bounds-checked, Addr goes through reflect, Words always and
// Recap past cap(b) report that they cannot (nil, false), so their
// callers take their safe paths. Fast says which build this is.
//
// Cost of the purego build, measured interleaved with the fast one (9
// rounds, medians, a shared 2-core machine): colenc FOR and delta decoding
// 1.3-1.85x slower (no word views), bit unpacking about the same, the
// cache's recycler 2x slower for sizes that are not a power of two.
//
// The purego build is also a checker: run the tests with -tags purego and
// a load that strays outside its slice panics where the fast build would
// read a neighbour's bytes. CI runs both builds of every package that uses
// this one (.ci/run).
//
// The cgo bindings (codec/zstd_cgo.go, internal/cref) keep their own
// unsafe.Pointer conversions: a C call needs one, there is no pure-Go twin
// of a C library, and they are behind opt-in build tags.
package rawmem
