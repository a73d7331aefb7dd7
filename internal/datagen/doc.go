// Package datagen generates the Arrow data of tests, benchmarks and the
// CLI's built-in tables:
//
//	comet.go    the Comet cache benchmark's relation (six columns, a value
//	            and a null pattern fixed per row), which `quiver cache`,
//	            `quiver query` and `quiver bench` use
//	wide.go     its wide relations: n nullable int64 columns
//	cases.go    the column types of the converter's differential matrix
//	random.go   AppendRandom, the one switch over arrow-go's builders that
//	            makes random values (everything here draws from it), and
//	            random columns of any type from it (Gen), with a chosen
//	            fraction of nulls, optionally dictionary-encoded
//	rebuild.go  those columns rebuilt value by value with arrow-go's
//	            builders: the row path the bulk paths must equal
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
