package notify

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/health"
)

// Issue 15, measured: a burst of loss lines queued about 1.5M
// notifications, and one was shown every ~45 ms for hours. However many
// incidents come, an hour shows at most its budget, then summaries only:
// one per kind per storm window.
func TestFloodOfIncidentsStaysWithinTheBudget(t *testing.T) {
	t.Parallel()
	s := newState()
	var got []Message
	// A loss and a recovery on one of 50 servers every 100 ms for an hour:
	// 36,000 incidents.
	for i := range 36000 {
		at := t0.Add(time.Duration(i) * 100 * time.Millisecond)
		server := fmt.Sprintf("s%d", i%50)
		got = append(got, s.observe(*lost(server), at, false)...)
		got = append(got, s.observe(*recovered(server, 50), at.Add(50*time.Millisecond), false)...)
		got = append(got, s.due(at.Add(60*time.Millisecond), time.Hour, false)...)
	}
	bound := hourBudget + 3*int(time.Hour/stormWindow) + 1 // the budget, a summary per kind a window, the one in flight
	if len(got) > bound {
		t.Fatalf("%d bubbles in an hour of flood, want at most %d", len(got), bound)
	}
	told := 0
	for _, m := range got {
		if _, servers, ok := ParseSummary(m.Title); ok {
			told += len(servers)
		} else if m.About == AboutLost {
			told++
		}
	}
	if told < 35800 { // every incident is still counted, but those of the last window
		t.Fatalf("the bubbles tell %d of 36000 losses", told)
	}
}

// Once the budget is spent, at-risk warnings are left to the journal.
func TestAtRiskIsDroppedOverBudget(t *testing.T) {
	t.Parallel()
	s := newState()
	for i := range hourBudget {
		s.budget.spend(t0.Add(time.Duration(i) * time.Second))
	}
	at := health.Event{Kind: health.EvSessionAtRisk, Server: "mem", Session: "abcdefgh12345678",
		Facts: health.Risk{ExpiresIn: time.Minute}, Detail: "idle"}
	if got := s.observe(at, t0.Add(30*time.Minute), false); len(got) != 0 {
		t.Fatalf("over budget: %+v, want no at-risk bubble", got)
	}
	at.Session = "ijklmnop12345678"
	if got := s.observe(at, t0.Add(61*time.Minute), false); len(got) != 1 {
		t.Fatalf("an hour later: %+v, want the warning", got)
	}
}

// A sender that falls behind: the queue stays bounded, a reminder or an
// at-risk warning is replaced by its newer self, and incidents are merged
// into one summary per kind that still names each of them.
func TestQueueIsBoundedAndTellsEveryIncident(t *testing.T) {
	t.Parallel()
	var q queue
	for i := range 1000 {
		q.push(Message{Title: lostTitle("mem"), Server: "mem", About: AboutLost})
		q.push(Message{Title: "mem recovered", Server: "mem", About: AboutRecovered})
		q.push(Message{Title: fmt.Sprintf("mem: session still lost %d", i), Server: "mem", About: AboutReminder})
	}
	q.push(Message{Title: lostTitle("x"), Server: "x", About: AboutLost})
	var titles []string
	for _, m := range q.take() {
		titles = append(titles, m.Title)
	}
	want := []string{"MCP watchdog: 1000 more sessions recovered: mem (1000)", "mem: session still lost 999",
		"MCP watchdog: 1001 more sessions lost: mem (1000), x"}
	if strings.Join(titles, "|") != strings.Join(want, "|") {
		t.Fatalf("queue %q, want %q", titles, want)
	}
	if len(q.take()) != 0 {
		t.Fatal("take left messages behind")
	}
}

// The sender stops with the daemon: a notification service that never
// answers does not hold the stop for the send timeout, and the storm held
// for its summary is told at the stop.
func TestRunStopsWithAHungSender(t *testing.T) {
	t.Parallel()
	sent := make(chan string, 16)
	hang := make(chan struct{})
	defer close(hang)
	n := New(Options{Reminder: time.Hour, Send: func(title, _ string) error {
		sent <- title
		if strings.HasPrefix(title, "s1") {
			<-hang
		}
		return nil
	}})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error)
	go func() { done <- n.Run(ctx) }()
	for _, s := range []string{"s1", "s2", "s3", "s4"} {
		n.Consider(*lost(s))
	}
	if got := <-sent; got != lostTitle("s1") {
		t.Fatalf("first bubble %q", got)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(sendTimeout - time.Second):
		t.Fatal("Run waited for the hung sender after the stop")
	}
	close(sent)
	var rest []string
	for title := range sent {
		rest = append(rest, title)
	}
	if want := "MCP watchdog: 2 more sessions lost: s3, s4"; len(rest) != 1 || rest[0] != want {
		t.Fatalf("at the stop: %q, want only the summary %q (s2 queued behind the hung send is left to the next start)", rest, want)
	}
}
