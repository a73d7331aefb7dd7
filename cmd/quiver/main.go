// Command quiver keeps Arrow tables compressed and streams them as
// compressed, standard Arrow IPC. Run `quiver help` for the commands.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

// command is one subcommand: its name, a one-line summary, and run, which
// gets the arguments after the name.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

func commands() []command {
	return []command{
		{"inspect", "describe an Arrow IPC file or stream: schema, batches, codecs, bytes per column", runInspect},
		{"query", "answer one SQL statement: on a Flight SQL server (--server), or over tables loaded locally", runQuery},
		{"load", "load a CSV, Parquet or Arrow IPC file into a Flight SQL server as a table", runLoad},
		{"cache", "load tables into the compressed cache and print their footprint per column", runCache},
		{"convert", "convert CSV, Parquet or Arrow IPC into compressed Arrow IPC batches", runConvert},
		{"serve", "run the Arrow Flight SQL server over an in-memory compressed cache", runServe},
		{"bench", "run a benchmark (codecs, cache, convert, query, serve, shuffle, sort, spill) and print its tables", runBench},
		{"version", "print the version", runVersion},
	}
}

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// errUsage marks errors in how the command was called (exit status 2).
var errUsage = errors.New("usage")

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" || args[0] == "-help" {
		if len(args) > 1 {
			return run(ctx, []string{args[1], "--help"}, stdout, stderr)
		}
		usage(stdout)
		return 0
	}
	for _, c := range commands() {
		if c.name != args[0] {
			continue
		}
		err := c.run(ctx, args[1:], stdout, stderr)
		switch {
		case err == nil, errors.Is(err, flag.ErrHelp):
			return 0
		case errors.Is(err, errUsage):
			fmt.Fprintf(stderr, "quiver %s: %v\nRun 'quiver %s --help' for usage.\n", c.name, strings.TrimPrefix(err.Error(), "usage: "), c.name)
			return 2
		default:
			fmt.Fprintf(stderr, "quiver %s: %v\n", c.name, err)
			return 1
		}
	}
	fmt.Fprintf(stderr, "quiver: unknown command %q\nRun 'quiver help' for the list of commands.\n", args[0])
	return 2
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "quiver keeps Arrow tables compressed and streams them as compressed Arrow IPC.")
	fmt.Fprintln(w, "\nUsage:\n  quiver <command> [flags] [arguments]\n\nCommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'quiver <command> --help' for a command's flags.")
}

// parseFlags parses args with fs, allowing flags after positional
// arguments (quiver inspect FILE --verify), and returns the positionals.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	fs.SetOutput(io.Discard)
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, fmt.Errorf("%w: %v", errUsage, err)
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args[1:]...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// printHelp writes a command's usage and flags.
func printHelp(w io.Writer, fs *flag.FlagSet, synopsis, about string) error {
	fmt.Fprintf(w, "Usage: quiver %s\n\n%s\n", synopsis, about)
	hasFlags := false
	fs.VisitAll(func(*flag.Flag) { hasFlags = true })
	if hasFlags {
		fmt.Fprintln(w, "\nFlags:")
		fs.SetOutput(w)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
	return flag.ErrHelp
}

func runVersion(_ context.Context, args []string, stdout, _ io.Writer) error {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	if _, err := parseFlags(fs, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return printHelp(stdout, fs, "version", "Prints quiver's version.")
		}
		return err
	}
	fmt.Fprintln(stdout, "quiver", version)
	return nil
}
