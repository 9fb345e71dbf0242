package notify

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/journal"
)

var t0 = time.Date(2026, 11, 30, 7, 0, 0, 0, time.UTC)

// step is one thing that happens at an offset from t0: an event, a pause,
// or a reminder check (tick).
type step struct {
	at    time.Duration
	ev    *health.Event
	pause time.Duration // pause for this long from at
	tick  bool
}

func lost(server string) *health.Event {
	return &health.Event{Kind: health.EvSessionLost, Server: server, Session: "abcdefgh12345678",
		Detail: "session on " + server + " lost: 404", Facts: health.Loss{Incident: true}}
}

func recovered(server string, ms int64) *health.Event {
	return &health.Event{Kind: health.EvRecovered, Server: server, Detail: server + " recovered",
		Facts: health.Recovery{Took: time.Duration(ms) * time.Millisecond, Strategy: "reconnect"}}
}

// ev is an event of kind with the typed fields of typed.
func ev(kind health.EventKind, server, detail string, typed health.Facts) *health.Event {
	return &health.Event{Kind: kind, Server: server, Session: "s1", Detail: detail, Facts: typed}
}

func TestDecisions(t *testing.T) {
	t.Parallel()
	atRisk := func() *health.Event {
		return ev(health.EvSessionAtRisk, "mem", "idle", health.Risk{ExpiresIn: 1800 * time.Second})
	}
	tests := []struct {
		name  string
		steps []step
		want  []string // titles, in order
	}{
		{"loss then recovery", []step{{ev: lost("mem")}, {at: 1200 * time.Millisecond, ev: recovered("mem", 1200)}},
			[]string{"mem: session lost — the watchdog is healing it", "mem recovered in 1.2s"}},
		{"one notification per incident", []step{{ev: lost("mem")}, {at: time.Second, ev: lost("mem")},
			{at: 2 * time.Second, ev: ev(health.EvHealStarted, "mem", "", health.Attempt{Strategy: "restart_host"})},
			{at: 3 * time.Second, ev: lost("mem")}},
			[]string{"mem: session lost — the watchdog is healing it"}},
		{"another client's loss is not an incident", []step{{ev: ev(health.EvSessionLost, "mem", "gone", health.Loss{Client: "x"})}}, nil},
		{"heal failed once per action", []step{{ev: lost("mem")},
			{at: time.Second, ev: ev(health.EvHealFailed, "mem", "restart the host yourself", nil)},
			{at: 2 * time.Second, ev: ev(health.EvHealFailed, "mem", "restart the host yourself", nil)}},
			[]string{"mem: session lost — the watchdog is healing it", "mem: healing failed"}},
		{"at risk once per session, past its window too", []step{{ev: atRisk()}, {at: 10 * time.Minute, ev: atRisk()},
			{at: 31 * time.Minute, ev: atRisk()}},
			[]string{"mem: session at risk"}},
		{"reminder while lost", []step{{ev: lost("mem")}, {at: 30 * time.Minute, tick: true},
			{at: 61 * time.Minute, tick: true}, {at: 62 * time.Minute, tick: true}, {at: 122 * time.Minute, tick: true}},
			[]string{"mem: session lost — the watchdog is healing it", "mem: session still lost", "mem: session still lost"}},
		{"no reminder after recovery", []step{{ev: lost("mem")}, {at: time.Minute, ev: recovered("mem", 60000)},
			{at: 2 * time.Hour, tick: true}},
			[]string{"mem: session lost — the watchdog is healing it", "mem recovered in 1m0s"}},
		{"paused loss, paused recovery: silence", []step{{pause: time.Hour}, {ev: lost("mem")},
			{at: time.Minute, ev: recovered("mem", 60000)}}, nil},
		{"paused loss, reminded after the pause, then recovery", []step{{pause: time.Hour}, {ev: lost("mem")},
			{at: 30 * time.Minute, tick: true}, {at: 61 * time.Minute, tick: true}, {at: 70 * time.Minute, ev: recovered("mem", 4200000)}},
			[]string{"mem: session still lost", "mem recovered in 1h10m"}},
		{"pause ended", []step{{pause: time.Minute}, {at: 2 * time.Minute, ev: lost("mem")}},
			[]string{"mem: session lost — the watchdog is healing it"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := run(t, tc.steps, nil)
			if !slices.Equal(got, tc.want) {
				t.Errorf("titles:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

// run drives a Notifier with a fake clock and returns the queued titles.
func run(t *testing.T, steps []step, restore []journal.Record) []string {
	t.Helper()
	var titles []string
	for _, m := range runMessages(t, steps, restore) {
		titles = append(titles, m.Title)
	}
	return titles
}

// runMessages is run with the whole messages.
func runMessages(t *testing.T, steps []step, restore []journal.Record) []Message {
	t.Helper()
	now := t0 // the restart, at the first step
	if len(steps) > 0 {
		now = t0.Add(steps[0].at)
	}
	n := New(Options{Now: func() time.Time { return now }, Send: func(string, string) error { return nil }})
	n.Restore(restore)
	var got []Message
	sendNow := func() { got = append(got, n.takePending()...) } // a sender that keeps up
	for _, s := range steps {
		sendNow()
		now = t0.Add(s.at)
		switch {
		case s.pause > 0:
			n.Pause(now.Add(s.pause))
		case s.tick:
			n.Tick()
		default:
			e := *s.ev
			e.Time = now
			n.Consider(e)
		}
	}
	sendNow()
	return got
}

func TestRestoreAfterRestart(t *testing.T) {
	t.Parallel()
	open := []journal.Record{
		{Time: t0.Add(-time.Minute), Kind: health.EvSessionLost, Server: "mem", Detail: "lost",
			Facts: health.Loss{Incident: true}},
		{Time: t0.Add(-50 * time.Second), Kind: health.EvHealStarted, Server: "mem", Facts: health.Attempt{Strategy: "trigger"}},
	}
	closed := append(slices.Clone(open), journal.Record{Time: t0.Add(-40 * time.Second), Kind: health.EvRecovered,
		Server: "mem", Facts: health.Recovery{Took: 20000 * time.Millisecond}})
	tests := []struct {
		name    string
		records []journal.Record
		steps   []step
		want    []string
	}{
		{"open incident: the loss is not re-notified, the recovery is",
			open, []step{{ev: lost("mem")}, {at: time.Second, ev: recovered("mem", 61000)}},
			[]string{"mem recovered in 1m1s"}},
		{"closed incident: a new loss is news", closed, []step{{ev: lost("mem")}},
			[]string{"mem: session lost — the watchdog is healing it"}},
		{"reminder counts from the journaled loss", open, []step{{at: 59 * time.Minute, tick: true}},
			[]string{"mem: session still lost"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := run(t, tc.steps, tc.records); !slices.Equal(got, tc.want) {
				t.Errorf("titles:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestRunSendsOffTheCallerWithTimeout(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var sent []string
	n := New(Options{Send: func(title, _ string) error {
		mu.Lock()
		sent = append(sent, title)
		mu.Unlock()
		return errors.New("no daemon") // logged, not fatal
	}})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error)
	go func() { done <- n.Run(ctx) }()
	n.Consider(*lost("mem"))
	n.Consider(*recovered("mem", 5))
	deadline := time.Now().Add(30 * time.Second)
	for {
		mu.Lock()
		got := slices.Clone(sent)
		mu.Unlock()
		if len(got) == 2 {
			if got[1] != "mem recovered in 5ms" {
				t.Errorf("second title %q", got[1])
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("sent %q, want 2 notifications", got)
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run: %v", err)
	}
}

func TestWithTimeout(t *testing.T) {
	t.Parallel()
	block := make(chan struct{})
	defer close(block)
	err := withTimeout(t.Context(), func() error { <-block; return nil }, 10*time.Millisecond)
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("err = %v, want ErrTimeout", err)
	}
	stopped, cancel := context.WithCancel(t.Context())
	cancel()
	if err := withTimeout(stopped, func() error { <-block; return nil }, time.Hour); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v at the stop, want context.Canceled", err)
	}
	if err := withTimeout(t.Context(), func() error { return nil }, time.Minute); err != nil {
		t.Fatalf("err = %v", err)
	}
}

func TestPaused(t *testing.T) {
	t.Parallel()
	now := t0
	n := New(Options{Now: func() time.Time { return now }})
	n.Pause(t0.Add(time.Hour))
	if !n.Paused() {
		t.Fatal("not paused")
	}
	now = t0.Add(time.Hour)
	if n.Paused() {
		t.Fatal("still paused at the end")
	}
}
