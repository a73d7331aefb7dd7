package slt

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Kind is the kind of a record.
type Kind int

const (
	Statement Kind = iota
	Query
	HashThreshold
	Halt
)

// Record is one record of a script.
type Record struct {
	Kind Kind
	Line int // of its first line (after skipif/onlyif)
	// Conditions are its skipif/onlyif lines: "skipif mysql" → {skip, mysql}.
	Conditions []Condition
	SQL        string

	// Statement: whether it must fail.
	ExpectError bool

	// Query: the type letters, the sort mode, the label ("" none) and the
	// expected result lines (values, or one "N values hashing to H").
	Types    string
	Sort     string
	Label    string
	Expected []string

	// HashThreshold: N.
	Threshold int
}

// Condition is a skipif or onlyif line.
type Condition struct {
	Only   bool // onlyif, else skipif
	Engine string
}

// Applies reports whether the record runs on engine.
func (r *Record) Applies(engine string) bool {
	for _, c := range r.Conditions {
		match := strings.EqualFold(c.Engine, engine)
		if c.Only != match {
			return false
		}
	}
	return true
}

// Parse reads a script's records.
func Parse(r io.Reader) ([]Record, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	var lines []string
	for sc.Scan() {
		lines = append(lines, strings.TrimRight(sc.Text(), "\r"))
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	var out []Record
	i := 0
	blank := func(i int) bool { return i >= len(lines) || strings.TrimSpace(lines[i]) == "" }
	for i < len(lines) {
		if blank(i) || strings.HasPrefix(lines[i], "#") {
			i++
			continue
		}
		var rec Record
		tok := strings.Fields(lines[i])
		for len(tok) > 0 && (tok[0] == "skipif" || tok[0] == "onlyif") {
			if len(tok) < 2 {
				return nil, fmt.Errorf("line %d: %s without an engine", i+1, tok[0])
			}
			rec.Conditions = append(rec.Conditions, Condition{Only: tok[0] == "onlyif", Engine: tok[1]})
			i++
			if blank(i) {
				return nil, fmt.Errorf("line %d: %s not followed by a record", i, tok[0])
			}
			tok = strings.Fields(lines[i])
		}
		rec.Line = i + 1
		i++
		switch tok[0] {
		case "statement":
			if len(tok) < 2 || (tok[1] != "ok" && tok[1] != "error") {
				return nil, fmt.Errorf("line %d: statement needs ok or error", rec.Line)
			}
			rec.Kind, rec.ExpectError = Statement, tok[1] == "error"
			var sql []string
			for !blank(i) {
				sql = append(sql, lines[i])
				i++
			}
			rec.SQL = strings.Join(sql, "\n")
		case "query":
			if len(tok) < 2 {
				return nil, fmt.Errorf("line %d: query without a type string", rec.Line)
			}
			rec.Kind, rec.Types, rec.Sort = Query, tok[1], "nosort"
			if len(tok) > 2 {
				rec.Sort = tok[2]
			}
			if len(tok) > 3 {
				rec.Label = tok[3]
			}
			var sql []string
			for !blank(i) && lines[i] != "----" {
				sql = append(sql, lines[i])
				i++
			}
			rec.SQL = strings.Join(sql, "\n")
			if i < len(lines) && lines[i] == "----" {
				i++
				for !blank(i) {
					rec.Expected = append(rec.Expected, lines[i])
					i++
				}
			}
		case "hash-threshold":
			if len(tok) < 2 {
				return nil, fmt.Errorf("line %d: hash-threshold without a number", rec.Line)
			}
			n, err := strconv.Atoi(tok[1])
			if err != nil || n < 0 {
				return nil, fmt.Errorf("line %d: hash-threshold %q", rec.Line, tok[1])
			}
			rec.Kind, rec.Threshold = HashThreshold, n
		case "halt":
			rec.Kind = Halt
		default:
			return nil, fmt.Errorf("line %d: unknown record %q", rec.Line, tok[0])
		}
		out = append(out, rec)
	}
	return out, nil
}
