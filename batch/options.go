package batch

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/batch/internal/meta"
	"github.com/quiverdb/quiver/codec"
)

// WriteOptions configure an Encoder and the writers built on it. The zero
// value writes uncompressed batches on one goroutine with the default
// allocator.
type WriteOptions struct {
	// Codec compresses every buffer of the body. codec.SettingNone writes no
	// BodyCompression at all (plain IPC).
	Codec codec.Setting
	// MinSaving is the fraction of a buffer's size compression must save
	// for the compressed form to be kept; otherwise the buffer is stored
	// raw with the -1 prefix. 0 (the default) keeps any saving, so only
	// buffers that do not shrink at all are stored raw. Must be in [0, 1).
	MinSaving float64
	// Concurrency is how many goroutines compress the buffers of one
	// batch. 0 or 1 compresses on the calling goroutine.
	Concurrency int
	// Alloc allocates the temporary buffers used to rebase sliced arrays.
	// nil means memory.DefaultAllocator.
	Alloc memory.Allocator
}

// Validate reports an option outside its documented range.
func (o WriteOptions) Validate() error {
	if err := o.Codec.Validate(); err != nil {
		return err
	}
	if !(o.MinSaving >= 0 && o.MinSaving < 1) {
		return fmt.Errorf("batch: MinSaving %v outside [0, 1)", o.MinSaving)
	}
	if o.Concurrency < 0 {
		return fmt.Errorf("batch: Concurrency %d is negative", o.Concurrency)
	}
	return nil
}

func (o WriteOptions) alloc() memory.Allocator {
	if o.Alloc == nil {
		return memory.DefaultAllocator
	}
	return o.Alloc
}

// ReadOptions configure a Decoder and the readers built on it. The zero
// value reads every column on one goroutine with the default allocator and
// DefaultLimits.
type ReadOptions struct {
	// Columns selects top-level columns by index, in the order wanted.
	// nil reads every column. A non-nil empty slice reads none: the
	// decoded records carry only their row count and no body byte is
	// touched.
	Columns []int
	// Concurrency is how many goroutines decompress the buffers of one
	// batch. 0 or 1 decompresses on the calling goroutine.
	Concurrency int
	// Prefetch is how many record batches a StreamReader decodes ahead,
	// each on its own goroutine (records still come out in stream
	// order). 0 or 1 decodes each batch in Next. FileReader.Record may
	// simply be called from several goroutines instead.
	Prefetch int
	// Alloc allocates decoded buffers. nil means memory.DefaultAllocator.
	Alloc memory.Allocator
	// Limits bound what hostile bytes can make the decoder allocate.
	// Zero fields take the defaults of DefaultLimits.
	Limits Limits
	// Admit, when set, is called with the decoded bytes each record or
	// dictionary batch claims (its buffers, the selected columns'), after
	// those lengths pass Limits and before anything is allocated for
	// them; an error from it stops the read and is returned, wrapped.
	// Limits bound one batch; Admit lets a caller bound many (a server
	// counting what all uploads decode against its memory budget). With
	// Prefetch it is called from the decoding goroutines.
	Admit func(decoded int64) error
}

func (o ReadOptions) alloc() memory.Allocator {
	if o.Alloc == nil {
		return memory.DefaultAllocator
	}
	return o.Alloc
}

// Limits bound every length read from untrusted bytes. Each is checked
// before it sizes an allocation.
type Limits struct {
	// MaxMetadata is the largest message metadata (flatbuffer) accepted.
	MaxMetadata int64
	// MaxBody is the largest message body accepted.
	MaxBody int64
	// MaxUncompressed caps the decoded size of one batch, all buffers
	// together, whatever the body size.
	MaxUncompressed int64
	// MaxRatio caps the decoded size of one batch relative to its body:
	// decoded ≤ max(MaxRatio × body, RatioFloor). It stops a small message
	// from claiming a huge buffer.
	MaxRatio int64
	// RatioFloor is the decoded size always allowed, whatever the ratio,
	// so that small, highly compressible batches still read.
	RatioFloor int64
	// MaxFields, MaxDepth, MaxNodes and MaxBuffers bound schemas and
	// batches (see package meta).
	MaxFields  int
	MaxDepth   int
	MaxNodes   int
	MaxBuffers int
}

// DefaultLimits are sized for real data.
var DefaultLimits = Limits{
	MaxMetadata:     64 << 20,
	MaxBody:         2 << 30,
	MaxUncompressed: 16 << 30,
	MaxRatio:        8,
	RatioFloor:      256 << 20,
	MaxFields:       1 << 16,
	MaxDepth:        64,
	MaxNodes:        1 << 20,
	MaxBuffers:      1 << 22,
}

// withDefaults fills zero fields from DefaultLimits.
func (l Limits) withDefaults() Limits {
	d := DefaultLimits
	pick := func(v, def int64) int64 {
		if v <= 0 {
			return def
		}
		return v
	}
	pickInt := func(v, def int) int {
		if v <= 0 {
			return def
		}
		return v
	}
	return Limits{
		MaxMetadata:     pick(l.MaxMetadata, d.MaxMetadata),
		MaxBody:         pick(l.MaxBody, d.MaxBody),
		MaxUncompressed: pick(l.MaxUncompressed, d.MaxUncompressed),
		MaxRatio:        pick(l.MaxRatio, d.MaxRatio),
		RatioFloor:      pick(l.RatioFloor, d.RatioFloor),
		MaxFields:       pickInt(l.MaxFields, d.MaxFields),
		MaxDepth:        pickInt(l.MaxDepth, d.MaxDepth),
		MaxNodes:        pickInt(l.MaxNodes, d.MaxNodes),
		MaxBuffers:      pickInt(l.MaxBuffers, d.MaxBuffers),
	}
}

// decodedAllowance is how many decoded bytes a body of bodyLen may claim.
func (l Limits) decodedAllowance(bodyLen int64) int64 {
	allow := l.RatioFloor
	if bodyLen <= l.MaxUncompressed/l.MaxRatio && bodyLen*l.MaxRatio > allow {
		allow = bodyLen * l.MaxRatio
	}
	return min(allow, l.MaxUncompressed)
}

// meta returns the limits the metadata decoder enforces.
func (l Limits) meta() meta.Limits {
	return meta.Limits{
		MaxFields:   l.MaxFields,
		MaxDepth:    l.MaxDepth,
		MaxNodes:    l.MaxNodes,
		MaxBuffers:  l.MaxBuffers,
		MaxMetadata: meta.DefaultLimits.MaxMetadata,
	}
}
