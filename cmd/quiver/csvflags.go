package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/quiverdb/quiver/convert"
	"github.com/quiverdb/quiver/convert/csv"
)

// csvFlags are the flags that say how to read CSV, shared by convert and
// load so that both read a file alike.
type csvFlags struct {
	noHeader, stringsNeverNull *bool
	delim                      *string
	nulls                      nullTokens
}

// nullTokens is --null: nil until given, then the tokens (none for "").
type nullTokens struct{ tokens []string }

func (n *nullTokens) String() string {
	if n == nil || n.tokens == nil {
		return ""
	}
	return strings.Join(n.tokens, ",")
}

func (n *nullTokens) Set(s string) error {
	n.tokens = []string{}
	if s != "" {
		n.tokens = strings.Split(s, ",")
	}
	return nil
}

func registerCSVFlags(fs *flag.FlagSet) *csvFlags {
	f := &csvFlags{
		noHeader:         fs.Bool("no-header", false, "CSV: the first line is data"),
		delim:            fs.String("delimiter", "", "CSV: field delimiter, one byte (default , or tab for tsv)"),
		stringsNeverNull: fs.Bool("strings-never-null", false, "CSV: no nulls in string columns: an empty field is the empty string, NULL the word (arrow-go's rule)"),
	}
	fs.Var(&f.nulls, "null", "CSV: comma-separated null `TOKENS`, in every column (default: empty, NULL, null); a quoted string is never null")
	return f
}

// options returns the csv.Options the flags give, batching by cfg.
func (f *csvFlags) options(cfg convert.Config) (csv.Options, error) {
	if len(*f.delim) > 1 {
		return csv.Options{}, fmt.Errorf("%w: --delimiter must be one byte", errUsage)
	}
	o := csv.Options{NoHeader: *f.noHeader, StringsNeverNull: *f.stringsNeverNull, NullTokens: f.nulls.tokens, Convert: cfg}
	if *f.delim != "" {
		o.Comma = (*f.delim)[0]
	}
	return o, nil
}
