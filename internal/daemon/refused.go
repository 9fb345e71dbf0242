package daemon

import (
	"fmt"
	"os"
	"strconv"
	"sync"

	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/peer"
)

// refusals remembers which listener refused which uid: another user's
// program that keeps trying is journaled once, not once per connection.
type refusals struct {
	mu   sync.Mutex
	seen map[string]bool // listener + uid
}

// first marks (what, uid) and reports whether it is new.
func (r *refusals) first(what string, uid int) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.seen == nil {
		r.seen = map[string]bool{}
	}
	k := what + "\x00" + strconv.Itoa(uid)
	if r.seen[k] {
		return false
	}
	r.seen[k] = true
	return true
}

func (r *refusals) forget(what string, uid int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.seen, what+"\x00"+strconv.Itoa(uid))
}

// peerRefused journals a warning the first time a listener (what) closed
// a connection of uid unread. It runs on the listener's accept goroutine,
// so it never waits for the loop: when the queue is full the warning is
// logged only, and the next refusal tries again.
func (d *daemon) peerRefused(server, what string, uid int) {
	if !d.listen.refused.first(what, uid) {
		return
	}
	detail := refusedDetail(what, uid)
	d.log.Warn("refused a connection of another user", "listener", what, "uid", uid)
	select {
	case d.in.items <- signalIn{o: health.Warning{Server: server, Detail: detail}}:
	default:
		d.listen.refused.forget(what, uid)
	}
}

func refusedDetail(what string, uid int) string {
	who := "uid " + strconv.Itoa(uid)
	if uid == peer.Unknown {
		who = "a user the kernel did not name"
	}
	return fmt.Sprintf("%s refused a connection of %s: it serves only uid %d, the user the watchdog runs as, "+
		"so another user's program on this machine tried to reach it", what, who, os.Geteuid())
}

// Refused is the control socket's report of another user's connection.
func (h controlHandler) Refused(uid int) { h.d.peerRefused("", "the control socket", uid) }
