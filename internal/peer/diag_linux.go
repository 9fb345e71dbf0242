package peer

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"

	"golang.org/x/sys/unix"
)

// Layout of the netlink sock_diag exchange (linux/inet_diag.h): a
// nlmsghdr, then inet_diag_req_v2 going out and inet_diag_msg coming back.
const (
	nlHeader   = 16
	diagReqLen = 56 // family, protocol, ext, pad, states, inet_diag_sockid
	diagMsgUID = 64 // offset of idiag_uid in inet_diag_msg
	diagMsgLen = 72
	allStates  = 0xffffffff
	noCookie   = 0xffffffff // INET_DIAG_NOCOOKIE, both halves
)

// diagTimeout bounds the kernel's answer; it comes at once or not at all.
var diagTimeout = unix.Timeval{Sec: 1}

// diagUID asks the kernel for the TCP socket with exactly this local and
// remote address and returns its owner.
func diagUID(local, remote netip.AddrPort) (int, error) {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, unix.NETLINK_SOCK_DIAG)
	if err != nil {
		return Unknown, fmt.Errorf("sock_diag: %w", err)
	}
	defer unix.Close(fd)
	if err := unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &diagTimeout); err != nil {
		return Unknown, fmt.Errorf("sock_diag: %w", err)
	}
	if err := unix.Sendto(fd, diagRequest(local, remote), 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return Unknown, fmt.Errorf("sock_diag: %w", err)
	}
	buf := make([]byte, 1024)
	n, _, err := unix.Recvfrom(fd, buf, 0)
	if err != nil {
		return Unknown, fmt.Errorf("sock_diag: %w", err)
	}
	return diagAnswer(buf[:n])
}

func diagRequest(local, remote netip.AddrPort) []byte {
	ne := binary.NativeEndian
	b := make([]byte, nlHeader+diagReqLen)
	ne.PutUint32(b[0:], uint32(len(b)))
	ne.PutUint16(b[4:], unix.SOCK_DIAG_BY_FAMILY)
	ne.PutUint16(b[6:], unix.NLM_F_REQUEST) // no dump: one exact lookup
	ne.PutUint32(b[8:], 1)
	r := b[nlHeader:]
	r[0], r[1] = unix.AF_INET, unix.IPPROTO_TCP
	if local.Addr().Is6() {
		r[0] = unix.AF_INET6
	}
	ne.PutUint32(r[4:], allStates)
	id := r[8:]
	binary.BigEndian.PutUint16(id[0:], local.Port())
	binary.BigEndian.PutUint16(id[2:], remote.Port())
	copy(id[4:20], addrBytes(local.Addr()))
	copy(id[20:36], addrBytes(remote.Addr()))
	ne.PutUint32(id[40:], noCookie)
	ne.PutUint32(id[44:], noCookie)
	return b
}

func addrBytes(a netip.Addr) []byte {
	if a.Is4() {
		b := a.As4()
		return b[:]
	}
	b := a.As16()
	return b[:]
}

// diagAnswer reads the kernel's one message: the socket, or an error
// (ENOENT: no such socket).
func diagAnswer(b []byte) (int, error) {
	ne := binary.NativeEndian
	if len(b) < nlHeader+4 {
		return Unknown, fmt.Errorf("sock_diag: a %d-byte answer", len(b))
	}
	switch ne.Uint16(b[4:]) {
	case unix.NLMSG_ERROR:
		errno := unix.Errno(-int32(ne.Uint32(b[nlHeader:])))
		if errors.Is(errno, unix.ENOENT) {
			return Unknown, fmt.Errorf("sock_diag: %w", ErrNotFound)
		}
		return Unknown, fmt.Errorf("sock_diag: %w", errno)
	case unix.SOCK_DIAG_BY_FAMILY:
		if len(b) < nlHeader+diagMsgLen {
			return Unknown, fmt.Errorf("sock_diag: a %d-byte answer", len(b))
		}
		return int(ne.Uint32(b[nlHeader+diagMsgUID:])), nil
	}
	return Unknown, fmt.Errorf("sock_diag: an answer of type %d", ne.Uint16(b[4:]))
}
