package judge

import (
	"strings"
	"testing"

	"github.com/mcpwatchdog/watchdog/internal/host"
	"github.com/mcpwatchdog/watchdog/internal/host/hostfile"
	"github.com/mcpwatchdog/watchdog/internal/proxyurl"
)

// Long: a table of cases, one per protection and what decides it.
func TestProtect(t *testing.T) {
	t.Parallel()
	http := func(u string) hostfile.Server {
		return hostfile.Server{Name: "mem", Transport: host.StreamableHTTP, URL: u}
	}
	const (
		up     = "http://127.0.0.1:14242/mcp"
		secret = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
		old    = "ZYXWVUTSRQPONMLKJIHGFEDCBA"
	)
	current := proxyurl.For("127.0.0.1:14301", secret)
	served := map[string]Proxy{"127.0.0.1:14301": {Upstream: up, Served: true, URL: current}}
	proxied := Facts{Proxies: served, Daemon: true}
	release := "watchdog hosts release Cursor --server mem"
	tests := []struct {
		name string
		p    host.Profile
		s    hostfile.Server
		f    Facts
		want Protection
		fix  string
	}{
		{"stuck host", host.Cursor(), http(up), Facts{}, Exposed, "watchdog hosts adopt Cursor --server mem"},
		{"stuck host with a space in its name", host.GeminiCLI(), http(up), Facts{}, Exposed, "watchdog hosts adopt 'Gemini CLI' --server mem"},
		{"patchable host", host.DSH(), http(up), Facts{}, Exposed, "watchdog hosts adopt DSH --server mem (or: watchdog patch apply)"},
		{"patched", host.DSH(), http(up), Facts{Patched: true}, Patched, ""},
		{"proxied: served now, the current secret", host.Cursor(), http(current), proxied, Proxied, ""},
		{"proxied, spelt localhost", host.Cursor(), http(proxyurl.For("localhost:14301", secret)), proxied, Proxied, ""},
		{"no watchdog running", host.Cursor(), http(current), Facts{Proxies: served}, ProxyDown,
			"watchdog run (and `watchdog autostart enable` to keep it running), or: " + release},
		{"its port held by another program", host.Cursor(), http(current),
			Facts{Daemon: true, Proxies: map[string]Proxy{"127.0.0.1:14301": {Upstream: up, Problem: "address already in use"}}}, ProxyDown,
			"see `watchdog status`; or: " + release},
		{"an old secret", host.Cursor(), http(proxyurl.For("127.0.0.1:14301", old)), proxied, Stale, "watchdog hosts adopt Cursor --server mem"},
		{"the proxy's port without a secret", host.Cursor(), http("http://127.0.0.1:14301/mcp"), proxied, Stale, "watchdog hosts adopt Cursor --server mem"},
		{"a proxy taken out of the config, known to adopt", host.Cursor(), http(proxyurl.For("127.0.0.1:14302", secret)),
			Facts{Daemon: true, Written: map[string]string{"127.0.0.1:14302": up}}, UnknownProxy, "watchdog hosts adopt Cursor --server mem"},
		{"a proxy nobody knows", host.Cursor(), http(proxyurl.For("127.0.0.1:14303", secret)), proxied, UnknownProxy,
			"put the server's own URL back in the host's file"},
		{"proxied, and the server now signs in with OAuth", host.Cursor(), http(current),
			Facts{Proxies: served, Daemon: true, OAuth: map[string]bool{up: true}}, OAuth, release},
		{"signs in with OAuth (probed)", host.Cursor(), http(up), Facts{OAuth: map[string]bool{up: true}}, OAuth, ""},
		{"signs in with OAuth (its entry's oauth block)", host.Cursor(), hostfile.Server{Name: "mem", Transport: host.StreamableHTTP, URL: up, OAuth: true},
			Facts{}, OAuth, ""},
		{"a static Authorization header, on an OAuth server", host.Cursor(), hostfile.Server{Name: "mem", Transport: host.StreamableHTTP, URL: up, StaticAuth: true},
			Facts{OAuth: map[string]bool{up: true}}, Exposed, "watchdog hosts adopt Cursor --server mem"},
		{"OAuth, and the host heals itself", host.ClaudeCode(), http(up), Facts{OAuth: map[string]bool{up: true}}, SelfHealing, ""},
		{"not an http URL", host.Cursor(), http("ws://127.0.0.1:9/mcp"), Facts{}, Exposed, ""},
		{"stateless", host.Cursor(), http(up), Facts{Stateless: map[string]bool{up: true}}, Stateless, ""},
		{"modern-only, a legacy host: needs the bridge", host.Cursor(), http(up), Facts{ModernOnly: map[string]bool{up: true}}, Exposed,
			"watchdog hosts adopt Cursor --server mem"},
		{"modern-only, a host that speaks 2026-07-28", host.ClaudeCode(), http(up), Facts{ModernOnly: map[string]bool{up: true}}, Stateless, ""},
		{"retries", host.CodexCLI(), http(up), Facts{}, SelfHealing, ""},
		{"retries after a 404, and the server answers 404", host.CodexCLI(), http(up), Facts{LostAnswer: map[string]host.Answer{up: host.NotFoundText}}, SelfHealing, ""},
		{"retries after a 404 only, and the server answers 400", host.CodexCLI(), http(up), Facts{LostAnswer: map[string]host.Answer{up: host.BadRequest}}, Exposed,
			"watchdog hosts adopt 'Codex CLI' --server mem"},
		{"retries after a 400 too, and the server answers 400", host.ClaudeCode(), http(up), Facts{LostAnswer: map[string]host.Answer{up: host.BadRequest}}, SelfHealing, ""},
		{"reinitializes", host.VSCode(), http(up), Facts{}, SelfHealing, ""},
		{"seen to heal", host.Cursor(), http(up), Facts{SeenSelfHealing: true}, SelfHealing, ""},
		{"bridged", host.ClaudeDesktop(), hostfile.Server{Name: "mem", Transport: host.Bridged, URL: up}, Facts{}, SelfHealing, ""},
		{"legacy SSE", host.Cursor(), hostfile.Server{Name: "mem", Transport: host.SSE, URL: up}, Facts{}, Exposed,
			"move the server to Streamable HTTP, then: watchdog hosts adopt Cursor --server mem"},
	}
	for _, tt := range tests {
		v := Protect(tt.p, tt.s, tt.f)
		if v.Protection != tt.want || v.Fix != tt.fix || v.Why == "" {
			t.Errorf("%s: %+v; want %s, fix %q", tt.name, v, tt.want, tt.fix)
		}
		if (tt.want == Proxied || tt.want == Stale) && v.Upstream != up {
			t.Errorf("%s: upstream %q", tt.name, v.Upstream)
		}
	}
}

// TestProtectPerAnswer: a server is self-healing for a host only where
// the host's table says it heals after that server's answer; the reason
// names the answer and what the host does.
func TestProtectPerAnswer(t *testing.T) {
	t.Parallel()
	const up = "http://127.0.0.1:14242/mcp"
	srv := hostfile.Server{Name: "mem", Transport: host.StreamableHTTP, URL: up}
	answered := func(a host.Answer) Facts { return Facts{LostAnswer: map[string]host.Answer{up: a}} }
	tests := []struct {
		name string
		p    host.Profile
		s    hostfile.Server
		f    Facts
		want Protection
		why  string
	}{
		{"Copilot CLI, a plain 404", host.CopilotCLI(), srv, answered(host.NotFoundText), SelfHealing, "sends the call again"},
		{"Copilot CLI, the 400 quirk", host.CopilotCLI(), srv, answered(host.BadRequest), Exposed, "hangs"},
		{"opencode, the 400 quirk", host.Opencode(), srv, answered(host.BadRequest), Exposed, "keeps the dead session"},
		{"opencode, answer not known yet", host.Opencode(), srv, Facts{}, SelfHealing, "but not after a 400"},
		{"Qwen Code fails the call that met the loss", host.QwenCode(), srv, answered(host.NotFoundRPC), SelfHealing, "the call that met the loss fails"},
		{"Cline, a JSON-RPC 404", host.Cline(), srv, answered(host.NotFoundRPC), Exposed, "keeps the dead session"},
		{"Zed hangs", host.Zed(), srv, Facts{}, Exposed, "hangs"},
		{"Windsurf, not known", host.Windsurf(), srv, answered(host.NotFoundText), Exposed, "nobody measured"},
		{"Goose's builtin extension", host.Goose(), hostfile.Server{Name: "developer", Transport: host.Builtin}, Facts{}, NotNeeded, "inside the host"},
	}
	for _, tt := range tests {
		v := Protect(tt.p, tt.s, tt.f)
		if v.Protection != tt.want || !strings.Contains(v.Why, tt.why) {
			t.Errorf("%s: %s (%s); want %s, saying %q", tt.name, v.Protection, v.Why, tt.want, tt.why)
		}
	}
}
