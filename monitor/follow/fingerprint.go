package follow

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
)

// FingerprintSize is the most bytes of a file's start that its fingerprint
// covers.
const FingerprintSize = 256

// fingerprintHexLen is the length of a fingerprint string: the first 16 bytes
// of a SHA-256, hex encoded. 128 bits is plenty to tell log files apart.
const fingerprintHexLen = 32

// fingerprint names a file by its first bytes: the hash of prefix[:k], where k
// is the end of the first line (its newline included) or FingerprintSize,
// whichever comes first. ok is false while prefix holds neither a newline nor
// FingerprintSize bytes: such a file has no complete line yet, so no Position
// can refer to it.
//
// Ending at the first newline makes the fingerprint stable for the file's
// whole life from its first emitted line on, so every Position of a file
// carries the same fingerprint even for files shorter than FingerprintSize.
func fingerprint(prefix []byte) (fp string, ok bool) {
	k := len(prefix)
	if i := bytes.IndexByte(prefix, '\n'); i >= 0 && i+1 < k {
		k = i + 1
	}
	if k > FingerprintSize {
		k = FingerprintSize
	}
	if k < FingerprintSize && (k == 0 || prefix[k-1] != '\n') {
		return "", false
	}
	sum := sha256.Sum256(prefix[:k])
	return hex.EncodeToString(sum[:fingerprintHexLen/2]), true
}
