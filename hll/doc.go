// Package hll is a HyperLogLog sketch: an estimate of the number of
// distinct values in a multiset, in 4 KiB, mergeable (the sketch of a
// union is the merge of the sketches) and stored byte for byte in a data
// directory. The cache keeps one per column of every table (its Stats),
// and the planner reads them for selectivity and join sizes.
//
// # Using it
//
//	var s hll.Sketch
//	for _, v := range values { s.Insert(hll.Mix(uint64(v))) } // or xxh3 of bytes
//	s.Merge(&other)
//	n := s.Estimate()
//	b := s.AppendBinary(nil); t, err := hll.Parse(b)
//
// The caller hashes: Insert takes a 64-bit hash whose bits are uniform.
// Mix is a bijection for fixed-width values (integers, float bits); xxh3
// suits bytes. Equal values must hash equal, whatever column type held
// them: package cache says how it hashes each Arrow type. A stored sketch
// means something only with the hashing that filled it, so a caller that
// stores sketches and merges new values into them later (cache, through
// package store) changes its hashing only with a new Version.
//
// # Precision and error
//
// The precision is fixed at p = 12: 2^12 = 4096 registers of one byte.
// The standard error of the estimate is 1.04/√4096 ≈ 1.6%; tests hold
// every estimate from 10^3 to 10^6 distinct values within 5% (about three
// standard errors). A planner's estimates are off by factors from
// selectivity guesses anyway, so more registers would buy little; fewer
// would cost accuracy at small tables' sizes. 4 KiB per column per table
// is held once per table (not per batch), and merging two is a 4 KiB max,
// about a microsecond. A sketch allocates its registers on the first
// Insert, so an empty column costs nothing; one with few values is stored
// sparse on disk (see below).
//
// The estimate is Ertl's improved estimator ("New cardinality estimation
// algorithms for HyperLogLog sketches", 2017), which needs no empirical
// bias tables and is unbiased from 0 up: small counts come out near exact
// (linear counting emerges from its σ term), and 64-bit hashes leave no
// large-range correction to make.
//
// A register holds, for the hashes whose low 12 bits are its index, the
// largest ρ = 1 + trailing zeros of the other 52 bits (53 when all are
// zero), so a register is 0 (no hash) or 1..53.
//
// # Why our own
//
// github.com/axiomhq/hyperloglog is maintained and served, and was
// considered. Its registers are private and its MarshalBinary layout is
// its own, versioned by it: a data directory would then hold bytes whose
// format a module upgrade may change (it has once, to version 2), where
// the store's rule is that every byte on disk is under a version byte of
// ours with a reader kept for each version. Its Insert also branches per
// value between sparse and dense forms (a map insert in sparse form), in
// the loop Put runs once per value of every column. What we need is a
// dense array, a max, and the estimator: under 200 lines, here.
//
// # Format (version 1)
//
//	+---------+-----------+------+--------------------------------------+
//	| version | precision | form | registers                            |
//	|  u8=1   |  u8=12    |  u8  | form 1 dense: 4096 bytes, each 0..53 |
//	|         |           |      | form 2 sparse: uv n, then n × (uv    |
//	|         |           |      |   index gap, u8 value 1..53)         |
//	+---------+-----------+------+--------------------------------------+
//
// uv is an unsigned LEB128 varint. Sparse lists only non-zero registers
// in increasing index order; an index gap is the index minus the
// previous one's (the first: the index itself), and every gap after the
// first is at least 1. AppendBinary writes sparse when that is shorter
// than dense, so a column of ten distinct values takes about 30 bytes. An empty
// sketch is form 2 with n = 0, 4 bytes: 01 0c 02 00.
//
// For example the sketch of one hash with low bits 0x005 and ρ = 3 is
//
//	01 0c 02  01  05 03
//	v1 p=12 sparse, n=1, index 5, value 3
//
// Parse checks every field and returns an error wrapping ErrCorrupt on
// bad bytes; it is fuzzed. Checksums are the container's: a store
// manifest's covers the sketches it holds.
package hll
