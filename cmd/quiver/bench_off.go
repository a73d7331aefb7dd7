//go:build nobench

package main

import (
	"context"
	"errors"
	"io"
)

// runBench stands in for `quiver bench` in a binary built with -tags
// nobench: such a server binary leaves out the benchmarks and what only
// they link (arrow-go's Flight peer, the bandwidth-limited proxy, the
// TPC-DS and lineitem generators).
func runBench(context.Context, []string, io.Writer, io.Writer) error {
	return errors.New("this binary was built with -tags nobench, without the benchmarks; build it without the tag to run them")
}
