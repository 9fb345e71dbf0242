package proc

import (
	"context"
	"fmt"

	"github.com/shirou/gopsutil/v4/net"
)

// listenState is how the kernel tables (and gopsutil) name a listening socket.
const listenState = "LISTEN"

// listensOn reports whether pid has a TCP socket listening on port. It reads
// only that process's descriptors.
func listensOn(ctx context.Context, pid int32, port int) bool {
	conns, err := net.ConnectionsPidWithoutUidsWithContext(ctx, "tcp", pid)
	if err != nil {
		return false
	}
	for _, c := range conns {
		if c.Status == listenState && int(c.Laddr.Port) == port {
			return true
		}
	}
	return false
}

// portOwner finds the process listening on port. This maps every socket of
// every process, the costly part of a scan, so Find calls it only after
// mayListen said someone listens and no name match settled the question.
func portOwner(ctx context.Context, port int, self int32) (Host, bool, error) {
	conns, err := net.ConnectionsWithoutUidsWithContext(ctx, "tcp")
	if err != nil {
		return Host{}, false, fmt.Errorf("proc: list TCP sockets: %w", err)
	}
	var owners []Host
	for _, c := range conns {
		// Pid 0: the owner belongs to a user whose descriptors we cannot read.
		if c.Status != listenState || int(c.Laddr.Port) != port || c.Pid <= 0 || c.Pid == self {
			continue
		}
		if h, ok := hostOf(ctx, c.Pid); ok {
			owners = append(owners, h)
		}
	}
	// Forked workers can share one listening socket: the oldest is the parent.
	return best(owners)
}
