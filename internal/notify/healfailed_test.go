package notify

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/health"
)

func healFailed(server, detail string) *health.Event {
	return &health.Event{Kind: health.EvHealFailed, Server: server, Detail: detail, Facts: health.Attempt{Strategy: "restart_host"}}
}

func TestHealFailedOncePerIncident(t *testing.T) {
	t.Parallel()
	const failedTitle = "mem: healing failed"
	tests := []struct {
		name  string
		steps []step
		want  []string
	}{
		{"three different failures in one incident: one bubble", []step{{ev: lost("mem")},
			{at: time.Minute, ev: healFailed("mem", "the client did not reconnect")},
			{at: 2 * time.Minute, ev: healFailed("mem", "restart limit reached: restart the host yourself")},
			{at: 3 * time.Minute, ev: healFailed("mem", "the host did not come back: start it yourself")}},
			[]string{lostTitle("mem"), failedTitle}},
		{"a new incident may fail again", []step{{ev: lost("mem")}, {at: time.Minute, ev: healFailed("mem", "a")},
			{at: 2 * time.Minute, ev: recovered("mem", 120000)}, {at: 3 * time.Minute, ev: lost("mem")},
			{at: 4 * time.Minute, ev: healFailed("mem", "a")}},
			[]string{lostTitle("mem"), failedTitle, "mem recovered in 2m0s", lostTitle("mem"), failedTitle}},
		{"without an incident: once an hour per server", []step{{ev: healFailed("mem", "nothing to heal")},
			{at: 30 * time.Minute, ev: healFailed("mem", "still nothing")},
			{at: 31 * time.Minute, ev: healFailed("docs", "nothing to heal")},
			{at: 61 * time.Minute, ev: healFailed("mem", "nothing to heal")}},
			[]string{failedTitle, "docs: healing failed", failedTitle}},
		{"paused failure: not shown later", []step{{ev: lost("mem")}, {at: time.Second, pause: time.Minute},
			{at: 2 * time.Second, ev: healFailed("mem", "a")}, {at: 2 * time.Minute, ev: healFailed("mem", "b")}},
			[]string{lostTitle("mem")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := run(t, tc.steps, nil); !slices.Equal(got, tc.want) {
				t.Errorf("titles:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

// The failures not shown are not hidden: the hourly reminder carries the
// latest advice.
func TestReminderCarriesTheLatestHealFailure(t *testing.T) {
	t.Parallel()
	const latest = "the host did not come back: start it yourself"
	s := newState()
	for i, ev := range []*health.Event{lost("mem"), healFailed("mem", "the client did not reconnect"),
		healFailed("mem", "restart limit reached"), healFailed("mem", latest)} {
		s.observe(*ev, t0.Add(time.Duration(i)*time.Minute), false)
	}
	got := s.reminders(t0.Add(2*time.Hour), time.Hour, false)
	if len(got) != 1 || got[0].Title != "mem: session still lost" {
		t.Fatalf("reminders %+v, want one for mem", got)
	}
	if !strings.Contains(got[0].Body, latest) {
		t.Errorf("reminder body %q does not carry the latest advice %q", got[0].Body, latest)
	}
}
