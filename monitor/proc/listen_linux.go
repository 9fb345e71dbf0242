package proc

import (
	"bufio"
	"errors"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
)

// mayListen reports whether anything may be listening on TCP port. It reads
// only the kernel's socket tables, so an idle watcher can ask every
// interval without walking every process's descriptors. When unsure (a
// table unreadable) it says true and lets the full lookup decide.
func mayListen(port int) bool {
	// The kernel's TCP socket tables for this network namespace.
	for _, name := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		f, err := os.Open(name)
		if errors.Is(err, fs.ErrNotExist) {
			continue // tcp6 is absent when IPv6 is disabled
		}
		if err != nil {
			return true
		}
		found, err := tableListens(f, port)
		_ = f.Close()
		if err != nil || found {
			return true
		}
	}
	return false
}

// tcpListen is the state code of a listening socket in /proc/net/tcp.
const tcpListen = "0A"

// tableListens scans a /proc/net/tcp-format table for a socket in LISTEN
// state on port. Lines it cannot parse are skipped.
func tableListens(r io.Reader, port int) (bool, error) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		// "  0: 0100007F:0CEA 00000000:0000 0A ..." : local address, remote, state.
		fields := strings.Fields(sc.Text())
		if len(fields) < 4 || fields[3] != tcpListen {
			continue
		}
		i := strings.LastIndexByte(fields[1], ':')
		if i < 0 {
			continue
		}
		p, err := strconv.ParseUint(fields[1][i+1:], 16, 16)
		if err == nil && int(p) == port {
			return true, nil
		}
	}
	return false, sc.Err()
}
