package notify

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

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
		n.Observe(*lost(s))
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
