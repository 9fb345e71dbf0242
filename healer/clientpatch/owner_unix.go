//go:build unix

package clientpatch

import (
	"io/fs"
	"os"
	"os/user"
	"strconv"
	"syscall"
)

// keepOwner gives the temp file the original's owner when root writes a
// user's install (sudo), so the user can still update it.
func keepOwner(f *os.File, orig fs.FileInfo) error {
	st, ok := orig.Sys().(*syscall.Stat_t)
	if !ok || os.Geteuid() != 0 {
		return nil
	}
	return f.Chown(int(st.Uid), int(st.Gid))
}

// owner names the user owning path, for the read-only message.
func owner(path string) string {
	st, err := os.Stat(path)
	if err != nil {
		return "another user"
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return "another user"
	}
	id := strconv.FormatUint(uint64(sys.Uid), 10)
	if u, err := user.LookupId(id); err == nil {
		return u.Username
	}
	return "uid " + id
}
