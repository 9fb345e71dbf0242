//go:build darwin && cgo

package sockact

/*
#include <launch.h>
#include <stdlib.h>
*/
import "C"

import (
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"
	"unsafe"
)

// launchd asks launchd for the sockets of each name (launch_activate_socket,
// macOS 10.10+). A name launchd holds no socket for (ENOENT), or a process
// launchd did not start (ESRCH), gives nothing.
func launchd(names []string) (Set, error) {
	var s Set
	for _, name := range names {
		lns, err := activateOne(name)
		if errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ESRCH) {
			continue
		}
		if err != nil {
			s.Close()
			return Set{}, fmt.Errorf("launchd socket %q: %w", name, err)
		}
		for _, ln := range lns {
			s.Sockets = append(s.Sockets, Socket{Name: name, From: FromLaunchd, Listener: ln})
		}
	}
	return s, nil
}

func activateOne(name string) ([]net.Listener, error) {
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	var fds *C.int
	var cnt C.size_t
	if rc := C.launch_activate_socket(cname, &fds, &cnt); rc != 0 {
		return nil, syscall.Errno(rc)
	}
	defer C.free(unsafe.Pointer(fds))
	var out []net.Listener
	for _, fd := range unsafe.Slice(fds, int(cnt)) {
		f := os.NewFile(uintptr(fd), name)
		ln, err := net.FileListener(f)
		_ = f.Close() // FileListener holds a duplicate
		if err != nil {
			for _, l := range out {
				_ = l.Close()
			}
			return nil, err
		}
		out = append(out, ln)
	}
	return out, nil
}
