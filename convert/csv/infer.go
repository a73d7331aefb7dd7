package csv

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/quiverdb/quiver/convert/internal/parse"
)

// Schema inference reads a sample of records (Options.InferRows) and
// gives each column the first type, in this order, that every non-null
// sampled value parses as: bool (true/false/t/f in any case), int64,
// decimal128(38, s) when Options.InferDecimal is set (plain notation, s
// the most fraction digits seen), float64, date32 (YYYY-MM-DD),
// timestamp (µs, or ns when a value has more than 6 fraction digits;
// with time zone UTC when values carry offsets, all of them), else
// string. A column with no value in the sample is a string. Values past
// the sample that do not fit are errors (or skipped rows): give a
// schema, or a larger sample, when the sample may mislead.

type candidate struct {
	nonNull                        int
	isBool, isInt, isFloat, isDate bool
	isTS, isDecimal                bool
	scale, digits                  int
	zoned, naive                   bool
	nanos                          bool
}

func newCandidate() candidate {
	return candidate{isBool: true, isInt: true, isFloat: true, isDate: true, isTS: true, isDecimal: true}
}

func (c *candidate) see(b []byte) {
	c.nonNull++
	if c.isBool && !parse.IsBoolWord(b) {
		c.isBool = false
	}
	if c.isInt {
		if _, err := parse.Int64(b); err != nil {
			c.isInt = false
		}
	}
	if c.isDecimal {
		s, d, ok := plainDecimal(b)
		if ok {
			c.scale, c.digits = max(c.scale, s), max(c.digits, d)
		} else {
			c.isDecimal = false
		}
	}
	if c.isFloat {
		if _, err := parse.Float64(b); err != nil {
			c.isFloat = false
		}
	}
	if c.isDate {
		if _, err := parse.Date32(b); err != nil {
			c.isDate = false
		}
	}
	if c.isTS {
		if _, zoned, err := parse.Timestamp(b, arrow.Nanosecond); err != nil {
			// Nanoseconds overflow past 2262: try microseconds.
			if _, zoned2, err2 := parse.Timestamp(b, arrow.Microsecond); err2 != nil {
				c.isTS = false
			} else {
				c.zoned, c.naive = c.zoned || zoned2, c.naive || !zoned2
			}
		} else {
			c.zoned, c.naive = c.zoned || zoned, c.naive || !zoned
			if parse.FractionDigits(b) > 6 {
				c.nanos = true
			}
		}
	}
}

// plainDecimal reports the fraction digits and total digits of
// [sign]digits[.digits].
func plainDecimal(b []byte) (scale, digits int, ok bool) {
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		b = b[1:]
	}
	dot := false
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
			digits++
			if dot {
				scale++
			}
		case c == '.' && !dot:
			dot = true
		default:
			return 0, 0, false
		}
	}
	return scale, digits, digits > 0 && digits <= 38
}

func (c *candidate) typ(inferDecimal bool) arrow.DataType {
	switch {
	case c.nonNull == 0:
		return arrow.BinaryTypes.String
	case c.isBool:
		return arrow.FixedWidthTypes.Boolean
	case c.isInt:
		return arrow.PrimitiveTypes.Int64
	case inferDecimal && c.isDecimal:
		return &arrow.Decimal128Type{Precision: 38, Scale: int32(min(c.scale, 38))}
	case c.isFloat:
		return arrow.PrimitiveTypes.Float64
	case c.isDate:
		return arrow.FixedWidthTypes.Date32
	case c.isTS && !(c.zoned && c.naive):
		t := &arrow.TimestampType{Unit: arrow.Microsecond}
		if c.nanos {
			t.Unit = arrow.Nanosecond
		}
		if c.zoned {
			t.TimeZone = "UTC"
		}
		return t
	}
	return arrow.BinaryTypes.String
}

// infer returns the column types of the sampled rows.
func infer(x *parseCtx, ncols int, inferDecimal bool) []arrow.DataType {
	cands := make([]candidate, ncols)
	for i := range cands {
		cands[i] = newCandidate()
	}
	for r := range x.f.rows {
		for col := range ncols {
			if fb := x.field(r, col); !x.isNull(fb) {
				cands[col].see(fb)
			}
		}
	}
	types := make([]arrow.DataType, ncols)
	for i := range cands {
		types[i] = cands[i].typ(inferDecimal)
	}
	return types
}
