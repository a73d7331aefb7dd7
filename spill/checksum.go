package spill

import (
	"bytes"
	"encoding/hex"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/zeebo/xxh3"

	"github.com/quiverdb/quiver/batch"
)

// Every message of a spill file carries, in its custom_metadata, the
// XXH3-64 of the whole encapsulated message (prefix, metadata, padding,
// body) computed with the checksum's own 16 hex digits set to '0' and
// seeded with the message's position in the file (0 for the schema). The
// seed makes a message moved elsewhere fail too.
const (
	checksumKey  = "quiver.spill.xxh3"
	checksumLen  = 16
	zeroChecksum = "0000000000000000"
)

// checksumMetadata is what the Writer's encoder attaches to every message.
var checksumMetadata = arrow.NewMetadata([]string{checksumKey}, []string{zeroChecksum})

// seal computes the checksum of the encapsulated message msg (whose
// metadata is meta, a subslice of msg) and writes it over the zeros.
func seal(msg, meta []byte, seq uint64) {
	at := bytes.Index(meta, []byte(zeroChecksum))
	if at < 0 {
		panic("spill: encoded message without its checksum placeholder")
	}
	sum := xxh3.HashSeed(msg, seq)
	hex.Encode(meta[at:at+checksumLen], be64(sum))
}

func be64(v uint64) []byte {
	return []byte{byte(v >> 56), byte(v >> 48), byte(v >> 40), byte(v >> 32), byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}
}

// verify checks the checksum of the encapsulated message msg, split by
// the batch layer into m. It zeroes the checksum digits in place: msg is
// the Reader's own buffer.
func verify(msg []byte, m batch.Message, seq uint64) error {
	md, err := m.CustomMetadata()
	if err != nil {
		return err
	}
	i := md.FindKey(checksumKey)
	if i < 0 {
		return fmt.Errorf("message %d has no checksum", seq)
	}
	want := md.Values()[i]
	var sum [8]byte
	if len(want) != checksumLen {
		return fmt.Errorf("message %d: checksum %q is not %d hex digits", seq, want, checksumLen)
	}
	if _, err := hex.Decode(sum[:], []byte(want)); err != nil {
		return fmt.Errorf("message %d: checksum %q: %v", seq, want, err)
	}
	at := bytes.Index(m.Meta, []byte(want))
	if at < 0 {
		return fmt.Errorf("message %d: checksum %q not found in its metadata", seq, want)
	}
	copy(m.Meta[at:], zeroChecksum)
	got := xxh3.HashSeed(msg, seq)
	// Compared as the digits the writer writes (lowercase): hex.Decode
	// also reads "A" as "a", which let a changed byte pass.
	if hex.EncodeToString(be64(got)) != want {
		return fmt.Errorf("message %d: checksum %016x, file says %s", seq, got, want)
	}
	return nil
}
