package judge

import (
	"github.com/mcpwatchdog/watchdog/internal/host"
	"github.com/mcpwatchdog/watchdog/internal/host/hostfile"
	"github.com/mcpwatchdog/watchdog/internal/proxyurl"
)

// Protection is what keeps a server's sessions from being lost for good.
type Protection string

// The protections, as `watchdog hosts` names them.
const (
	Proxied     Protection = "proxied"      // the running daemon serves that exact URL now
	Patched     Protection = "patched"      // the host's client has the watchdog's fix
	SelfHealing Protection = "self-healing" // the host (or its bridge) heals itself against this server's answer
	Stateless   Protection = "stateless"    // a 2026-07-28 server: no session to lose
	OAuth       Protection = "oauth"        // signs in with OAuth: bound to its URL, cannot be proxied
	Exposed     Protection = "exposed"      // a lost session stays lost; a stdio server that dies stays dead
	NotNeeded   Protection = "not-needed"   // it runs inside the host: nothing to lose
	Supervised  Protection = "supervised"   // a stdio server run under `watchdog stdio`, which starts it again when it dies

	// The broken states of a host pointed at a proxy: every call fails.
	ProxyDown    Protection = "proxy down"    // no daemon serves that proxy now
	Stale        Protection = "stale"         // an old secret: the proxy answers 404; a wrapper gone, or naming a watchdog gone
	UnknownProxy Protection = "unknown proxy" // a proxy the watchdog does not know
)

// Broken reports whether the host's calls to the server fail now.
func (p Protection) Broken() bool { return p == ProxyDown || p == Stale || p == UnknownProxy }

// Facts are what Protect weighs besides the server's entry.
type Facts struct {
	// Proxies are the watchdog's configured proxies by listen address,
	// from the config the running daemon uses (the config file when no
	// daemon answers).
	Proxies map[string]Proxy
	// Daemon: a watchdog daemon answers. Without one no proxy is served.
	Daemon bool
	// Written maps each proxy address adopt wrote into a host's file (its
	// record, released entries too) to the server's own URL: a URL there
	// adopt can mend.
	Written map[string]string
	// Patched: the host's client has the watchdog's fix applied.
	Patched bool
	// SeenSelfHealing: the host was seen to open a new session by itself
	// after a loss, whatever its profile says.
	SeenSelfHealing bool
	// Stateless holds the URLs a probe found serving the 2026-07-28
	// protocol (no session to lose); ModernOnly those that serve nothing
	// else, which a host that speaks only the legacy era reaches through
	// the proxy's bridge alone.
	Stateless, ModernOnly map[string]bool
	// LostAnswer holds, per URL, how the server was seen to answer a
	// session it does not know (a 404 with a JSON-RPC error or plain text,
	// or a 400): a host may heal after one and not another.
	LostAnswer map[string]host.Answer
	// OAuth holds the URLs whose server signs in with OAuth (probed).
	OAuth map[string]bool
	// Wrappers are the wrapper scripts adopt wrote for stdio servers.
	Wrappers Wrappers
}

// Wrappers are the wrapper scripts adopt writes for stdio servers (each
// runs its server under `watchdog stdio`), as found on disk.
type Wrappers struct {
	// Dir is the folder adopt writes them in: a command there that is
	// not in Scripts is a wrapper that is gone.
	Dir string
	// Scripts are the wrappers there, by absolute path.
	Scripts map[string]Wrapper
}

// Wrapper is one wrapper script adopt wrote.
type Wrapper struct {
	// Watchdog is the watchdog binary it runs; Runs: that binary is
	// there and executable (else the script runs the server straight,
	// unsupervised).
	Watchdog string
	Runs     bool
	// Command is the server's own command, which it falls back to.
	Command string
}

// Proxy is one proxy the watchdog's config has.
type Proxy struct {
	// Upstream is the URL of the server it stands for.
	Upstream string
	// Served: the running daemon accepts on it now. URL is the URL it
	// serves (the current secret in it); Problem says why it is not served.
	Served       bool
	URL, Problem string
}

// Verdict is a server's protection, why, and what protects it if nothing does.
type Verdict struct {
	Protection Protection
	// Upstream: for an entry pointed at a proxy, the URL of the server
	// behind it, when known.
	Upstream string
	Why      string
	// Fix is the one command that mends or protects the server; "" when
	// nothing needs doing, or nothing the watchdog has would do it.
	Fix string
}

// Protect says what protects server s of the host with profile p.
func Protect(p host.Profile, s hostfile.Server, f Facts) Verdict {
	switch {
	case s.Transport == host.Stdio:
		return stdio(p, s, f.Wrappers)
	case s.Transport == host.Builtin:
		return Verdict{Protection: NotNeeded, Why: "it runs inside the host: no HTTP session to lose"}
	case s.URL == "":
		return Verdict{Protection: Exposed, Why: s.Unproxyable()}
	}
	if addr, ok := proxyAddress(s.URL, f); ok {
		return throughProxy(p, s, f, addr)
	}
	switch {
	case f.ModernOnly[s.URL] && !p.SpeaksModern && s.Unproxyable() == "":
		return Verdict{Protection: Exposed, Fix: adoptCommand(p, s),
			Why: "needs the bridge: the server serves only the 2026-07-28 protocol, which this host does not speak, so every call fails; the proxy bridges the eras"}
	case f.Stateless[s.URL] || f.ModernOnly[s.URL]:
		return Verdict{Protection: Stateless, Why: "it serves the 2026-07-28 protocol: no session to lose"}
	case s.Transport == host.SSE:
		return Verdict{Protection: Exposed, Why: "legacy SSE transport, which the proxy does not speak",
			Fix: "move the server to Streamable HTTP, then: " + adoptCommand(p, s)}
	case s.Unproxyable() != "":
		return Verdict{Protection: Exposed, Why: s.Unproxyable()}
	case s.Transport == host.Bridged:
		return Verdict{Protection: SelfHealing, Why: "its stdio bridge (mcp-remote) replays initialize on a lost session"}
	case p.Patchable() && f.Patched:
		return Verdict{Protection: Patched, Why: "the client's fix reconnects on a lost session"}
	case p.Behaviour.Heals(f.LostAnswer[s.URL]):
		return Verdict{Protection: SelfHealing, Why: healsWhy(p.Behaviour, f.LostAnswer[s.URL])}
	case f.SeenSelfHealing:
		return Verdict{Protection: SelfHealing, Why: "the host was seen to open a new session by itself"}
	case signsInWithOAuth(s, f):
		return Verdict{Protection: OAuth, Why: "it signs in with OAuth: its tokens are bound to its own URL, so no proxy can stand in for it; a lost session stays lost"}
	}
	v := Verdict{Protection: Exposed, Why: exposedWhy(p.Behaviour, f.LostAnswer[s.URL]), Fix: adoptCommand(p, s)}
	if p.Patchable() {
		v.Fix += " (or: watchdog patch apply)"
	}
	return v
}

// healsWhy says how a host heals itself after the server's answer a
// ("": not known yet, taken as the spec's 404).
func healsWhy(b host.Behaviour, a host.Answer) string {
	r := b.On(a)
	why := "after " + a.Words() + ", the answer this server gives, the host " + r.Words()
	if a == "" {
		why = "after a 404 the host " + r.Words()
		if !b.Heals(host.BadRequest) {
			why += ", but not after a 400 (`watchdog probe URL` says how this server answers)"
		}
	}
	if r == host.Reinitializes {
		why += " (through the watchdog's proxy that call works too)"
	}
	return why
}

// exposedWhy says why a host stays stuck on this server.
func exposedWhy(b host.Behaviour, a host.Answer) string {
	r := b.On(a)
	switch {
	case a != "" && b.HealsAny():
		return "the server answers a lost session with " + a.Words() + ", and after that the host " + r.Words() +
			" (it heals itself only after " + b.Healed() + ")"
	case a != "":
		return "the server answers a lost session with " + a.Words() + ", and after that the host " + r.Words()
	case r == host.Unknown && b.HealsAny():
		return "the host heals itself only after " + b.Healed() + ", and how this server answers a lost session is not known yet (`watchdog probe URL`)"
	}
	return "after a lost session the host " + r.Words()
}

// throughProxy judges an entry pointed at a watchdog proxy on addr:
// proxied only when the running daemon serves that exact URL now.
func throughProxy(p host.Profile, s hostfile.Server, f Facts, addr string) Verdict {
	release := "watchdog hosts release " + host.ShellWord(p.Name) + " --server " + host.ShellWord(s.Name)
	px, configured := proxyAt(f.Proxies, addr)
	switch {
	case !configured:
		if up, ok := lookup(f.Written, addr); ok {
			return Verdict{Protection: UnknownProxy, Upstream: up, Fix: adoptCommand(p, s),
				Why: "it points at a watchdog proxy on " + addr + " that the watchdog's config no longer has: every call fails; adopt mends it from its record"}
		}
		return Verdict{Protection: UnknownProxy, Fix: "put the server's own URL back in the host's file",
			Why: "it points at a watchdog proxy on " + addr + " that neither the watchdog's config nor adopt's record knows: every call fails"}
	case !f.Daemon:
		return Verdict{Protection: ProxyDown, Upstream: px.Upstream, Fix: "watchdog run (and `watchdog autostart enable` to keep it running), or: " + release,
			Why: "it goes through the watchdog's proxy on " + addr + ", but no watchdog runs: every call fails now"}
	case !px.Served:
		return Verdict{Protection: ProxyDown, Upstream: px.Upstream, Fix: "see `watchdog status`; or: " + release,
			Why: "the running watchdog does not serve its proxy on " + addr + " (" + orElse(px.Problem, "not served") + "): every call fails now"}
	case !sameSecret(s.URL, px.URL):
		return Verdict{Protection: Stale, Upstream: px.Upstream, Fix: adoptCommand(p, s),
			Why: "it holds an old URL of the proxy on " + addr + " (not its current secret): the proxy answers 404 and every call fails"}
	case f.OAuth[px.Upstream] && !s.StaticAuth:
		return Verdict{Protection: OAuth, Upstream: px.Upstream, Fix: release,
			Why: "it signs in with OAuth, whose tokens are bound to the server's own URL: through the proxy its sign-in fails"}
	}
	return Verdict{Protection: Proxied, Upstream: px.Upstream, Why: "the watchdog's proxy keeps its session"}
}

func signsInWithOAuth(s hostfile.Server, f Facts) bool {
	return !s.StaticAuth && (s.OAuth || f.OAuth[s.URL])
}

// proxyAddress is the watchdog proxy address a URL points at, if it does:
// a URL of a proxy's shape, or one on a loopback port a proxy of the
// config or of adopt's record has.
func proxyAddress(raw string, f Facts) (string, bool) {
	if p, ok := proxyurl.Parse(raw); ok {
		return p.Listen, true
	}
	hp := proxyurl.HostPort(raw)
	if _, ok := proxyAt(f.Proxies, hp); ok {
		return hp, true
	}
	if _, ok := lookup(f.Written, hp); ok {
		return hp, true
	}
	return "", false
}

func proxyAt(ps map[string]Proxy, addr string) (Proxy, bool) {
	for listen, p := range ps {
		if proxyurl.SameListen(listen, addr) {
			return p, true
		}
	}
	return Proxy{}, false
}

func lookup(m map[string]string, addr string) (string, bool) {
	for listen, up := range m {
		if proxyurl.SameListen(listen, addr) {
			return up, true
		}
	}
	return "", false
}

// sameSecret reports whether a host's URL holds the secret of the URL the
// proxy serves ("" when that is not known: nothing to tell them apart).
func sameSecret(hostURL, served string) bool {
	if served == "" {
		return true
	}
	a, okA := proxyurl.Parse(hostURL)
	b, okB := proxyurl.Parse(served)
	return okA && okB && a.Secret == b.Secret
}

func orElse(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func adoptCommand(p host.Profile, s hostfile.Server) string {
	return p.AdoptCommand() + " --server " + host.ShellWord(s.Name)
}
