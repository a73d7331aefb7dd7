//go:build !nobench

package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/quiverdb/quiver/codec"
)

// benchFlags is the flag set of one bench command with the flags every
// bench command has: --runs (a median of that many measurements per
// cell) and --quiet (no progress lines). The command adds its own flags to
// the embedded FlagSet before parse.
type benchFlags struct {
	*flag.FlagSet
	name, about string
	runs        *int
	quiet       *bool
}

func newBenchFlags(name, about string, runs int, runsUsage string) *benchFlags {
	fs := flag.NewFlagSet("bench "+name, flag.ContinueOnError)
	return &benchFlags{
		FlagSet: fs,
		name:    name,
		about:   about,
		runs:    fs.Int("runs", runs, runsUsage),
		quiet:   fs.Bool("quiet", false, "no progress lines on stderr"),
	}
}

// parse parses args. --help prints the command's help to stdout and
// returns flag.ErrHelp; a positional argument or a --runs below 1 is a
// usage error.
func (b *benchFlags) parse(args []string, stdout io.Writer) error {
	pos, err := parseFlags(b.FlagSet, args)
	if errors.Is(err, flag.ErrHelp) {
		return printHelp(stdout, b.FlagSet, "bench "+b.name+" [flags]", b.about)
	}
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return fmt.Errorf("%w: unexpected argument %q", errUsage, pos[0])
	}
	if *b.runs <= 0 {
		return fmt.Errorf("%w: --runs must be positive", errUsage)
	}
	return nil
}

// progress is where the benchmark writes its progress lines: stderr, or
// nowhere with --quiet.
func (b *benchFlags) progress(stderr io.Writer) io.Writer {
	if *b.quiet {
		return nil
	}
	return stderr
}

// parseCodecList parses the comma-separated codec settings of --codecs.
func parseCodecList(s string) ([]codec.Setting, error) {
	var out []codec.Setting
	for _, part := range strings.Split(s, ",") {
		c, err := codec.ParseSetting(strings.TrimSpace(part))
		if err != nil {
			return nil, fmt.Errorf("%w: --codecs: %v", errUsage, err)
		}
		out = append(out, c)
	}
	return out, nil
}
