package spill

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/quiverdb/quiver/codec"
)

// Config configures a Manager. The zero value spills uncompressed files
// under os.TempDir() with no quota, on the real file system.
type Config struct {
	// Dir is the parent folder of the Manager's own folder,
	// Dir/quiver-spill-<pid>-<random>/. "" means os.TempDir(). It is
	// created if missing.
	Dir string
	// Quota caps the bytes of spill files this Manager holds on disk at
	// once; a write that would pass it fails with ErrQuota. 0 means no
	// quota (the disk is the limit: ErrNoSpace).
	Quota int64
	// Codec compresses spill files. The zero value is none: codec.Setting
	// cannot tell "unset" from "none", and a default that compressed
	// would surprise a caller who asked for none. With lz4 or zstd:N,
	// string and binary columns are also written as lengths plus one run
	// of bytes (doc.go). On the spill_io datasets (quiver bench spill)
	// zstd:1 writes about half the bytes of lz4 at about half its speed,
	// and under half the bytes of arrow-go's zstd IPC on string data;
	// lz4 suits a fast disk, zstd a slow or small one.
	Codec codec.Setting
	// FS is the file system spill files live on. nil means the operating
	// system's (OSFS); tests inject faults through their own.
	FS FS
	// Concurrency is how many goroutines compress (when writing) or
	// decompress (when reading) the buffers of one batch. 0 or 1 works on
	// the calling goroutine; spills usually run beside other work.
	Concurrency int
	// Alloc allocates the temporary buffers a Writer builds (string
	// lengths, compacted views). nil means memory.DefaultAllocator.
	// Readers allocate from the allocator given to File.Open.
	Alloc memory.Allocator
}

// Validate reports a field outside its documented range.
func (c Config) Validate() error {
	if c.Quota < 0 {
		return fmt.Errorf("spill: Quota %d is negative", c.Quota)
	}
	if c.Concurrency < 0 {
		return fmt.Errorf("spill: Concurrency %d is negative", c.Concurrency)
	}
	if err := c.Codec.Validate(); err != nil {
		return fmt.Errorf("spill: Codec: %w", err)
	}
	return nil
}

func (c Config) alloc() memory.Allocator {
	if c.Alloc == nil {
		return memory.DefaultAllocator
	}
	return c.Alloc
}
