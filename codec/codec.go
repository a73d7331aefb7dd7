package codec

import (
	"errors"
	"fmt"
	"github.com/quiverdb/quiver/internal/invariants"
	"strconv"
	"strings"
)

// Kind names a block codec. Its numeric value is stable: it is stored in
// quiver-internal formats (cache entries, spill headers) as one byte.
type Kind uint8

const (
	// None stores bytes as they are.
	None Kind = 0
	// LZ4 is the LZ4 frame format (Arrow's LZ4_FRAME).
	LZ4 Kind = 1
	// Zstd is the Zstandard frame format (Arrow's ZSTD).
	Zstd Kind = 2
)

// String returns the name used in settings: "none", "lz4" or "zstd".
func (k Kind) String() string {
	switch k {
	case None:
		return "none"
	case LZ4:
		return "lz4"
	case Zstd:
		return "zstd"
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Zstd levels the format defines. Negative levels are zstd's "fast" levels.
const (
	MinZstdLevel     = -131072 // ZSTD_minCLevel() of libzstd 1.5
	MaxZstdLevel     = 22
	DefaultZstdLevel = 3
)

// Setting is a codec and, for zstd, its level. The zero value is none.
// Settings print and parse as text: "none", "lz4", "zstd" (level 3),
// "zstd:1", "zstd:19", "zstd:-5".
type Setting struct {
	Kind  Kind
	Level int // zstd only; 0 means DefaultZstdLevel
}

// Common settings.
var (
	SettingNone = Setting{Kind: None}
	SettingLZ4  = Setting{Kind: LZ4}
	SettingZstd = Setting{Kind: Zstd, Level: DefaultZstdLevel}
)

// String prints the setting in the form ParseSetting reads.
func (s Setting) String() string {
	if s.Kind == Zstd {
		return "zstd:" + strconv.Itoa(s.normalized().Level)
	}
	return s.Kind.String()
}

// normalized resolves the default zstd level so equal settings compare equal.
func (s Setting) normalized() Setting {
	if s.Kind == Zstd && s.Level == 0 {
		s.Level = DefaultZstdLevel
	}
	if s.Kind != Zstd {
		s.Level = 0
	}
	return s
}

// Validate reports whether the setting names a codec quiver has.
func (s Setting) Validate() error {
	switch s.Kind {
	case None, LZ4:
		if s.Level != 0 {
			return fmt.Errorf("codec: %s takes no level (got %d)", s.Kind, s.Level)
		}
		return nil
	case Zstd:
		if s.Level < MinZstdLevel || s.Level > MaxZstdLevel {
			return fmt.Errorf("codec: zstd level %d outside [%d, %d]", s.Level, MinZstdLevel, MaxZstdLevel)
		}
		return nil
	}
	return fmt.Errorf("codec: unknown codec kind %d", s.Kind)
}

// ParseSetting reads "none", "lz4", "zstd" or "zstd:N" (case-insensitive).
func ParseSetting(text string) (Setting, error) {
	name, level, hasLevel := strings.Cut(strings.ToLower(strings.TrimSpace(text)), ":")
	var s Setting
	switch name {
	case "none", "uncompressed":
		s.Kind = None
	case "lz4", "lz4_frame":
		s.Kind = LZ4
	case "zstd":
		s.Kind = Zstd
		s.Level = DefaultZstdLevel
	default:
		return Setting{}, fmt.Errorf("codec: unknown codec %q (want none, lz4, zstd or zstd:LEVEL)", text)
	}
	if hasLevel {
		if s.Kind != Zstd {
			return Setting{}, fmt.Errorf("codec: %s takes no level in %q", s.Kind, text)
		}
		n, err := strconv.Atoi(level)
		if err != nil {
			return Setting{}, fmt.Errorf("codec: bad zstd level in %q", text)
		}
		s.Level = n
	}
	if err := s.Validate(); err != nil {
		return Setting{}, err
	}
	return s.normalized(), nil
}

// MarshalText and UnmarshalText let settings live in flags and config files.
func (s Setting) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

func (s *Setting) UnmarshalText(b []byte) error {
	v, err := ParseSetting(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// Codec compresses and decompresses whole buffers. Implementations are safe
// for concurrent use.
// DecodeSlack is the spare capacity past the decoded bytes that lets
// DecompressSlack take a codec's fastest path.
const DecodeSlack = 32

// DecompressSlack is c.Decompress, except that it may overwrite up to
// DecodeSlack bytes of dst's spare capacity past len(dst)+n. Give it that
// much capacity and zstd decodes with klauspost/compress's wide-copy loops,
// which need 32 bytes of room past a block and otherwise fall back to
// bounds-exact copies: on the Comet relation's buffers, zstd:3 frames
// decode 8% faster with the slack (1,936 against 1,794 MB/s), zstd:1
// frames the same. Other codecs ignore the slack.
func DecompressSlack(c Codec, dst, src []byte, n int) ([]byte, error) {
	if s, ok := c.(interface {
		decompressSlack(dst, src []byte, n int) ([]byte, error)
	}); ok {
		return s.decompressSlack(dst, src, n)
	}
	return c.Decompress(dst, src, n)
}

// Codec compresses and decompresses whole buffers in one block format
// (none, LZ4 frame, zstd): what an Arrow IPC body buffer or a cache chunk
// holds. Get one from New (or MustNew); it is long-lived, shared and safe
// for concurrent use, so callers keep it rather than make one per buffer.
// Both directions are append-style, dst first, and the result may alias
// dst. Decompress takes src as untrusted bytes and the decoded size n the
// caller recorded: it checks n against what src can expand to before it
// allocates, never writes past len(dst)+n, and fails with an error
// matching ErrCorrupt. Every implementation passes the same conformance
// suite, codectest.Run.
type Codec interface {
	// Setting returns the codec and level this Codec writes.
	Setting() Setting
	// Compress appends the compressed form of src to dst and returns the
	// extended slice. Bytes already in dst are preserved.
	Compress(dst, src []byte) []byte
	// Decompress appends the decoded form of src to dst. n is the exact
	// decoded size the caller recorded; decoding never writes more than n
	// bytes past len(dst) and fails with ErrTooLarge or ErrTooSmall when the
	// data decodes to more or fewer bytes. Bytes already in dst are
	// preserved; on error the returned slice is dst unchanged in length.
	Decompress(dst, src []byte, n int) ([]byte, error)
	// CompressBound is the most bytes Compress can append for n input bytes.
	CompressBound(n int) int
}

// Errors. Every decode failure matches ErrCorrupt; the finer sentinels below
// also match it, so callers that only care about "bad bytes" test one error.
var (
	ErrCorrupt = errors.New("codec: corrupt input")

	// ErrTooLarge: the data decodes to more bytes than the caller said.
	ErrTooLarge = corruptKind("decodes to more bytes than expected")
	// ErrTooSmall: the data decodes to fewer bytes than the caller said.
	ErrTooSmall = corruptKind("decodes to fewer bytes than expected")

	// LZ4 frame errors (ErrChecksum also for zstd frame checksums).

	// ErrNotFrame: wrong magic, the legacy format, another version, or
	// reserved descriptor bits set.
	ErrNotFrame = corruptKind("not an LZ4 frame")
	// ErrHeaderTruncated: the input ends inside the frame header or a
	// skippable frame in front of it.
	ErrHeaderTruncated = corruptKind("cut off inside the frame header")
	// ErrNoEndMark: the input ends before the end mark or, when the frame
	// has one, inside the content checksum after it.
	ErrNoEndMark = corruptKind("cut off before the end of the frame")
	// ErrBlockOverrun: a block claims more bytes than the input has left.
	ErrBlockOverrun = corruptKind("block runs past the end of the input")
	// ErrBlockCorrupt: a block claims more than the frame's block maximum
	// or its data is not valid LZ4.
	ErrBlockCorrupt = corruptKind("block does not decode")
	// ErrChecksum: a header, block or content checksum does not match.
	ErrChecksum = corruptKind("checksum mismatch")
)

// kindError is a sentinel that also matches ErrCorrupt.
type kindError struct{ msg string }

func corruptKind(msg string) error { return &kindError{msg: "codec: " + msg} }

func (e *kindError) Error() string        { return e.msg }
func (e *kindError) Is(target error) bool { return target == ErrCorrupt }

// New returns the shared Codec for a setting. Codecs are long-lived and
// shared: one zstd encoder per level and one decoder per process.
func New(s Setting) (Codec, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	s = s.normalized()
	var c Codec
	switch s.Kind {
	case None:
		c = noneCodec{}
	case LZ4:
		c = lz4Shared
	case Zstd:
		c = zstdFor(s.Level)
	}
	if invariants.Enabled {
		c = checked{c}
	}
	return c, nil
}

// MustNew is New for settings known to be valid; it panics otherwise.
func MustNew(s Setting) Codec {
	c, err := New(s)
	if err != nil {
		panic(err)
	}
	return c
}
