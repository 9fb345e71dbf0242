package peer

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"net/netip"
	"os"
	"strconv"
	"strings"
)

// procUID finds the socket in /proc/net/tcp (tcp6 for v6 addresses): the
// row whose local and remote addresses are these, its uid column.
func procUID(local, remote netip.AddrPort) (int, error) {
	file := "/proc/net/tcp"
	if local.Addr().Is6() {
		file = "/proc/net/tcp6"
	}
	f, err := os.Open(file)
	if err != nil {
		return Unknown, fmt.Errorf("peer: %w", err)
	}
	defer f.Close()
	return scanTable(bufio.NewScanner(f), procAddr(local), procAddr(remote), file)
}

func scanTable(sc *bufio.Scanner, local, remote, file string) (int, error) {
	for sc.Scan() {
		// sl local_address rem_address st tx:rx tr:when retrnsmt uid ...
		f := strings.Fields(sc.Text())
		if len(f) < 8 || f[1] != local || f[2] != remote {
			continue
		}
		uid, err := strconv.Atoi(f[7])
		if err != nil {
			return Unknown, fmt.Errorf("peer: %s: uid column %q: %w", file, f[7], err)
		}
		return uid, nil
	}
	if err := sc.Err(); err != nil {
		return Unknown, fmt.Errorf("peer: read %s: %w", file, err)
	}
	return Unknown, fmt.Errorf("peer: %s: %w", file, ErrNotFound)
}

// procAddr spells a as the kernel prints it: each 32-bit word of the
// address as a native-endian hex number, then the port in hex.
func procAddr(a netip.AddrPort) string {
	var sb strings.Builder
	raw := addrBytes(a.Addr())
	for i := 0; i < len(raw); i += 4 {
		fmt.Fprintf(&sb, "%08X", binary.NativeEndian.Uint32(raw[i:]))
	}
	fmt.Fprintf(&sb, ":%04X", a.Port())
	return sb.String()
}
