package proxy

import (
	"container/list"
	"net"
	"net/http"
	"sync"
)

// pendingConns tracks the connections that have not sent a whole request
// yet (http.StateNew: a first request's headers are still coming), and
// closes the oldest when there are more than max. A program that opens
// connections and never finishes its headers (slowloris) then holds at
// most max of them, each for at most the header timeout, while a host's
// fresh connection, which sends its request at once, always gets in.
type pendingConns struct {
	mu    sync.Mutex
	max   int
	order *list.List // of net.Conn, oldest first
	at    map[net.Conn]*list.Element
}

func newPendingConns(max int) *pendingConns {
	return &pendingConns{max: max, order: list.New(), at: map[net.Conn]*list.Element{}}
}

// track is the http.Server's ConnState hook.
func (pc *pendingConns) track(c net.Conn, state http.ConnState) {
	var evict net.Conn
	pc.mu.Lock()
	switch state {
	case http.StateNew:
		pc.at[c] = pc.order.PushBack(c)
		if pc.order.Len() > pc.max {
			evict = pc.order.Remove(pc.order.Front()).(net.Conn)
			delete(pc.at, evict)
		}
	default: // a request came, or the connection ended
		if e, ok := pc.at[c]; ok {
			pc.order.Remove(e)
			delete(pc.at, c)
		}
	}
	pc.mu.Unlock()
	if evict != nil {
		_ = evict.Close() // its goroutine's read fails, and it ends
	}
}
