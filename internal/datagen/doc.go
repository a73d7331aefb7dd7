// Package datagen generates the Arrow data of tests, benchmarks and the
// CLI's built-in tables:
//
//	comet.go    the Comet cache benchmark's relation (six columns, a value
//	            and a null pattern fixed per row), which `quiver cache`,
//	            `quiver query` and `quiver bench` use
//	wide.go     its wide relations: n nullable int64 columns
//	datagen.go  random columns of every type the converter handles, with a
//	            chosen fraction of nulls, optionally dictionary-encoded, and
//	            their rebuilds value by value with arrow-go's builders;
//	            AppendRandom, the one switch over arrow-go's builders that
//	            makes random values, which everything here draws from
//	alltypes.go records of every type arrow-go supports (unions, views,
//	            run-end encoded and dictionaries included) from a seed, and
//	            small groups of their columns for fuzz seeds: the data of the
//	            batch, cache, spill, extsort and flight tests
//
// The convert tests check the converter's bulk paths against those
// rebuilds, and `quiver bench convert` measures the bulk paths against the
// same builders as its peer. The CLI links this package, so it imports no
// testing code.
package datagen
