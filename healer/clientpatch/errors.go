package clientpatch

import "errors"

// Sentinel errors callers branch on (the CLI maps them to exit codes).
var (
	// ErrUnknownVersion: the file is not a known build of the client and
	// Force was not given. Errors wrapping it name the client.
	ErrUnknownVersion = errors.New("unknown client module version")
	// ErrUnsupported: a known build the patch cannot fix (it never
	// reconnects); Force does not change that.
	ErrUnsupported = errors.New("client build cannot be fixed by the patch")
	// ErrAnchorsMissing: some anchor of the edit is missing or not unique;
	// the file was left untouched.
	ErrAnchorsMissing = errors.New("patch anchors not found exactly once")
	// ErrModified: the patched file was changed since it was patched.
	ErrModified = errors.New("patched file was modified since it was patched")
	// ErrReadOnly: the module's directory cannot be written by this user.
	ErrReadOnly = errors.New("client module is read-only for this user")
	// ErrNoBackup: no backup that is a valid original of the file.
	ErrNoBackup = errors.New("no usable backup")
	// ErrNodeCheck: `node --check` rejected the new file, or node is missing.
	ErrNodeCheck = errors.New("node --check failed")
	// ErrNotFound: no client module at the path, or none found. Errors
	// wrapping it name the client.
	ErrNotFound = errors.New("client module not found")
)

// Refused reports whether err is a refusal of the input (a version, a
// file or a change the fix will not act on) rather than a failure: the
// command line's bad usage.
func Refused(err error) bool {
	for _, refused := range []error{ErrUnknownVersion, ErrUnsupported, ErrAnchorsMissing, ErrModified} {
		if errors.Is(err, refused) {
			return true
		}
	}
	return false
}
