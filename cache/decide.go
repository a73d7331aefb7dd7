package cache

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/quiverdb/quiver/codec"
	"github.com/quiverdb/quiver/internal/arrowsize"
)

// What Put decides from a table's first batches (at most sampleBatches
// batches or sampleRows rows, and of those at most sampleBytes of Arrow
// buffers, see sampleLimit), once per table, so every batch of a table
// has the same stored schema:
//
//   - a dictionary column is kept as dictionaries or decoded to its values,
//     whichever makes the sample's chunks smaller under lz4, whatever the
//     table's codec, so that the choice, and with it the decoded size a
//     planner sees, is the same under every codec;
//   - under Auto, each column's codec (chooseCodec).

// Auto's candidates and tolerances. zstd:3 rather than zstd:1: with
// klauspost/compress it encodes as fast, decodes faster (1,467 against
// 1,194 MB/s on the Comet relation, BENCHMARKS.md) and is smaller.
var (
	autoZstd = codec.Setting{Kind: codec.Zstd, Level: 3}
	// A column whose best compressed size is above 1/noneGain of its
	// plain size is stored without a codec: a 10% saving does not pay a
	// decode pass.
	noneGain = 1.10
	// lz4 is chosen when within lz4Slack of the smallest size: it decodes
	// about twice as fast as zstd.
	lz4Slack = 1.25
)

func (b *builder) decide(ctx context.Context, sample []arrow.RecordBatch) error {
	n := b.in.NumFields()
	b.columns = make([]columnState, n)
	fields := b.in.Fields()
	enc := &chunkEncoder{encodings: b.encodings, mem: b.mem}
	for i := range n {
		col := b.sampleColumn(sample, i)
		defer releaseArrays(col)
		if dt, ok := fields[i].Type.(*arrow.DictionaryType); ok {
			keep, err := b.keepDictionary(ctx, enc, col)
			if err != nil {
				return fmt.Errorf("cache: table %q column %q: %w", b.name, fields[i].Name, err)
			}
			b.columns[i].dictionary = "kept"
			if !keep {
				b.columns[i].dictionary = "decoded"
				fields[i].Type = dt.ValueType
			}
		}
		b.columns[i].codec = b.setting.Setting
		if b.setting.Auto {
			s, err := b.chooseCodec(ctx, enc, col, b.columns[i].dictionary == "decoded")
			if err != nil {
				return fmt.Errorf("cache: table %q column %q: %w", b.name, fields[i].Name, err)
			}
			b.columns[i].codec = s
		}
	}
	md := b.in.Metadata()
	b.out = arrow.NewSchema(fields, &md)
	return nil
}

// sampleColumn returns column i of the sample, cut to the first rows
// (sampleLimit) so that deciding costs about the same on a table of 6
// columns as on one of 1,500. The caller releases the slices.
func (b *builder) sampleColumn(sample []arrow.RecordBatch, i int) []arrow.Array {
	left := sampleLimit(sample)
	var col []arrow.Array
	for _, rec := range sample {
		if left <= 0 {
			break
		}
		n := min(int(rec.NumRows()), left)
		col = append(col, array.NewSlice(rec.Column(i), 0, int64(n)))
		left -= n
	}
	return col
}

// sampleBytes bounds the Arrow bytes of all columns together that Put
// samples, between sampleRowsMin and sampleRows rows.
const (
	sampleBytes   = 16 << 20
	sampleRowsMin = 4096
)

// sampleLimit is how many rows of the sample to measure.
func sampleLimit(sample []arrow.RecordBatch) int {
	var rows, size int64
	for _, rec := range sample {
		rows += rec.NumRows()
		for _, col := range rec.Columns() {
			size += arrowsize.Data(col.Data())
		}
	}
	if rows == 0 || size == 0 {
		return int(rows)
	}
	perRow := max(size/rows, 1)
	return int(min(rows, max(sampleRowsMin, sampleBytes/perRow)))
}

// sampleSize is the chunk bytes of the sample's arrays under s, decoding
// dictionaries first when decode is set.
func (b *builder) sampleSize(ctx context.Context, enc *chunkEncoder, col []arrow.Array, s codec.Setting, decode bool) (int, error) {
	enc.use(s)
	var buf []byte
	size := 0
	for _, arr := range col {
		if decode {
			dense, err := decodeDictionary(ctx, b.mem, arr)
			if err != nil {
				return 0, err
			}
			arr = dense
			defer dense.Release()
		}
		var err error
		buf, _, err = enc.encode(buf[:0], arr)
		if err != nil {
			return 0, err
		}
		size += len(buf)
	}
	return size, nil
}

// keepDictionary reports whether the sample is smaller kept as dictionaries
// than decoded (an empty sample keeps them).
func (b *builder) keepDictionary(ctx context.Context, enc *chunkEncoder, col []arrow.Array) (bool, error) {
	kept, err := b.sampleSize(ctx, enc, col, codec.SettingLZ4, false)
	if err != nil {
		return false, err
	}
	decoded, err := b.sampleSize(ctx, enc, col, codec.SettingLZ4, true)
	if err != nil {
		return false, err
	}
	return kept <= decoded, nil
}

// chooseCodec is Auto's choice for one column: the fastest-decoding of
// none, lz4 and zstd:3 whose sample size is close enough to the smallest
// (see noneGain and lz4Slack). An empty sample gets lz4.
func (b *builder) chooseCodec(ctx context.Context, enc *chunkEncoder, col []arrow.Array, decode bool) (codec.Setting, error) {
	if len(col) == 0 {
		return codec.SettingLZ4, nil
	}
	var sizes [3]int
	for i, s := range []codec.Setting{codec.SettingNone, codec.SettingLZ4, autoZstd} {
		var err error
		if sizes[i], err = b.sampleSize(ctx, enc, col, s, decode); err != nil {
			return codec.Setting{}, err
		}
	}
	none, lz4, zstd := float64(sizes[0]), float64(sizes[1]), float64(sizes[2])
	best := min(lz4, zstd)
	switch {
	case none <= noneGain*best:
		return codec.SettingNone, nil
	case lz4 <= lz4Slack*best:
		return codec.SettingLZ4, nil
	}
	return autoZstd, nil
}

func releaseArrays(arrs []arrow.Array) {
	for _, a := range arrs {
		a.Release()
	}
}
