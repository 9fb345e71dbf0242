package soak

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/mcpwatchdog/watchdog/internal/journal"
)

// journalTail reads the journal as the daemon appends to it and stamps each
// record with the real time it was read: detection latency is measured on
// the soak's clock, which no clock jump of the daemon's touches.
type journalTail struct {
	path string

	mu      sync.Mutex
	offset  int64
	partial []byte
	seen    []Seen
	bad     []string // lines that did not parse
}

func (j *journalTail) poll() {
	f, err := os.Open(j.path)
	if err != nil {
		return
	}
	defer f.Close()
	j.mu.Lock()
	defer j.mu.Unlock()
	if st, err := f.Stat(); err == nil && st.Size() < j.offset {
		j.bad = append(j.bad, fmt.Sprintf("the journal shrank from %d to %d bytes", j.offset, st.Size()))
		j.offset = 0
	}
	if _, err := f.Seek(j.offset, 0); err != nil {
		return
	}
	now := time.Now()
	r := bufio.NewReader(f)
	for {
		line, err := r.ReadBytes('\n')
		j.offset += int64(len(line))
		if err != nil {
			j.partial = append(j.partial, line...)
			return
		}
		line = append(j.partial, line...)
		j.partial = nil
		rec, err := journal.Decode(bytes.TrimSpace(line))
		if err != nil {
			j.bad = append(j.bad, string(line))
			continue
		}
		j.seen = append(j.seen, Seen{At: now, Rec: rec})
	}
}

func (j *journalTail) run(stop <-chan struct{}) {
	t := time.NewTicker(25 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-stop:
			j.poll()
			return
		case <-t.C:
			j.poll()
		}
	}
}

func (j *journalTail) snapshot() ([]Seen, []string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	return append([]Seen(nil), j.seen...), append([]string(nil), j.bad...)
}

// openIncident reports whether a server has a session_lost incident with no
// recovered after it.
func (j *journalTail) openIncident() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	open := map[string]bool{}
	for _, s := range j.seen {
		switch {
		case s.Rec.Kind == "session_lost" && incident(s.Rec):
			open[s.Rec.Server] = true
		case s.Rec.Kind == "recovered":
			delete(open, s.Rec.Server)
		}
	}
	return len(open) > 0
}

// checkWhole reads the whole journal file: after a kill -9 every line must
// parse and the last must be complete.
func checkWhole(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if len(b) > 0 && b[len(b)-1] != '\n' {
		return fmt.Errorf("the journal ends in a partial line: %q", tail(b, 200))
	}
	for i, line := range bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n")) {
		if _, err := journal.Decode(line); err != nil {
			return fmt.Errorf("journal line %d does not parse: %q: %w", i+1, line, err)
		}
	}
	return nil
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

// notes owns org.freedesktop.Notifications on the soak's own session bus,
// so every notification the daemon sends through beeep lands here.
type notes struct {
	mu  sync.Mutex
	got []Note
}

func (n *notes) Notify(app string, replaces uint32, icon, summary, body string, actions []string,
	hints map[string]dbus.Variant, timeout int32) (uint32, *dbus.Error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.got = append(n.got, Note{At: time.Now(), Title: summary, Body: body})
	return uint32(len(n.got)), nil
}

func (n *notes) GetCapabilities() ([]string, *dbus.Error) { return []string{"body"}, nil }

func (n *notes) GetServerInformation() (string, string, string, string, *dbus.Error) {
	return "soak-listener", "mcpwatchdog", "1", "1.2", nil
}

func (n *notes) CloseNotification(id uint32) *dbus.Error { return nil }

func (n *notes) snapshot() []Note {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]Note(nil), n.got...)
}

func listenNotes(conn *dbus.Conn) (*notes, error) {
	n := &notes{}
	if err := conn.Export(n, "/org/freedesktop/Notifications", "org.freedesktop.Notifications"); err != nil {
		return nil, err
	}
	reply, err := conn.RequestName("org.freedesktop.Notifications", dbus.NameFlagDoNotQueue)
	if err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		return nil, fmt.Errorf("own org.freedesktop.Notifications: reply %v, %v", reply, err)
	}
	return n, nil
}
