package convert

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// DefaultBatchRows is the rows of an output batch when Config.BatchRows
// is zero: Comet's (and DataFusion's) 8192.
const DefaultBatchRows = 8192

// DefaultMaxBytes is the byte cap of an output batch when
// Config.MaxBytes is zero.
const DefaultMaxBytes = 64 << 20

// Config configures a Coalescer and the readers built on it. The zero
// value gives 8192-row batches of at most 64 MiB from the default
// allocator.
type Config struct {
	// BatchRows is the rows of every output batch but the last.
	BatchRows int
	// MaxBytes caps the buffers of an output batch: a batch is closed
	// early rather than grow past it (a single row bigger than MaxBytes
	// makes a batch of its own). Whatever MaxBytes says, a batch is also
	// closed before an int32 offset (String, Binary, List) would pass
	// 2^31-1.
	MaxBytes int64
	// Alloc allocates the output batches. nil is memory.DefaultAllocator.
	Alloc memory.Allocator
}

// Validate reports a negative field.
func (c Config) Validate() error {
	if c.BatchRows < 0 || c.MaxBytes < 0 {
		return fmt.Errorf("convert: negative BatchRows %d or MaxBytes %d", c.BatchRows, c.MaxBytes)
	}
	return nil
}

func (c Config) withDefaults() Config {
	if c.BatchRows == 0 {
		c.BatchRows = DefaultBatchRows
	}
	if c.MaxBytes == 0 {
		c.MaxBytes = DefaultMaxBytes
	}
	if c.Alloc == nil {
		c.Alloc = memory.DefaultAllocator
	}
	return c
}
