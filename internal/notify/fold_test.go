package notify

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestSummaryTitlesReadBack(t *testing.T) {
	t.Parallel()
	tests := []struct {
		title   string
		about   string
		servers []string
	}{
		{SummaryTitle(AboutLost, []string{"a", "b", "c"}), AboutLost, []string{"a", "b", "c"}},
		{SummaryTitle(AboutRecovered, []string{"a", "b"}), AboutRecovered, []string{"a", "b"}},
		{SummaryTitle(AboutHealFailed, []string{"x-1", "y.2"}), AboutHealFailed, []string{"x-1", "y.2"}},
		{SummaryTitle(AboutLost, []string{"a", "b", "a"}), AboutLost, []string{"a", "a", "b"}},
		{"MCP watchdog: 3 more sessions lost: a (2), b", AboutLost, []string{"a", "a", "b"}},
		{"MCP watchdog: 3 more sessions lost: a (3), b", "", nil}, // the counts disagree
		{"MCP watchdog: 2 more sessions lost: a (999999999999)", "", nil},
		{"MCP watchdog: 2 more servers lost their sessions: a, b", AboutLost, []string{"a", "b"}}, // written before counts
		{"MCP watchdog: 999999999 more sessions lost: a (999999999)", "", nil},                    // no such storm
		{"MCP watchdog: 3 more sessions lost: a, b, c", AboutLost, []string{"a", "b", "c"}},
		{"MCP watchdog: 2 more sessions recovered: a", "", nil},       // the count disagrees
		{"MCP watchdog: many more sessions recovered: a, b", "", nil}, // no count
		{"MCP watchdog: 2 more servers vanished: a, b", "", nil},      // no such kind
		{"mem: session lost — the watchdog is healing it", "", nil},   // a server's own bubble
		{"mem recovered in 1.2s", "", nil},                            // likewise
		{"mem: healing failed", "", nil},                              // likewise
	}
	for _, tc := range tests {
		about, servers, ok := ParseSummary(tc.title)
		if about != tc.about || !slices.Equal(servers, tc.servers) || ok != (tc.about != "") {
			t.Errorf("ParseSummary(%q) = %q, %q, %v; want %q, %q", tc.title, about, servers, ok, tc.about, tc.servers)
		}
	}
}

// A summary hides no advice the user needs: its body keeps the distinct
// details, and says how many more there were.
func TestSummaryBodyKeepsDistinctDetails(t *testing.T) {
	t.Parallel()
	msg := func(server, body string) Message {
		return Message{Title: server + ": healing failed", Body: body, Server: server, About: AboutHealFailed}
	}
	k := foldKinds()[1]
	tests := []struct {
		name string
		msgs []Message
		want string
	}{
		{"one advice for all", []Message{msg("a", "restart the host"), msg("b", "restart the host"), msg("c", "restart the host")},
			"restart the host"},
		{"two advices", []Message{msg("a", "restart the host"), msg("b", "log in again"), msg("c", "restart the host")},
			"restart the host\nlog in again"},
		{"more than fit", []Message{msg("a", "1"), msg("b", "2"), msg("c", "3"), msg("d", "4"), msg("e", "5")},
			"1\n2\n3\n…and 2 more."},
	}
	for _, tc := range tests {
		got := summarize(k, tc.msgs)
		if len(got) != 1 || got[0].Body != tc.want || got[0].About != AboutHealFailedSummary || got[0].Server != "" {
			t.Errorf("%s: %+v, want one summary with body %q", tc.name, got, tc.want)
		}
		if len(got) == 1 && !strings.HasPrefix(got[0].Title, "MCP watchdog: ") {
			t.Errorf("%s: title %q", tc.name, got[0].Title)
		}
	}
}

func TestSummaryNamesTheLossesThatHaveSinceRecovered(t *testing.T) {
	t.Parallel()
	lostMsg := Message{Title: lostTitle("a"), Body: "ping answered 404", Server: "a", About: AboutLost}
	healed := healedLoss(Message{Title: lostTitle("b"), Body: "ping answered 404", Server: "b", About: AboutLost}, 1500*time.Millisecond)
	if want := "ping answered 404 Recovered in 1.5s."; healed.Body != want {
		t.Errorf("healed body = %q, want %q", healed.Body, want)
	}
	got := summarize(foldKinds()[0], []Message{lostMsg, healed})
	want := Message{Title: "MCP watchdog: 2 more sessions lost: a, b",
		Body: "ping answered 404\nSince recovered: b.", About: AboutLostSummary}
	if len(got) != 1 || got[0] != want {
		t.Errorf("summary = %+v, want %+v", got, want)
	}
}
