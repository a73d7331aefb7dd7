package server

import (
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/flight"
	pb "github.com/apache/arrow-go/v18/arrow/flight/gen/flight"

	"github.com/quiverdb/quiver/codec"
)

// Spark's keys for the compression of Arrow batches (Spark 4.1, reused
// verbatim by Kyuubi), accepted as session options meaning the same as
// OptionResultCodec: a Spark or Kyuubi user's settings work unchanged.
const (
	// OptionSparkCodec is none, lz4 or zstd (at OptionSparkZstdLevel).
	OptionSparkCodec = "spark.sql.execution.arrow.compression.codec"
	// OptionSparkZstdLevel is the zstd level: it sets the level of the
	// session's codec when that is zstd, and the level a later
	// OptionSparkCodec=zstd takes. Default 3, as in Spark.
	OptionSparkZstdLevel = "spark.sql.execution.arrow.compression.zstd.level"
)

// codecChange is what one SetSessionOptions request asks of the codec,
// parsed and checked; apply makes it so. The keys apply in a fixed order,
// whatever order the request's map gives: OptionResultCodec, then
// OptionSparkCodec (so a request setting both gets Spark's), then
// OptionSparkZstdLevel (so {codec: zstd, level: 1} is zstd:1).
type codecChange struct {
	quiver, spark *codecValue
	level         *levelValue
}

type codecValue struct {
	unset bool
	codec resultCodec
	raw   *flight.SessionOptionValue
}

type levelValue struct {
	unset bool
	level int
	raw   *flight.SessionOptionValue
}

// parseCodecOptions reads a request's options; bad lists the ones refused
// (unknown names, bad values), which change nothing.
func parseCodecOptions(opts map[string]*flight.SessionOptionValue) (ch codecChange, bad map[string]pb.SetSessionOptionsResult_ErrorValue) {
	fail := func(name string, v pb.SetSessionOptionsResult_ErrorValue) {
		if bad == nil {
			bad = map[string]pb.SetSessionOptionsResult_ErrorValue{}
		}
		bad[name] = v
	}
	for name, v := range opts {
		unset := v == nil || v.GetOptionValue() == nil
		switch name {
		case OptionResultCodec:
			cv := &codecValue{unset: unset, raw: v}
			if !unset {
				rc, err := parseResultCodec(stringOption(v))
				if err != nil {
					fail(name, flight.SetSessionOptionsResultErrorInvalidValue)
					continue
				}
				cv.codec = rc
			}
			ch.quiver = cv
		case OptionSparkCodec:
			cv := &codecValue{unset: unset, raw: v}
			if !unset {
				switch strings.ToLower(strings.TrimSpace(stringOption(v))) {
				case "none":
					cv.codec = resultCodec{setting: codec.SettingNone}
				case "lz4":
					cv.codec = resultCodec{setting: codec.Setting{Kind: codec.LZ4}}
				case "zstd":
					cv.codec = resultCodec{setting: codec.Setting{Kind: codec.Zstd}} // level at apply
				default:
					fail(name, flight.SetSessionOptionsResultErrorInvalidValue)
					continue
				}
			}
			ch.spark = cv
		case OptionSparkZstdLevel:
			lv := &levelValue{unset: unset, raw: v}
			if !unset {
				n, ok := intOption(v)
				if !ok || (codec.Setting{Kind: codec.Zstd, Level: n}).Validate() != nil {
					fail(name, flight.SetSessionOptionsResultErrorInvalidValue)
					continue
				}
				lv.level = n
			}
			ch.level = lv
		default:
			fail(name, flight.SetSessionOptionsResultErrorInvalidName)
		}
	}
	return ch, bad
}

// apply changes sess (locked by the caller); defaults is the server's
// codec, which an unset codec key goes back to.
func (ch codecChange) apply(sess *session, defaults resultCodec) {
	if cv := ch.quiver; cv != nil {
		sess.codec = defaults
		if !cv.unset {
			sess.codec = cv.codec
		}
		delete(sess.options, OptionSparkCodec) // superseded
	}
	if cv := ch.spark; cv != nil {
		sess.codec = defaults
		delete(sess.options, OptionSparkCodec)
		if !cv.unset {
			sess.codec = cv.codec
			if cv.codec.setting.Kind == codec.Zstd {
				sess.codec.setting.Level = sess.zstdLevel()
			}
			sess.options[OptionSparkCodec] = cv.raw
		}
	}
	if lv := ch.level; lv != nil {
		sess.sparkLevel = 0
		delete(sess.options, OptionSparkZstdLevel)
		if !lv.unset {
			sess.sparkLevel = lv.level
			sess.options[OptionSparkZstdLevel] = lv.raw
		}
		if !sess.codec.auto && sess.codec.setting.Kind == codec.Zstd {
			sess.codec.setting.Level = sess.zstdLevel()
		}
	}
}

// zstdLevel is the level Spark's keys mean: the one set, or Spark's
// default 3.
func (s *session) zstdLevel() int {
	if s.sparkLevel != 0 {
		return s.sparkLevel
	}
	return 3
}

func stringOption(v *flight.SessionOptionValue) string {
	if sv, ok := v.GetOptionValue().(*pb.SessionOptionValue_StringValue); ok {
		return sv.StringValue
	}
	return "\x00" // not a string: matches no value
}

// intOption reads an integer sent as int64 or as text (Spark's settings
// are strings).
func intOption(v *flight.SessionOptionValue) (int, bool) {
	switch x := v.GetOptionValue().(type) {
	case *pb.SessionOptionValue_Int64Value:
		return int(x.Int64Value), int64(int(x.Int64Value)) == x.Int64Value
	case *pb.SessionOptionValue_StringValue:
		n, err := strconv.Atoi(strings.TrimSpace(x.StringValue))
		return n, err == nil
	}
	return 0, false
}
