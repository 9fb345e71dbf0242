package probe

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/host"
	"github.com/mcpwatchdog/watchdog/internal/mcphttp"
	"github.com/mcpwatchdog/watchdog/internal/textsafe"
)

// Era values, as status says them too (mcphttp.Era).
const (
	EraModernOnly = string(mcphttp.EraModernOnly) // server/discover lists 2026-07-28; initialize does not work
	EraLegacy     = string(mcphttp.EraLegacy)     // initialize works; server/discover does not offer 2026-07-28
	EraBoth       = string(mcphttp.EraBoth)       // both work: a stateless server that still serves legacy clients
	EraUnknown    = "unknown"
)

// Report is what the probe found.
type Report struct {
	// URL is the endpoint as mask.URL shows it: user info and query
	// values redacted.
	URL string `json:"url"`
	// Era is EraModernOnly, EraLegacy, EraBoth or EraUnknown.
	Era string `json:"era"`
	// Stateful: initialize issued an Mcp-Session-Id.
	Stateful bool `json:"stateful"`
	// SupportedVersions as server/discover listed them (or an
	// unsupported-version error's data).
	SupportedVersions []string `json:"supported_versions"`
	// ProtocolVersion is the one initialize negotiated ("" if none).
	ProtocolVersion string `json:"protocol_version,omitempty"`
	ServerName      string `json:"server_name,omitempty"`
	ServerVersion   string `json:"server_version,omitempty"`
	// UnknownSession: "404 (spec)" (", JSON-RPC error" or ", plain text"),
	// "400 quirk: <body>", or what else came.
	UnknownSession string `json:"unknown_session"`
	// LostAnswer is how the server says a session is gone, as a host's
	// behaviour table reads it: "404 json-rpc", "404 text" or "400"; ""
	// when it said no such thing.
	LostAnswer host.Answer `json:"lost_answer,omitempty"`
	// GETStream says how the standalone GET stream was answered.
	GETStream string `json:"get_stream"`
	// GET404Quirk: GET answered 404 on a live session, the hazard that makes
	// a client treating every 404 as a loss reconnect in a loop.
	GET404Quirk bool `json:"get_404_quirk"`
	// Delete: "supported", "405", or what else came.
	Delete string `json:"delete"`
	// SignIn says how a server that wanted credentials signs its users in:
	// SignInOAuth or SignInHeader; "" when it asked for none. For OAuth,
	// ResourceMetadata is where its RFC 9728 metadata is and Resource the
	// URL its tokens are bound to (both as mask.URL shows them).
	SignIn           string `json:"sign_in,omitempty"`
	ResourceMetadata string `json:"resource_metadata,omitempty"`
	Resource         string `json:"resource,omitempty"`
	// SessionLeft is false when the probe verified that its session is gone
	// (or none was opened).
	SessionLeft bool                     `json:"session_left"`
	Timings     map[string]time.Duration `json:"-"`
	Notes       []string                 `json:"notes"`
}

// MarshalJSON writes Timings as whole milliseconds under "timings_ms".
func (r Report) MarshalJSON() ([]byte, error) {
	type plain Report // no methods: no recursion
	ms := make(map[string]int64, len(r.Timings))
	for k, d := range r.Timings {
		ms[k] = d.Milliseconds()
	}
	if r.SupportedVersions == nil {
		r.SupportedVersions = []string{}
	}
	if r.Notes == nil {
		r.Notes = []string{}
	}
	return json.Marshal(struct {
		plain
		TimingsMS map[string]int64 `json:"timings_ms"`
	}{plain(r), ms})
}

// WriteText writes the report for a person. What the server said (its
// name and version, bodies quoted in notes) is escaped (textsafe.Escape):
// a server picks its own serverInfo, escape sequences included.
func (r Report) WriteText(w io.Writer) error {
	var b strings.Builder
	line := func(k, v string) { fmt.Fprintf(&b, "%-16s %s\n", k, textsafe.Escape(v)) }
	line("endpoint", r.URL)
	line("era", r.eraText())
	line("sessions", r.sessionsText())
	if r.ServerName != "" {
		line("server", strings.TrimSpace(r.ServerName+" "+r.ServerVersion))
	}
	if r.SignIn != "" {
		line("sign-in", r.signInText())
	}
	line("unknown session", orDash(r.UnknownSession))
	line("GET stream", orDash(r.GETStream))
	line("DELETE", orDash(r.Delete))
	line("left behind", r.leftText())
	line("timings", r.timingsText())
	if len(r.Notes) > 0 {
		b.WriteString("notes:\n")
		for _, n := range r.Notes {
			fmt.Fprintf(&b, "  - %s\n", textsafe.Escape(n))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func (r Report) signInText() string {
	if r.SignIn != SignInOAuth {
		return "a credential of its own (configure the header the server wants)"
	}
	return "OAuth (metadata " + orDash(r.ResourceMetadata) + ", resource " + orDash(r.Resource) +
		"): its tokens are bound to its own URL, so hosts sign in themselves and the watchdog's proxy cannot stand in front of it"
}

func (r Report) eraText() string {
	if len(r.SupportedVersions) == 0 {
		return r.Era
	}
	return fmt.Sprintf("%s (supported: %s)", r.Era, strings.Join(r.SupportedVersions, ", "))
}

func (r Report) sessionsText() string {
	switch {
	case r.Stateful:
		return fmt.Sprintf("stateful (protocol %s)", orDash(r.ProtocolVersion))
	case r.Era == EraUnknown:
		return "unknown"
	}
	return "stateless: no session to lose"
}

func (r Report) leftText() string {
	switch {
	case r.SessionLeft:
		return "the probe session (it ends at the server's idle timeout)"
	case r.Stateful:
		return "nothing (verified)"
	}
	return "nothing"
}

func (r Report) timingsText() string {
	steps := make([]string, 0, len(r.Timings))
	for k := range r.Timings {
		steps = append(steps, k)
	}
	slices.SortFunc(steps, func(a, b string) int {
		if ra, rb := stepRank(a), stepRank(b); ra != rb {
			return ra - rb
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, len(steps))
	for i, s := range steps {
		parts[i] = fmt.Sprintf("%s %d ms", s, r.Timings[s].Milliseconds())
	}
	return orDash(strings.Join(parts, ", "))
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
