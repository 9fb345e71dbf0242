package tray

import (
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/health"
)

// severity ranks server states for the icon: the worst one shows.
var severity = map[health.State]int{
	health.AtRisk:  1,
	health.Healing: 2,
	health.Down:    3,
	health.Lost:    4,
}

// IconState names the icon for v: the worst server state, else "paused"
// when notifications are paused, else "healthy". Unknown counts as
// healthy: there is no evidence of trouble to show.
func IconState(v View) string {
	worst := health.Healthy
	for _, s := range v.Status.Servers {
		if severity[s.State] > severity[worst] {
			worst = s.State
		}
	}
	if worst == health.Healthy && v.Paused {
		return "paused"
	}
	return string(worst)
}

// Summary is the one-line tooltip: trouble first, else how many servers
// are healthy and when the next session expires.
func Summary(v View) string {
	var parts []string
	for _, s := range v.Status.Servers {
		if p := troublePhrase(s); p != "" {
			parts = append(parts, p)
		}
	}
	if len(parts) == 0 {
		parts = append(parts, healthyPhrase(v.Status.Servers)...)
	}
	if h := v.Status.Host; h.Name != "" && !h.Running {
		parts = append(parts, h.Name+" not running")
	}
	if v.Paused {
		parts = append(parts, "notifications paused")
	}
	return strings.Join(parts, " · ")
}

func troublePhrase(s health.ServerStatus) string {
	if s.Transport == health.TransportStdio {
		return stdioTrouble(s)
	}
	switch s.State {
	case health.Lost:
		return s.Name + " lost"
	case health.Healing:
		return s.Name + " lost — healing"
	case health.Down:
		return s.Name + " down"
	case health.AtRisk:
		if ss, ok := watched(s); ok {
			return fmt.Sprintf("%s at risk — expires in %s", s.Name, Elapsed(secs(ss.ExpiresInSeconds)))
		}
		return s.Name + " at risk"
	}
	return ""
}

func healthyPhrase(servers []health.ServerStatus) []string {
	if len(servers) == 0 {
		return []string{"no servers configured"}
	}
	n := "1 server"
	if len(servers) > 1 {
		n = fmt.Sprintf("%d servers", len(servers))
	}
	out := []string{n + " healthy"}
	next := int64(-1)
	for _, s := range servers {
		if ss, ok := watched(s); ok && (next < 0 || ss.ExpiresInSeconds < next) {
			next = ss.ExpiresInSeconds
		}
	}
	if next >= 0 {
		out = append(out, "next expiry in "+Elapsed(secs(next)))
	}
	return out
}

// ServerLine is a server's menu line: its state and, for a stateful
// server, how idle its session is or how soon it expires, or that the
// proxy keeps the host's sessions.
func ServerLine(s health.ServerStatus, now time.Time) string {
	_ = now // the status already carries durations as of its own now
	line := s.Name + ": " + StateLabel(s.State)
	switch {
	case s.Mode == health.Stateless:
		return line + " · stateless, nothing to expire"
	case s.State == health.Lost || s.State == health.Healing || s.State == health.Down:
		return line
	case s.ProxyURL != "":
		// The host's sessions are the proxy's: none of them expires for it.
		// The address only: the URL's secret is for `watchdog status`.
		return line + " · sessions kept by the proxy at " + proxyAddr(s.ProxyURL)
	}
	ss, ok := watched(s)
	if !ok {
		return line
	}
	if s.State == health.AtRisk || s.IdleTimeoutSeconds <= 0 {
		return line + " · expires in " + Elapsed(secs(ss.ExpiresInSeconds))
	}
	return fmt.Sprintf("%s · idle %s of %s", line, Elapsed(secs(ss.IdleSeconds)), Duration(secs(s.IdleTimeoutSeconds)))
}

// StateLabel is a state as people read it.
func StateLabel(st health.State) string {
	if st == "" {
		return string(health.Unknown)
	}
	return strings.ReplaceAll(string(st), "_", " ")
}

// watched picks the session that matters: the host's current one, else
// the one closest to expiry.
func watched(s health.ServerStatus) (health.SessionStatus, bool) {
	var best health.SessionStatus
	found := false
	for _, ss := range s.Sessions {
		if ss.Current {
			return ss, true
		}
		if !found || ss.ExpiresInSeconds < best.ExpiresInSeconds {
			best, found = ss, true
		}
	}
	return best, found
}

func secs(n int64) time.Duration { return time.Duration(n) * time.Second }

// elapsedStep: under a minute a moving duration is shown in these steps,
// the menu's refresh period, so the text is never a stale second count.
const elapsedStep = 10 * time.Second

// Elapsed is a duration that moves on between refreshes (idle so far,
// time left): under a minute in whole 10 s steps, rounded down ("<10s",
// "40s"), else as Duration.
func Elapsed(d time.Duration) string {
	switch {
	case d < elapsedStep:
		return "<10s"
	case d < time.Minute:
		return Duration(d.Truncate(elapsedStep))
	}
	return Duration(d)
}

// Duration is short and human: "3h12m", "12h", "28m", "45s".
func Duration(d time.Duration) string {
	if d < time.Minute {
		return fmt.Sprintf("%ds", int(max(d, 0)/time.Second))
	}
	d = d.Round(time.Minute)
	h, m := int(d/time.Hour), int(d%time.Hour/time.Minute)
	switch {
	case h == 0:
		return fmt.Sprintf("%dm", m)
	case m == 0:
		return fmt.Sprintf("%dh", h)
	}
	return fmt.Sprintf("%dh%dm", h, m)
}

// proxyAddr is the host:port of a proxy URL, without its secret path.
func proxyAddr(proxyURL string) string {
	u, err := url.Parse(proxyURL)
	if err != nil || u.Host == "" {
		return "its address"
	}
	return u.Host
}
