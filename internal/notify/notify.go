package notify

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/gen2brain/beeep"

	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/journal"
	"github.com/mcpwatchdog/watchdog/internal/sessionbus"
	"github.com/mcpwatchdog/watchdog/internal/stream"
	"github.com/mcpwatchdog/watchdog/internal/textsafe"
)

// ErrTimeout is returned by a send that did not finish in time.
var ErrTimeout = errors.New("notify: send timed out")

const (
	defaultReminder = time.Hour
	sendTimeout     = 5 * time.Second
)

// Options configure a Notifier. Zero values take the defaults.
type Options struct {
	Send func(title, body string) error // default: beeep.Notify, bounded by 5 s
	// Show shows one notification knowing what it belongs to (its Thread,
	// Server and About), for a desktop that replaces an incident's bubble
	// in place and offers buttons. It gets the text as shown (escaped).
	// Zero: Send.
	Show     func(Message) error
	Reminder time.Duration    // while still lost; default 1h
	Now      func() time.Time // default time.Now
	Logger   *slog.Logger     // nil: discard
	// OnSent is told of each notification once it was shown, so the daemon
	// can journal it and a restart re-sends what a kill -9 cut off. Called
	// from Run's goroutine. Nil: nobody is told.
	OnSent func(Message)
	// NameHosts: several hosts are watched, so a bubble about a host's
	// session names the host in its title. False: titles name the server.
	NameHosts bool
}

// What a Message is about (Message.About), as journaled when it was shown
// (a health.EvNotified event's About).
const (
	AboutLost       = "lost"
	AboutRecovered  = "recovered"
	AboutHealFailed = "heal_failed"
	AboutAtRisk     = "at_risk"
	AboutReminder   = "reminder"
	// AboutLostUnplaced: the host's log reported a loss naming no server.
	AboutLostUnplaced = "lost_unplaced"
	// AboutAdopted: a host was routed through the proxy, or put back, or
	// the tray's Protect could not do it.
	AboutAdopted = "adopted"
	// ProtectKey is the field of the warning that says the tray's Protect
	// failed ("failed") or found nothing to change ("unchanged").
	ProtectKey = "protect"
)

// Message is one notification.
type Message struct {
	Title, Body string
	Server      string
	// Host is the host whose session the bubble is about, when its event
	// named one: with several hosts, each has its incident on a server.
	Host  string
	About string
	// Healed: a loss bubble for a loss that had already recovered when it
	// was told (it was held for a storm's summary).
	Healed bool
	// Thread is the incident the bubble belongs to: its loss, heal
	// failure, reminders and recovery share it, so a desktop that can
	// shows them as one bubble updated in place. "": a bubble of its own.
	Thread string
}

// Notifier decides and sends notifications. Consider and Restore may be
// called from any goroutine; Run sends.
type Notifier struct {
	showFn   func(Message) error
	reminder time.Duration
	now      func() time.Time
	log      *slog.Logger
	onSent   func(Message)
	wake     chan struct{} // something was queued

	mu      sync.Mutex
	st      state
	pause   time.Time // quiet until then
	pending queue     // decided, not yet shown
}

// New makes a Notifier. Nothing is sent until Run.
func New(opts Options) *Notifier {
	if opts.Send == nil {
		opts.Send = BeeepSend
	}
	if opts.Show == nil {
		send := opts.Send
		opts.Show = func(m Message) error { return send(m.Title, m.Body) }
	}
	if opts.Reminder <= 0 {
		opts.Reminder = defaultReminder
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	n := &Notifier{showFn: opts.Show, reminder: opts.Reminder, now: opts.Now, log: opts.Logger,
		onSent: opts.OnSent, wake: make(chan struct{}, 1), st: newState()}
	n.st.nameHosts = opts.NameHosts
	return n
}

// BeeepSend shows a desktop notification with beeep, giving up after 5 s:
// beeep has no context and can hang on a broken daemon. The stuck call's
// goroutine ends when beeep does.
//
// On Linux beeep goes through the session bus, and without one godbus
// would launch a dbus-daemon that outlives the watchdog: with no bus there
// is nothing to show a bubble on, so it says so instead.
func BeeepSend(title, body string) error {
	if runtime.GOOS == "linux" && !sessionbus.Available() {
		return ErrNoSessionBus
	}
	return withTimeout(context.Background(), func() error { return beeep.Notify(title, body, "dialog-information") }, sendTimeout)
}

// ErrNoSessionBus: on Linux, no session bus to show notifications on.
var ErrNoSessionBus = errors.New("notify: no D-Bus session bus to show notifications on")

// withTimeout runs f, giving up after d or when ctx ends; f's goroutine
// ends when f does.
func withTimeout(ctx context.Context, f func() error, d time.Duration) error {
	done := make(chan error, 1)
	go func() { done <- f() }()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case err := <-done:
		return err
	case <-t.C:
		return ErrTimeout
	case <-ctx.Done():
		return fmt.Errorf("notify: send abandoned at the stop: %w", ctx.Err())
	}
}

// Pause keeps quiet until until (a zero time resumes). Incidents are still
// followed, so a reminder after the pause tells what is still wrong.
func (n *Notifier) Pause(until time.Time) {
	n.mu.Lock()
	n.pause = until
	n.mu.Unlock()
}

// Paused reports whether notifications are paused now.
func (n *Notifier) Paused() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.now().Before(n.pause)
}

// Consider decides on one event and queues what is to be said.
func (n *Notifier) Consider(ev health.Event) {
	n.mu.Lock()
	now := n.now()
	msgs := n.st.observe(ev, now, n.now().Before(n.pause))
	n.mu.Unlock()
	n.enqueue(msgs)
}

// Restore rebuilds the decision state from the journal after a restart,
// saying nothing: what the records describe was notified by the previous
// run, so no at-risk, loss or heal failure is told twice, and a loss still
// open gets its "recovered" later. What that run decided and never showed
// (killed first) goes out now, folded like any storm.
func (n *Notifier) Restore(recs []journal.Record) {
	n.mu.Lock()
	n.st.masked = true // the journal holds masked ids
	var last time.Time
	for _, r := range recs {
		n.st.observe(eventOf(r), r.Time, false)
		last = r.Time
	}
	n.st.flush(last, false, true) // held was shown, or undelivered finds it
	n.st.stdioRestored()
	n.st.masked = false
	now := n.now()
	var msgs []Message
	for _, m := range undelivered(recs, n.st.nameHosts) {
		if n.st.admit(m, now) {
			msgs = append(msgs, m)
		} else {
			n.st.heldUntold(m)
		}
	}
	msgs = n.st.spent(now, msgs)
	n.mu.Unlock()
	n.enqueue(msgs)
}

func eventOf(r journal.Record) health.Event { return health.Event(r) }

// Tick sends the storm summaries and reminders that are due; Run calls it
// periodically and when a summary is due.
func (n *Notifier) Tick() {
	n.mu.Lock()
	now := n.now()
	msgs := n.st.due(now, n.reminder, now.Before(n.pause))
	n.mu.Unlock()
	n.enqueue(msgs)
}

// enqueue queues msgs for Run, and wakes it to send them or to arm its
// timer for a summary now held.
func (n *Notifier) enqueue(msgs []Message) {
	n.mu.Lock()
	for _, m := range msgs {
		n.pending.push(m)
	}
	_, holds := n.st.nextFlush()
	n.mu.Unlock()
	if len(msgs) > 0 || holds {
		n.poke()
	}
}

func (n *Notifier) poke() {
	select {
	case n.wake <- struct{}{}:
	default:
	}
}

func (n *Notifier) takePending() []Message {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.pending.take()
}

// Run sends queued notifications, storm summaries when due, and
// reminders, until ctx ends.
func (n *Notifier) Run(ctx context.Context) error {
	tick := time.NewTicker(min(n.reminder/4, time.Minute))
	defer tick.Stop()
	summary := time.NewTimer(time.Hour)
	defer summary.Stop()
	for {
		n.armSummary(summary)
		select {
		case <-ctx.Done():
			n.final()
			return nil
		case <-tick.C:
			n.Tick()
		case <-summary.C:
			n.Tick()
		case <-n.wake:
			n.showPending(ctx)
		}
	}
}

// showPending shows what is queued, until ctx ends: what it then leaves
// unshown was journaled and is sent again by the next start (Restore).
func (n *Notifier) showPending(ctx context.Context) {
	for _, m := range n.takePending() {
		if ctx.Err() != nil {
			return
		}
		n.show(ctx, m)
	}
}

// finalSend bounds the summaries shown at the stop: a stop is done within
// two seconds, whatever is queued.
const finalSend = time.Second

// final shows, at the stop, the summaries of the storms still held, so
// the end of a storm is not left untold until the next start.
func (n *Notifier) final() {
	n.mu.Lock()
	now := n.now()
	msgs := n.st.spent(now, n.st.flush(now, now.Before(n.pause), true))
	n.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), finalSend)
	defer cancel()
	for _, m := range msgs {
		if ctx.Err() != nil {
			return
		}
		n.show(ctx, m)
	}
}

// armSummary sets t to fire when the next storm summary is due (stopped
// when none is held): a storm's tail waits its window, not the reminder
// ticker.
func (n *Notifier) armSummary(t *time.Timer) {
	n.mu.Lock()
	now := n.now()
	when, ok := n.st.nextFlush()
	n.mu.Unlock()
	if !ok {
		t.Stop()
		return
	}
	t.Reset(max(when.Sub(now), 0))
}

func (n *Notifier) show(ctx context.Context, m Message) {
	out := m
	out.Title, out.Body = shown(m)
	if err := withTimeout(ctx, func() error { return n.showFn(out) }, sendTimeout); err != nil {
		n.log.Warn("notification not shown", "title", m.Title, "err", err)
		return
	}
	if n.onSent != nil {
		n.onSent(m)
	}
}

// shown is what a notification shows of m: titles and bodies quote server
// names, log excerpts and what servers said, so control and bidi
// characters are escaped (textsafe.Escape). A body keeps its own line
// breaks (a summary lists one detail a line).
func shown(m Message) (title, body string) {
	lines := strings.Split(m.Body, "\n")
	for i, l := range lines {
		lines[i] = textsafe.Escape(l)
	}
	return textsafe.Escape(m.Title), strings.Join(lines, "\n")
}

// Name names the notifier as a face of the daemon's stream.
func (n *Notifier) Name() string { return "notifications" }

// Take considers every journaled event (stream.Journaled): a bubble only
// for what the journal holds.
func (n *Notifier) Take(p stream.Publication) {
	if j, ok := p.(stream.Journaled); ok {
		n.Consider(j.Ev)
	}
}
