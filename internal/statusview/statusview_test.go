package statusview_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpwatchdog/watchdog/internal/health"
	"github.com/mcpwatchdog/watchdog/internal/statusview"
)

// TestStatusSaysTheEra: the text status names a server's protocol era and
// says when its proxy bridges the eras, and which host sessions ride on it.
func TestStatusSaysTheEra(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	statusview.Write(&b, health.Status{Servers: []health.ServerStatus{{Name: "mem", Mode: health.Stateless, Era: health.EraModernOnly,
		State: health.Healthy, ProxyURL: "http://127.0.0.1:1/s/mcp", ProxyBridges: true,
		ProxySessions: []health.ProxySession{{ID: "ab12…9f3e", Client: "c", Bridged: true}}}}})
	for _, want := range []string{"healthy, stateless, modern-only, idle timeout", "bridges the eras", "bridged (the server keeps no session)"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("status text %q does not say %q", b.String(), want)
		}
	}
}

// TestStatusSaysSessionsOmitted: the text status says how many sessions
// the daemon left out of its list.
func TestStatusSaysSessionsOmitted(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	statusview.Write(&b, health.Status{Servers: []health.ServerStatus{{Name: "mem", SessionsOmitted: 7,
		Sessions: []health.SessionStatus{{ID: "ab12…9f3e", Client: "c", State: health.Healthy}}}}})
	if want := fmt.Sprintf("and 7 more session(s) not listed (at most %d", health.MaxStatusSessions); !strings.Contains(b.String(), want) {
		t.Errorf("status text %q does not say %q", b.String(), want)
	}
}

// TestWriteEscapesOutsideText: names and ids come from outside (a client
// picks its own name), so no escape sequence or line break of theirs
// reaches the terminal, and a long client name is cut with a mark.
func TestWriteEscapesOutsideText(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	statusview.Write(&b, health.Status{Host: health.HostStatus{Name: "h\x1b[2J"}, Servers: []health.ServerStatus{{Name: "mem\nfake line",
		Sessions: []health.SessionStatus{{ID: "ab12…9f3e", Client: "a-client-name-much-longer-than-twenty\x1b]0;x\a", State: health.Healthy}}}}})
	out := b.String()
	if strings.ContainsAny(out, "\x1b\a") || strings.Contains(out, "\nfake line") {
		t.Errorf("status text lets outside control text through:\n%q", out)
	}
	if !strings.Contains(out, "a-client-name-much-…") {
		t.Errorf("status text %q does not cut the long client name to 20 characters", out)
	}
}
