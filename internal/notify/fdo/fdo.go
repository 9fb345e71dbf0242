// Package fdo shows the watchdog's notifications through the desktop's
// org.freedesktop.Notifications service itself (Linux), so that the bubbles
// of one incident are one bubble updated in place ("lost — healing" is
// replaced by "recovered in 23 ms") and carry buttons the daemon handles.
// beeep, which the other platforms keep, can do neither.
package fdo

import (
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"

	"github.com/esiqveland/notify"
	"github.com/godbus/dbus/v5"

	wdnotify "github.com/mcpwatchdog/watchdog/internal/notify"
	"github.com/mcpwatchdog/watchdog/internal/sessionbus"
)

// The service's names (Desktop Notifications Specification 1.2).
const (
	busName   = "org.freedesktop.Notifications"
	busPath   = dbus.ObjectPath("/org/freedesktop/Notifications")
	iface     = "org.freedesktop.Notifications"
	sigAction = iface + ".ActionInvoked"
	sigClosed = iface + ".NotificationClosed"
)

// The buttons a bubble may offer, as ActionInvoked names them.
const (
	ActionHeal     = "heal"
	ActionTimeline = "timeline"
)

// ErrNoService: nobody owns org.freedesktop.Notifications on the bus.
var ErrNoService = errors.New("fdo: no notification service on the session bus")

// Invoked is a button pressed on one of our bubbles.
type Invoked struct {
	Action string // ActionHeal or ActionTimeline
	Server string // the bubble's server ("" for a summary)
}

// Options configure a Desktop.
type Options struct {
	AppName string
	Icon    string // an icon name or an absolute path
	// OnAction is told of each button pressed on a bubble this Desktop
	// showed, from its signal goroutine; it must not block.
	OnAction func(Invoked)
	Logger   *slog.Logger // nil: discard
}

// maxBubbles bounds what a Desktop remembers of the bubbles it showed.
const maxBubbles = 256

// Desktop shows notifications on one session bus connection.
type Desktop struct {
	conn    *dbus.Conn
	o       Options
	actions bool // the service shows buttons
	signals chan *dbus.Signal
	done    chan struct{}
	wg      sync.WaitGroup

	mu       sync.Mutex
	owner    string            // the service's unique name, as last looked up
	byThread map[string]uint32 // incident thread → its bubble
	bubbles  map[uint32]bubble
	order    []uint32 // ids, oldest first, for the bound
}

type bubble struct{ thread, server string }

// Connect opens the session bus and asks the notification service what it
// can do. The Desktop owns the connection; Close ends it.
func Connect(o Options) (*Desktop, error) {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	conn, err := sessionbus.Connect()
	if err != nil {
		return nil, fmt.Errorf("fdo: %w", err)
	}
	d := &Desktop{conn: conn, o: o, signals: make(chan *dbus.Signal, 16), done: make(chan struct{}),
		byThread: map[string]uint32{}, bubbles: map[uint32]bubble{}}
	if err := d.lookOwner(); err != nil {
		conn.Close()
		return nil, err
	}
	caps, err := notify.GetCapabilities(conn)
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("fdo: GetCapabilities: %w", err)
	}
	d.actions = slices.Contains(caps, "actions")
	if err := conn.AddMatchSignal(dbus.WithMatchObjectPath(busPath), dbus.WithMatchInterface(iface)); err != nil {
		conn.Close()
		return nil, fmt.Errorf("fdo: listen for the service's signals: %w", err)
	}
	conn.Signal(d.signals)
	d.wg.Add(1)
	go d.listen()
	return d, nil
}

// lookOwner learns which connection the service is: only its signals are
// believed (any client on the bus can emit one).
func (d *Desktop) lookOwner() error {
	var owner string
	err := d.conn.BusObject().Call("org.freedesktop.DBus.GetNameOwner", 0, busName).Store(&owner)
	if err != nil {
		return fmt.Errorf("%w (%w)", ErrNoService, err)
	}
	d.mu.Lock()
	d.owner = owner
	d.mu.Unlock()
	return nil
}

// Actions reports whether the service shows buttons.
func (d *Desktop) Actions() bool { return d.actions }

// Show shows m, replacing the bubble last shown for its thread (the same
// incident) when there is one.
func (d *Desktop) Show(m wdnotify.Message) error {
	d.mu.Lock()
	replaces := d.byThread[m.Thread]
	d.mu.Unlock()
	n := notify.Notification{AppName: d.o.AppName, ReplacesID: replaces, AppIcon: d.o.Icon,
		Summary: m.Title, Body: m.Body, ExpireTimeout: notify.ExpireTimeoutSetByNotificationServer}
	if d.actions {
		n.Actions = actionsFor(m)
	}
	n.SetUrgency(urgencyOf(m))
	id, err := notify.SendNotification(d.conn, n)
	if err != nil {
		return fmt.Errorf("fdo: Notify: %w", err)
	}
	d.remember(id, m)
	return nil
}

// actionsFor: Heal now on a bubble about a loss still open, Open timeline
// on every one.
func actionsFor(m wdnotify.Message) []notify.Action {
	var out []notify.Action
	switch m.About {
	case wdnotify.AboutLost, wdnotify.AboutHealFailed, wdnotify.AboutReminder:
		if m.Server != "" && !m.Healed {
			out = append(out, notify.Action{Key: ActionHeal, Label: "Heal now"})
		}
	}
	return append(out, notify.Action{Key: ActionTimeline, Label: "Open timeline"})
}

// urgencyOf: a loss the user may have to act on stays until seen; the
// rest come and go.
func urgencyOf(m wdnotify.Message) notify.Urgency {
	switch m.About {
	case wdnotify.AboutHealFailed, wdnotify.AboutReminder:
		return notify.UrgencyCritical
	}
	return notify.UrgencyNormal
}

func (d *Desktop) remember(id uint32, m wdnotify.Message) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, ok := d.bubbles[id]; !ok {
		d.order = append(d.order, id)
	}
	d.bubbles[id] = bubble{thread: m.Thread, server: m.Server}
	if m.Thread != "" {
		d.byThread[m.Thread] = id
	}
	for len(d.order) > maxBubbles {
		d.forget(d.order[0])
	}
}

// forget drops a bubble (closed, or past the bound); mu held.
func (d *Desktop) forget(id uint32) {
	b := d.bubbles[id]
	delete(d.bubbles, id)
	if d.byThread[b.thread] == id {
		delete(d.byThread, b.thread)
	}
	if i := slices.Index(d.order, id); i >= 0 {
		d.order = slices.Delete(d.order, i, i+1)
	}
}

// listen handles the service's signals until Close.
func (d *Desktop) listen() {
	defer d.wg.Done()
	for {
		select {
		case <-d.done:
			return
		case sig, ok := <-d.signals:
			if !ok {
				return
			}
			d.handle(sig)
		}
	}
}

func (d *Desktop) handle(sig *dbus.Signal) {
	if sig.Path != busPath || (sig.Name != sigClosed && sig.Name != sigAction) || len(sig.Body) < 2 {
		return // the bus's own signals (NameAcquired) come here too
	}
	if !d.fromService(sig.Sender) {
		return
	}
	id, ok := sig.Body[0].(uint32)
	if !ok {
		return
	}
	switch sig.Name {
	case sigClosed:
		d.mu.Lock()
		d.forget(id)
		d.mu.Unlock()
	case sigAction:
		key, _ := sig.Body[1].(string)
		d.mu.Lock()
		b, ours := d.bubbles[id]
		d.mu.Unlock()
		if !ours || (key != ActionHeal && key != ActionTimeline) || d.o.OnAction == nil {
			return
		}
		d.o.Logger.Info("notification button pressed", "action", key, "server", b.server)
		d.o.OnAction(Invoked{Action: key, Server: b.server})
	}
}

// fromService: sender is the notification service (looked up again once
// when it differs: the service may have restarted).
func (d *Desktop) fromService(sender string) bool {
	d.mu.Lock()
	owner := d.owner
	d.mu.Unlock()
	if sender == owner {
		return true
	}
	if d.lookOwner() != nil {
		return false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return sender == d.owner
}

// Close stops listening and closes the connection.
func (d *Desktop) Close() error {
	close(d.done)
	d.conn.RemoveSignal(d.signals)
	err := d.conn.Close()
	d.wg.Wait()
	return err
}
