package tray

import (
	"testing"
	"time"

	"github.com/mcpwatchdog/watchdog/internal/health"
)

var now = time.Date(2026, 11, 30, 7, 0, 0, 0, time.UTC)

func srv(name string, st health.State, idle, expires int64) health.ServerStatus {
	return health.ServerStatus{Name: name, Mode: health.Stateful, State: st, IdleTimeoutSeconds: 43200,
		Sessions: []health.SessionStatus{{ID: "abcd…wxyz", IdleSeconds: idle, ExpiresInSeconds: expires, State: st, Current: true}}}
}

func TestSummary(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		v    View
		want string
	}{
		{"none", View{}, "no servers configured"},
		{"two healthy", View{Status: health.Status{Servers: []health.ServerStatus{
			srv("a", health.Healthy, 100, 4*3600), srv("b", health.Healthy, 100, 3*3600)}}},
			"2 servers healthy · next expiry in 3h"},
		{"one healthy no session", View{Status: health.Status{Servers: []health.ServerStatus{
			{Name: "a", State: health.Healthy}}}}, "1 server healthy"},
		{"lost", View{Status: health.Status{Servers: []health.ServerStatus{srv("nowledge-mem", health.Lost, 0, 0)}}},
			"nowledge-mem lost"},
		{"healing", View{Status: health.Status{Servers: []health.ServerStatus{
			srv("nowledge-mem", health.Healing, 0, 0), srv("b", health.Healthy, 1, 100)}}},
			"nowledge-mem lost — healing"},
		{"at risk", View{Status: health.Status{Servers: []health.ServerStatus{srv("m", health.AtRisk, 41000, 28*60)}}},
			"m at risk — expires in 28m"},
		{"down and paused, host gone", View{Paused: true, Status: health.Status{
			Host: health.HostStatus{Name: "DSH"}, Servers: []health.ServerStatus{srv("m", health.Down, 0, 0)}}},
			"m down · DSH not running · notifications paused"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := Summary(tc.v); got != tc.want {
				t.Errorf("Summary = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestServerLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		s    health.ServerStatus
		want string
	}{
		{"idle of timeout", srv("nowledge-mem", health.Healthy, 3*3600+12*60, 8*3600), "nowledge-mem: healthy · idle 3h12m of 12h"},
		{"at risk", srv("nowledge-mem", health.AtRisk, 41000, 28*60), "nowledge-mem: at risk · expires in 28m"},
		{"lost", srv("m", health.Lost, 0, 0), "m: lost"},
		{"healing", srv("m", health.Healing, 0, 0), "m: healing"},
		{"stateless", health.ServerStatus{Name: "m", Mode: health.Stateless, State: health.Healthy}, "m: healthy · stateless, nothing to expire"},
		{"no session", health.ServerStatus{Name: "m", State: health.Unknown}, "m: unknown"},
		{"proxied", health.ServerStatus{Name: "m", State: health.Healthy, Mode: health.Stateful, ProxyURL: "http://127.0.0.1:14243/SECRETSECRETSECRETSECRET23/mcp"},
			"m: healthy · sessions kept by the proxy at 127.0.0.1:14243"},
		{"empty state", health.ServerStatus{Name: "m"}, "m: unknown"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := ServerLine(tc.s, now); got != tc.want {
				t.Errorf("ServerLine = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestIconState(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		states []health.State
		paused bool
		want   string
	}{
		{"empty", nil, false, "healthy"},
		{"healthy", []health.State{health.Healthy, health.Unknown}, false, "healthy"},
		{"paused", []health.State{health.Healthy}, true, "paused"},
		{"at risk beats paused", []health.State{health.AtRisk}, true, "at_risk"},
		{"lost is worst", []health.State{health.Down, health.Lost, health.Healing}, false, "lost"},
		{"down over healing", []health.State{health.Healing, health.Down}, false, "down"},
		{"healing over at risk", []health.State{health.AtRisk, health.Healing}, false, "healing"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			v := View{Paused: tc.paused}
			for _, st := range tc.states {
				v.Status.Servers = append(v.Status.Servers, health.ServerStatus{Name: string(st), State: st})
			}
			if got := IconState(v); got != tc.want {
				t.Errorf("IconState = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestDuration(t *testing.T) {
	t.Parallel()
	for in, want := range map[time.Duration]string{
		-time.Second: "0s", 45 * time.Second: "45s", 28 * time.Minute: "28m", 12 * time.Hour: "12h",
		3*time.Hour + 12*time.Minute + 20*time.Second: "3h12m", 59*time.Minute + 40*time.Second: "1h",
	} {
		if got := Duration(in); got != want {
			t.Errorf("Duration(%v) = %q, want %q", in, got, want)
		}
	}
}

// A moving duration is shown in steps the 10 s menu refresh keeps true:
// it never reads a second count that is already stale.
func TestElapsed(t *testing.T) {
	t.Parallel()
	for in, want := range map[time.Duration]string{
		0: "<10s", 9 * time.Second: "<10s", 10 * time.Second: "10s", 49 * time.Second: "40s",
		59 * time.Second: "50s", 60 * time.Second: "1m", 3*time.Hour + 12*time.Minute: "3h12m",
	} {
		if got := Elapsed(in); got != want {
			t.Errorf("Elapsed(%v) = %q, want %q", in, got, want)
		}
	}
}

func TestServerLineRoundsWhatMoves(t *testing.T) {
	t.Parallel()
	s := health.ServerStatus{Name: "mem", State: health.Healthy, IdleTimeoutSeconds: 30,
		Sessions: []health.SessionStatus{{Current: true, IdleSeconds: 9, ExpiresInSeconds: 21}}}
	if got := ServerLine(s, time.Time{}); got != "mem: healthy · idle <10s of 30s" {
		t.Errorf("line %q", got)
	}
	s.State = health.AtRisk
	if got := ServerLine(s, time.Time{}); got != "mem: at risk · expires in 20s" {
		t.Errorf("line %q", got)
	}
}
