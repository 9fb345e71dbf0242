package hosts

import (
	"net/url"

	"github.com/mcpwatchdog/watchdog/internal/host"
	"github.com/mcpwatchdog/watchdog/internal/hostconfig"
)

// Protection is what keeps a server's sessions from being lost for good.
type Protection string

// The protections, as `watchdog hosts` names them.
const (
	Proxied     Protection = "proxied"      // the host talks to the watchdog's proxy
	Patched     Protection = "patched"      // the host's client has the watchdog's fix
	SelfHealing Protection = "self-healing" // the host (or its bridge) opens a new session by itself
	Stateless   Protection = "stateless"    // a 2026-07-28 server: no session to lose
	Exposed     Protection = "exposed"      // a lost session stays lost
	NotNeeded   Protection = "not-needed"   // stdio: no HTTP session at all
)

// Facts are what Protect weighs besides the server's entry.
type Facts struct {
	// Proxies maps each address a watchdog proxy listens on to the URL of
	// the server it stands for.
	Proxies map[string]string
	// Served: a watchdog runs to serve those proxies. A host pointed at a
	// proxy nobody serves has every call fail.
	Served bool
	// Patched: the host's client has the watchdog's fix applied.
	Patched bool
	// SeenSelfHealing: the host was seen to open a new session by itself
	// after a loss, whatever its profile says.
	SeenSelfHealing bool
	// Stateless holds the URLs a probe found serving the 2026-07-28
	// protocol only.
	Stateless map[string]bool
	// LostAnswer holds, per URL, the HTTP status the server was seen to
	// answer a session it does not know with (404, or 400): some hosts
	// heal one and not the other.
	LostAnswer map[string]int
}

// Verdict is a server's protection, why, and what protects it if nothing does.
type Verdict struct {
	Protection Protection
	// Upstream: for a proxied server, the URL of the server behind the proxy.
	Upstream string
	Why      string
	// Fix is the one command that protects an exposed server; "" otherwise,
	// or when the watchdog has none (legacy SSE).
	Fix string
}

// Protect says what protects server s of the host with profile p.
func Protect(p host.Profile, s hostconfig.Server, f Facts) Verdict {
	switch {
	case s.Transport == host.Stdio:
		return Verdict{Protection: NotNeeded, Why: "stdio: no HTTP session to lose"}
	case s.URL == "":
		return Verdict{Protection: Exposed, Why: "the entry names no URL the watchdog can read"}
	}
	if up, ok := f.Proxies[hostPort(s.URL)]; ok {
		v := Verdict{Protection: Proxied, Upstream: up, Why: "the watchdog's proxy keeps its session"}
		if !f.Served {
			v.Why = "it goes through the watchdog's proxy, but no watchdog runs to serve it: its calls fail until one does"
			v.Fix = "start the watchdog (`watchdog`), or put the server back: watchdog hosts release " + host.ShellWord(p.Name)
		}
		return v
	}
	switch {
	case f.Stateless[s.URL]:
		return Verdict{Protection: Stateless, Why: "it serves the 2026-07-28 protocol: no session to lose"}
	case s.Transport == host.SSE:
		return Verdict{Protection: Exposed, Why: "legacy SSE transport, which the proxy does not speak",
			Fix: "move the server to Streamable HTTP, then: " + adoptCommand(p, s)}
	case s.Transport == host.Bridged:
		return Verdict{Protection: SelfHealing, Why: "its stdio bridge (mcp-remote) replays initialize on a lost session"}
	case p.Patchable() && f.Patched:
		return Verdict{Protection: Patched, Why: "the client's fix reconnects on a lost session"}
	case p.Meets(f.LostAnswer[s.URL]).SelfHealing():
		v := Verdict{Protection: SelfHealing, Why: "the host opens a new session by itself (" + string(p.Meets(f.LostAnswer[s.URL])) + ")"}
		if !p.Meets(400).SelfHealing() && f.LostAnswer[s.URL] == 0 {
			v.Why += ", but not when the server answers a lost session with 400 (`watchdog probe URL` says how it answers)"
		}
		return v
	case f.SeenSelfHealing:
		return Verdict{Protection: SelfHealing, Why: "the host was seen to open a new session by itself"}
	}
	v := Verdict{Protection: Exposed, Why: "the host keeps a lost session's id: every later call fails", Fix: adoptCommand(p, s)}
	if p.OnLoss.SelfHealing() {
		v.Why = "the server answers a lost session with 400, and the host re-initializes only after a 404: every later call fails"
	}
	if p.Patchable() {
		v.Fix += " (or: watchdog patch apply)"
	}
	return v
}

func adoptCommand(p host.Profile, s hostconfig.Server) string {
	return p.AdoptCommand() + " --server " + host.ShellWord(s.Name)
}

// hostPort is the address part of a URL ("127.0.0.1:14300"), "" when it
// has none.
func hostPort(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Host
}
